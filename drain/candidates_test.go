package drain

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reflectkb/reflect/store"
)

// candidatesWriter is a command writer that keeps the prompt and the
// condensed JSON it was given and answers $ANSWER.
const candidatesWriter = `cp "$REFLECT_WRITER_PROMPT" "$FAKE_OUT/prompt.txt"
cp "$REFLECT_CONDENSED_JSON" "$FAKE_OUT/condensed.json"
cat "$ANSWER"
`

// An LLM writer is shown the learnings nearest the session's failures and
// answers update, supersede or new for each draft; the drainer follows an
// answer naming a learning it showed, and writes a draft naming any other
// as new, with a note in drain.log.
func TestDrainWriterAnswersUpdateSupersedeNew(t *testing.T) {
	t.Parallel()
	e := newSignalsEnv(t)
	npm, gol := clone(npmLearning), clone(goLearning)
	npm.Type = "mini"
	unrelated := &store.Learning{Title: "Vite dev server must bind 0.0.0.0 inside Docker",
		KeyInsight: "Start vite with --host so the port mapping reaches it."}
	e.put(t, npm, gol, unrelated)

	out := t.TempDir()
	answer := filepath.Join(t.TempDir(), "answer.json")
	drafts := []map[string]string{
		{"title": "`npm ci` fails with ERESOLVE on a fresh clone", "key_insight": "Pin the peer range in package.json; --legacy-peer-deps only hides it.", "update": npm.ID},
		{"title": "go test needs CGO_ENABLED=1 for sqlite", "key_insight": "The sqlite driver is cgo: set CGO_ENABLED=1 as well as the tag.", "supersedes": gol.ID},
		{"title": "Docker compose needs the env file", "key_insight": "Pass --env-file .env.local to docker compose up.", "update": unrelated.ID},
	}
	data, _ := json.Marshal(map[string]any{"learnings": drafts})
	if err := os.WriteFile(answer, data, 0o600); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(t.TempDir(), "writer.sh")
	writeScript(t, script, candidatesWriter)
	setenvAll(e.drainEnv, []string{"REFLECT_WRITER=command", "REFLECT_WRITER_COMMAND=" + script, "FAKE_OUT=" + out, "ANSWER=" + answer})

	e.enqueueData(t, []byte(sessionLines("s1", e.repo,
		[2]string{"npm ci", "FAIL:npm ERR! code ERESOLVE\nnpm ERR! unable to resolve dependency tree"},
		[2]string{"go test ./...", "FAIL:undefined: sqlite3.FTS5"},
	)), "claude", "s1")
	rep := e.run(t, Options{})
	if len(rep.Entries) != 1 || rep.Entries[0].Outcome != OutcomeWritten {
		t.Fatalf("entries %+v", rep.Entries)
	}
	prompt := readRecorded(t, out, "prompt.txt")
	block, _, _ := strings.Cut(prompt, "<transcript")
	for _, id := range []string{npm.ID, gol.ID} {
		if !strings.Contains(block, "- "+id+": ") {
			t.Errorf("the prompt does not show candidate %s before the transcript:\n%s", id, block)
		}
	}
	if strings.Contains(block, unrelated.ID) {
		t.Errorf("the prompt shows a learning unrelated to the failures")
	}
	if c := readRecorded(t, out, "condensed.json"); !strings.Contains(c, `"candidates":[{"id":"`) {
		t.Errorf("the condensed JSON has no candidates: %s", c)
	}

	written := map[string]Written{}
	for _, w := range rep.Entries[0].Written {
		written[w.ID] = w
	}
	// Under review (the command writer's default) the update of the
	// active learning is proposed beside it, and applied on approval.
	var proposal Written
	for _, w := range rep.Entries[0].Written {
		if w.Updates == npm.ID {
			proposal = w
		}
	}
	if _, ok := written[npm.ID]; ok || proposal.ID == "" || !proposal.Pending {
		t.Fatalf("update %s not proposed as a pending draft: %+v", npm.ID, rep.Entries[0].Written)
	}
	if got := e.read(t, npm.ID); got.KeyInsight != npm.KeyInsight || got.Pending() {
		t.Errorf("the active learning changed before review: insight %q, status %q", got.KeyInsight, got.Status)
	}
	if _, err := e.openBase(t).Approve(context.Background(), proposal.ID); err != nil {
		t.Fatal(err)
	}
	if got := e.read(t, npm.ID); !strings.Contains(got.KeyInsight, "Pin the peer range") || got.Type != "mini" || got.Project != "auth-service" {
		t.Errorf("updated: insight %q, type %q, project %q; want the new insight, the type and project kept", got.KeyInsight, got.Type, got.Project)
	}
	// The superseding draft waits for review too: the learning it would
	// replace stays active until it is approved.
	var superseder string
	for _, w := range rep.Entries[0].Written {
		if w.ID != proposal.ID && e.read(t, w.ID).Supersedes == gol.ID {
			superseder = w.ID
		}
	}
	if superseder == "" {
		t.Fatalf("no draft supersedes %s: %+v", gol.ID, rep.Entries[0].Written)
	}
	if old := e.read(t, gol.ID); old.SupersededBy != "" || old.Held() != "" {
		t.Errorf("superseded before review: superseded_by %q, held %q", old.SupersededBy, old.Held())
	}
	if _, err := e.openBase(t).Approve(context.Background(), superseder); err != nil {
		t.Fatal(err)
	}
	old := e.read(t, gol.ID)
	if old.SupersededBy != superseder || old.Held() != "superseded" {
		t.Fatalf("superseded learning: superseded_by %q", old.SupersededBy)
	}
	if nw := e.read(t, old.SupersededBy); nw.Supersedes != gol.ID || !strings.Contains(nw.Title, "CGO_ENABLED") {
		t.Errorf("the superseding learning: %+v", nw)
	}
	if got := e.read(t, unrelated.ID); got.Title != unrelated.Title {
		t.Errorf("a learning the writer was not shown was updated: %q", got.Title)
	}
	if len(e.documents(t)) != 5 {
		t.Errorf("documents %v: want the 3 put, the superseding one and the unshown update written as new", e.documents(t))
	}
	log := strings.Join(e.lines(t, "drain.log"), "\n")
	if !strings.Contains(log, "update "+unrelated.ID+", which it was not shown; written as new") {
		t.Errorf("drain.log does not say the answer was not followed:\n%s", log)
	}
}

