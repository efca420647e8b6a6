package drain

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/reflectkb/reflect/knowledge"
	"github.com/reflectkb/reflect/store"
)

// supersedeDrain drains one session whose command writer answers a draft
// that supersedes goLearning (shown to it as a candidate), with review as
// given (nil: the command writer's default, on). It returns the env, the
// learning superseded, its file before the drain, and the draft written.
func supersedeDrain(t *testing.T, review *bool) (e *signalsEnv, gol *store.Learning, before []byte, draft Written) {
	t.Helper()
	e = newSignalsEnv(t)
	gol = clone(goLearning)
	e.put(t, gol)
	before, err := os.ReadFile(filepath.Join(e.kb, "documents", gol.ID+".md"))
	if err != nil {
		t.Fatal(err)
	}
	answer := filepath.Join(t.TempDir(), "answer.json")
	data, _ := json.Marshal(map[string]any{"learnings": []map[string]string{{
		"title":       "go test needs CGO_ENABLED=1 for sqlite",
		"key_insight": "The sqlite driver is cgo: set CGO_ENABLED=1 as well as the tag.",
		"supersedes":  gol.ID,
	}}})
	if err := os.WriteFile(answer, data, 0o600); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(t.TempDir(), "writer.sh")
	writeScript(t, script, `cat "$ANSWER"`+"\n")
	setenvAll(e.drainEnv, []string{"REFLECT_WRITER=command", "REFLECT_WRITER_COMMAND=" + script, "ANSWER=" + answer})
	e.enqueueData(t, []byte(sessionLines("s1", e.repo,
		[2]string{"go test ./...", "FAIL:undefined: sqlite3.FTS5"},
	)), "claude", "s1")
	rep := e.run(t, Options{Review: review})
	if len(rep.Entries) != 1 || len(rep.Entries[0].Written) != 1 {
		t.Fatalf("report: %+v", rep.Entries)
	}
	draft = rep.Entries[0].Written[0]
	if got := e.read(t, draft.ID); got.Supersedes != gol.ID {
		t.Fatalf("the draft written supersedes %q, want %s (the writer's answer was not followed)", got.Supersedes, gol.ID)
	}
	return e, gol, before, draft
}

// heldInSearch is how the index holds id (found: listed at all).
func heldInSearch(t *testing.T, e *signalsEnv, text, id string) (held string, found bool) {
	t.Helper()
	for _, r := range e.search(t, text) {
		if r.ID == id {
			return r.Held, true
		}
	}
	return "", false
}

// Under review, a writer's draft that supersedes an active learning waits
// beside it: the learning stays injected (not held) until the user
// approves the draft, and approval marks it superseded, linked both ways.
// (On the old code it was held as superseded the moment the draft was
// written.)
func TestDrainPendingSupersedeWaitsForApproval(t *testing.T) {
	t.Parallel()
	e, gol, before, draft := supersedeDrain(t, nil)
	if !draft.Pending {
		t.Fatalf("the draft is not pending under review: %+v", draft)
	}
	after, _ := os.ReadFile(filepath.Join(e.kb, "documents", gol.ID+".md"))
	if !bytes.Equal(before, after) {
		t.Errorf("the superseded learning was rewritten by a pending draft:\n%s", after)
	}
	if got := e.read(t, gol.ID); got.SupersededBy != "" || got.Held() != "" {
		t.Errorf("before approval: superseded_by %q, held %q; want active", got.SupersededBy, got.Held())
	}
	if held, ok := heldInSearch(t, e, "sqlite_fts5 tag go test", gol.ID); !ok || held != "" {
		t.Errorf("before approval, in search: found %v, held %q; want found, not held", ok, held)
	}
	if _, err := e.openBase(t).Approve(context.Background(), draft.ID); err != nil {
		t.Fatal(err)
	}
	if got := e.read(t, gol.ID); got.SupersededBy != draft.ID || got.Held() != "superseded" {
		t.Errorf("after approval: superseded_by %q, held %q", got.SupersededBy, got.Held())
	}
	if held, ok := heldInSearch(t, e, "sqlite_fts5 tag go test", gol.ID); !ok || held != "superseded" {
		t.Errorf("after approval, in search: found %v, held %q", ok, held)
	}
	if got := e.read(t, draft.ID); got.Pending() || got.Supersedes != gol.ID {
		t.Errorf("approved draft: status %q, supersedes %q", got.Status, got.Supersedes)
	}
}

// Rejecting such a draft leaves the learning exactly as it was.
func TestDrainPendingSupersedeRejected(t *testing.T) {
	t.Parallel()
	e, gol, before, draft := supersedeDrain(t, nil)
	if _, err := e.openBase(t).Reject(context.Background(), knowledge.NewRejections(e.state), draft.ID); err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(filepath.Join(e.kb, "documents", gol.ID+".md"))
	if !bytes.Equal(before, after) {
		t.Errorf("the learning changed after its superseding draft was rejected:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	if held, ok := heldInSearch(t, e, "sqlite_fts5 tag go test", gol.ID); !ok || held != "" {
		t.Errorf("after the reject, in search: found %v, held %q", ok, held)
	}
}

// With review off the draft is the learning: it supersedes at once, as
// before.
func TestDrainAutoApprovedSupersedesAtOnce(t *testing.T) {
	t.Parallel()
	off := false
	e, gol, _, draft := supersedeDrain(t, &off)
	if draft.Pending {
		t.Fatalf("the draft is pending with review off: %+v", draft)
	}
	if got := e.read(t, gol.ID); got.SupersededBy != draft.ID || got.Held() != "superseded" {
		t.Errorf("superseded_by %q, held %q; want superseded by %s at once", got.SupersededBy, got.Held(), draft.ID)
	}
	if held, ok := heldInSearch(t, e, "sqlite_fts5 tag go test", gol.ID); !ok || held != "superseded" {
		t.Errorf("in search: found %v, held %q", ok, held)
	}
}
