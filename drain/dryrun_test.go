package drain

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/reflectkb/reflect/drain/writer"
	"github.com/reflectkb/reflect/queue"
)

// --dry-run: what a drain would do, changing nothing.

// dryRunEnv has three queued entries, one of them reflected by a real
// drain so that every file a drain writes exists.
func dryRunEnv(t *testing.T) *drainEnv {
	e := newDrainEnv(t)
	for i := 0; i < 3; i++ {
		e.enqueue(t, "../transcript/testdata/claude-session.jsonl", queue.HarnessClaude, fmt.Sprintf("s-%d", i))
	}
	e.run(t, Options{Writer: writer.Builtin{}, Max: 1})
	return e
}

// dryRun runs a dry drain and returns the files it changed or created
// (except skip).
func dryRun(t *testing.T, e *drainEnv, wantEntries int, skip ...string) []string {
	t.Helper()
	before := snapshot(t, e.state, e.kb)
	w := &fixedWriter{drafts: fixedDrafts}
	rep := e.run(t, Options{Writer: w, DryRun: true})
	if !rep.Ran || !rep.DryRun || len(rep.Entries) != wantEntries || w.calls != 0 {
		t.Fatalf("dry run: %+v, writer calls %d", rep, w.calls)
	}
	for _, en := range rep.Entries {
		if en.Outcome != OutcomeWouldRun || en.RawBytes == 0 {
			t.Errorf("entry %+v", en)
		}
	}
	if rep.Today.Entries != 1 {
		t.Errorf("a dry run counted against today: %+v", rep.Today)
	}
	after := snapshot(t, e.state, e.kb)
	var changed []string
	for p, data := range after {
		if slicesContains(skip, filepath.Base(p)) {
			continue
		}
		if old, ok := before[p]; !ok {
			changed = append(changed, "created "+p)
		} else if old != data {
			changed = append(changed, "changed "+p)
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			changed = append(changed, "removed "+p)
		}
	}
	sort.Strings(changed)
	return changed
}

func slicesContains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// --dry-run lists what would run and leaves the queue, the ledgers, the
// documents and the index byte-identical.
func TestRunDryRunChangesNothing(t *testing.T) {
	t.Parallel()
	e := dryRunEnv(t)
	if changed := dryRun(t, e, 2, "drain.log"); len(changed) > 0 {
		t.Errorf("dry run:\n%s", strings.Join(changed, "\n"))
	}
}

// Guards a fixed bug: a dry run appends its would-run entries to drain.log: run.go calls
// logEntry for every entry, dry or not.
func TestRunDryRunWritesNoLog(t *testing.T) {
	t.Parallel()
	e := dryRunEnv(t)
	if changed := dryRun(t, e, 2); len(changed) > 0 {
		t.Errorf("dry run:\n%s", strings.Join(changed, "\n"))
	}
}

// Guards a fixed bug: a dry run compacts the queue: Run skips q.Compact when dry, but
// q.Claim compacts in the same critical section, so a malformed line is
// moved to malformed.jsonl and duplicates are merged by a run that
// promised to change nothing.
func TestRunDryRunDoesNotCompactQueue(t *testing.T) {
	t.Parallel()
	e := dryRunEnv(t)
	qpath := filepath.Join(e.state, "pending_reflections.jsonl")
	f, err := os.OpenFile(qpath, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	recs := e.pending(t)
	dup, _ := json.Marshal(recs[0])
	fmt.Fprintf(f, "not json\n%s\n", bytes.Replace(dup, []byte(recs[0].ID), []byte("q-duplicate"), 1))
	f.Close()
	if changed := dryRun(t, e, 2, "drain.log"); len(changed) > 0 {
		t.Errorf("dry run:\n%s", strings.Join(changed, "\n"))
	}
}

// A dry run leaves the entry of a deleted transcript where it is.
func TestRunDryRunKeepsDeletedTranscriptEntry(t *testing.T) {
	t.Parallel()
	e := newDrainEnv(t)
	gone := e.enqueue(t, "../transcript/testdata/claude-session.jsonl", queue.HarnessClaude, "s-gone")
	if err := os.Remove(gone.TranscriptPath); err != nil {
		t.Fatal(err)
	}
	e.enqueue(t, "../transcript/testdata/codex-rollout.jsonl", queue.HarnessCodex, "s-live")
	e.run(t, Options{Writer: &fixedWriter{}, DryRun: true}) // creates drain.lock
	before := snapshot(t, e.state, e.kb)
	rep := e.run(t, Options{Writer: &fixedWriter{}, DryRun: true})
	if len(rep.Entries) != 2 || rep.Entries[1].Outcome != OutcomeWouldRun {
		t.Fatalf("entries: %+v", rep.Entries)
	}
	after := snapshot(t, e.state, e.kb)
	for p, data := range before {
		if filepath.Base(p) != "drain.log" && after[p] != data {
			t.Errorf("dry run changed %s", p)
		}
	}
	if recs := e.pending(t); len(recs) != 2 || recs[0].ID != gone.ID {
		t.Errorf("queue after a dry run: %+v", recs)
	}
}