// A learning the writer answers update for but that is gone by the time
// the answer is applied (forgotten meanwhile) is written as new, not
// retried.
func TestDrainWriterUpdatesAForgottenLearning(t *testing.T) {
	t.Parallel()
	e := newSignalsEnv(t)
	npm := clone(npmLearning)
	e.put(t, npm)
	answer := filepath.Join(t.TempDir(), "answer.json")
	data, _ := json.Marshal(map[string]any{"learnings": []map[string]string{
		{"title": "npm ci needs the peer range pinned", "key_insight": "Pin the peer range in package.json.", "update": npm.ID}}})
	if err := os.WriteFile(answer, data, 0o600); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(t.TempDir(), "writer.sh")
	writeScript(t, script, `rm "$DOC"
cat "$ANSWER"
`)
	setenvAll(e.drainEnv, []string{"REFLECT_WRITER=command", "REFLECT_WRITER_COMMAND=" + script, "ANSWER=" + answer,
		"DOC=" + filepath.Join(e.kb, "documents", npm.ID+".md")})
	e.enqueueData(t, []byte(sessionLines("s1", e.repo,
		[2]string{"npm ci", "FAIL:npm ERR! code ERESOLVE\nnpm ERR! unable to resolve dependency tree"})), "claude", "s1")
	rep := e.run(t, Options{})
	if len(rep.Entries) != 1 || rep.Entries[0].Outcome != OutcomeWritten || len(rep.Entries[0].Written) != 1 ||
		rep.Entries[0].Written[0].Action != "added" || rep.Entries[0].Written[0].ID == npm.ID {
		t.Fatalf("entries %+v", rep.Entries)
	}
	if log := strings.Join(e.lines(t, "drain.log"), "\n"); !strings.Contains(log, "update "+npm.ID+": ") || !strings.Contains(log, "written as new") {
		t.Errorf("drain.log:\n%s", log)
	}
}
