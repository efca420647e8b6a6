package drain

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reflectkb/reflect/queue"
)

// A drain that died inside an entry (its marker is left behind) costs that
// entry an attempt: the next drain still takes it at once, and an entry
// that kills every drain is poisoned after max_attempts instead of being
// claimed first forever and blocking the queue behind it.
func TestRunCountsInterruptedEntries(t *testing.T) {
	t.Parallel()
	e := newDrainEnv(t)
	e.setenv("REFLECT_DRAIN_MAX_ATTEMPTS", "2")
	bad := e.enqueue(t, "../transcript/testdata/claude-session.jsonl", queue.HarnessClaude, "s-bad")
	e.enqueue(t, "../transcript/testdata/codex-rollout.jsonl", queue.HarnessCodex, "s-good")
	marker := filepath.Join(e.state, currentFile)

	// First death inside the bad entry: the next drain counts it and,
	// with attempts left, reflects it at once.
	if err := os.WriteFile(marker, []byte(bad.ID+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	w := &fixedWriter{drafts: fixedDrafts}
	rep := e.run(t, Options{Writer: w, Max: 1})
	if len(rep.Entries) != 1 || rep.Entries[0].ID != bad.ID || rep.Entries[0].Outcome != OutcomeWritten {
		t.Fatalf("after one interruption: %+v", rep.Entries)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("marker left behind by a drain that finished")
	}

	// An entry interrupted as often as max_attempts allows is poisoned and
	// the queue moves on to the next one.
	again := e.enqueue(t, "../transcript/testdata/claude-session.jsonl", queue.HarnessClaude, "s-bad-2")
	q := e.queue(t)
	if _, err := q.Interrupted(again.ID, rep.Started, 2, "test: first death"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(marker, []byte(again.ID+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	rep = e.run(t, Options{Writer: w})
	for _, en := range rep.Entries {
		if en.ID == again.ID {
			t.Errorf("poisoned entry was reflected: %+v", en)
		}
	}
	if got := e.lines(t, "poison.jsonl"); len(got) != 1 || !strings.Contains(got[0], again.ID) || !strings.Contains(got[0], "drainer stopped") {
		t.Errorf("poison.jsonl = %q", got)
	}
	for _, r := range e.pending(t) {
		if r.ID == again.ID {
			t.Error("poisoned entry still pending")
		}
	}
}
