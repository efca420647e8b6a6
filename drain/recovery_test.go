package drain

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reflectkb/reflect/drain/writer"
	"github.com/reflectkb/reflect/index"
	"github.com/reflectkb/reflect/queue"
)

// Crash recovery and duplicate handling (the in-process half; the kill -9
// half is in proc_test.go).

// A drainer that dies after writing the learnings but before the ack
// leaves the entry pending with its ledger line unwritten. The next drain
// reflects it again and must update the same documents, not add copies.
func TestRunCrashBeforeAckUpdatesInPlace(t *testing.T) {
	t.Parallel()
	e := newDrainEnv(t)
	rec := e.enqueue(t, "../transcript/testdata/claude-session.jsonl", queue.HarnessClaude, "s-crash")
	before := snapshot(t, e.state)
	clock := noonToday()
	rep := e.run(t, Options{Writer: writer.Builtin{}, Now: func() time.Time { return clock }})
	if len(rep.Entries) != 1 || rep.Entries[0].Outcome != OutcomeWritten {
		t.Fatalf("entries: %+v", rep.Entries)
	}
	ids := rep.Entries[0].Learnings
	docs := e.documents(t)
	if len(docs) != len(ids) || len(ids) < 2 {
		t.Fatalf("documents %q for learnings %q", docs, ids)
	}
	created := map[string]time.Time{}
	for _, id := range ids {
		created[id] = e.read(t, id).Created
	}

	// Undo the ack: the queue and the ledger as they were before it.
	for _, name := range []string{"pending_reflections.jsonl", "processed.jsonl"} {
		p := filepath.Join(e.state, name)
		if data, ok := before[p]; ok {
			if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
				t.Fatal(err)
			}
		} else if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
	}
	if recs := e.pending(t); len(recs) != 1 || recs[0].ID != rec.ID {
		t.Fatalf("queue after the simulated crash: %+v", recs)
	}

	clock = clock.Add(time.Hour)
	rep = e.run(t, Options{Writer: writer.Builtin{}, Now: func() time.Time { return clock }})
	if len(rep.Entries) != 1 || rep.Entries[0].Outcome != OutcomeWritten {
		t.Fatalf("second drain: %+v", rep.Entries)
	}
	if !equalSets(rep.Entries[0].Learnings, ids) {
		t.Errorf("second drain wrote %q, want the same ids %q", rep.Entries[0].Learnings, ids)
	}
	if got := e.documents(t); !equalSets(got, docs) {
		t.Errorf("documents after the second drain %q, want %q (no duplicates)", got, docs)
	}
	for _, id := range ids {
		l := e.read(t, id)
		if !l.Created.Equal(created[id]) || !l.Updated.Equal(clock) {
			t.Errorf("%s: created %s (was %s), updated %s (want %s)", id, l.Created, created[id], l.Updated, clock)
		}
	}
	for _, id := range ids {
		if n := countResults(e.search(t, e.read(t, id).Title), id); n != 1 {
			t.Errorf("%s found %d times in the index", id, n)
		}
	}
	if recs := e.pending(t); len(recs) != 0 {
		t.Errorf("queue: %+v", recs)
	}
	if led := e.processed(t); len(led) != 1 {
		t.Errorf("processed.jsonl: %+v", led)
	}
}

func countResults(res []index.Result, id string) int {
	n := 0
	for _, r := range res {
		if r.ID == id {
			n++
		}
	}
	return n
}

// A duplicate record for content already reflected (a hook's race, or a
// crash after the ledger line but before the queue rewrite) is acked as
// skipped without running the writer.
func TestRunSkipsContentAlreadyReflected(t *testing.T) {
	t.Parallel()
	e := newDrainEnv(t)
	rec := e.enqueue(t, "../transcript/testdata/claude-session.jsonl", queue.HarnessClaude, "s-dup")
	line, err := json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	e.run(t, Options{Writer: writer.Builtin{}})
	docs := e.documents(t)
	// Put the acked record back, as a crash between the ledger append and
	// the queue rewrite would leave it.
	if err := os.WriteFile(filepath.Join(e.state, "pending_reflections.jsonl"), append(line, '\n'), 0o600); err != nil {
		t.Fatal(err)
	}
	w := &fixedWriter{drafts: fixedDrafts}
	rep := e.run(t, Options{Writer: w})
	if len(rep.Entries) != 1 || rep.Entries[0].Outcome != OutcomeSkipped || w.calls != 0 {
		t.Fatalf("entries %+v, writer calls %d", rep.Entries, w.calls)
	}
	if got := e.documents(t); !equalSets(got, docs) {
		t.Errorf("documents %q, want %q", got, docs)
	}
	if len(e.pending(t)) != 0 {
		t.Errorf("queue: %+v", e.pending(t))
	}
	// Skipped entries do not count against the daily budget.
	if costs := e.costLines(t); len(costs) != 1 || rep.Today.Entries != 1 {
		t.Errorf("drain-cost.jsonl: %+v, today %+v", costs, rep.Today)
	}
}

// A reworded learning (near-duplicate) updates the existing document.
func TestRunNearDuplicateUpdatesExisting(t *testing.T) {
	t.Parallel()
	e := newDrainEnv(t)
	e.enqueue(t, "../transcript/testdata/claude-session.jsonl", queue.HarnessClaude, "s-a")
	first := e.run(t, Options{Writer: &fixedWriter{drafts: fixedDrafts[:1]}})
	if len(first.Entries) != 1 || len(first.Entries[0].Learnings) != 1 {
		t.Fatalf("first: %+v", first.Entries)
	}
	e.enqueue(t, "../transcript/testdata/codex-rollout.jsonl", queue.HarnessCodex, "s-b")
	reworded := fixedDrafts[0]
	reworded.Title = "Postgres pool exhaustion needs pgbouncer in front"
	second := e.run(t, Options{Writer: &fixedWriter{drafts: []writer.Draft{reworded}}})
	if len(second.Entries) != 1 || !equalSets(second.Entries[0].Learnings, first.Entries[0].Learnings) {
		t.Fatalf("reworded learning got %+v, want the id %q", second.Entries, first.Entries[0].Learnings)
	}
	if docs := e.documents(t); len(docs) != 1 {
		t.Errorf("documents: %q", docs)
	}
	if l := e.read(t, first.Entries[0].Learnings[0]); l.Title != reworded.Title {
		t.Errorf("title %q, want the update", l.Title)
	}
}

// A writer that repeats itself lists each learning once, saying whether
// the entry added or updated it: drain listed one id up to 7 times for an
// entry ("→ 10 learning(s)") whose knowledge base got 3 documents.
func TestRunListsEachLearningOnce(t *testing.T) {
	t.Parallel()
	e := newDrainEnv(t)
	e.enqueue(t, "../transcript/testdata/claude-session.jsonl", queue.HarnessClaude, "s-before")
	before := e.run(t, Options{Writer: &fixedWriter{drafts: fixedDrafts[:1]}})
	if len(before.Entries) != 1 || len(before.Entries[0].Learnings) != 1 {
		t.Fatalf("first drain: %+v", before.Entries)
	}
	existing := before.Entries[0].Learnings[0]
	if w := before.Entries[0].Written; len(w) != 1 || w[0].ID != existing || w[0].Action != "added" {
		t.Fatalf("first drain wrote %+v, want %s added", w, existing)
	}

	vite := fixedDrafts[1]
	viteReworded := vite
	viteReworded.Title = "Vite dev server must bind 0.0.0.0 inside Docker containers"
	pgReworded := fixedDrafts[0]
	pgReworded.Title = "Postgres pool exhaustion needs pgbouncer in front"
	flyway := writer.Draft{Title: "Flyway migrations run out of order on a fresh clone",
		KeyInsight: "Set outOfOrder=false and number migrations by timestamp.", Confidence: "medium"}
	drafts := []writer.Draft{vite, vite, pgReworded, viteReworded, flyway, fixedDrafts[0], vite}
	e.enqueue(t, "../transcript/testdata/codex-rollout.jsonl", queue.HarnessCodex, "s-repeats")
	rep := e.run(t, Options{Writer: &fixedWriter{drafts: drafts}})
	if len(rep.Entries) != 1 || rep.Entries[0].Outcome != OutcomeWritten {
		t.Fatalf("entries: %+v", rep.Entries)
	}
	en := rep.Entries[0]
	docs := e.documents(t)
	if len(docs) != 3 {
		t.Fatalf("documents %q, want pgbouncer, vite and flyway", docs)
	}
	if !equalSets(en.Learnings, docs) || len(en.Learnings) != len(docs) {
		t.Fatalf("learnings %q, want each of %q once", en.Learnings, docs)
	}
	actions := map[string]string{}
	for i, w := range en.Written {
		if w.ID != en.Learnings[i] {
			t.Errorf("written[%d] = %s, learnings[%d] = %s: want the same order", i, w.ID, i, en.Learnings[i])
		}
		actions[w.ID] = w.Action
	}
	if len(en.Written) != len(en.Learnings) {
		t.Fatalf("written %+v does not match learnings %q", en.Written, en.Learnings)
	}
	if actions[existing] != "updated" {
		t.Errorf("%s existed before the entry: action %q, want updated (%+v)", existing, actions[existing], en.Written)
	}
	for id, a := range actions {
		if id != existing && a != "added" {
			t.Errorf("%s is new in this entry (written again later in it): action %q, want added", id, a)
		}
	}
	if costs := e.costLines(t); len(costs) != 2 || costs[1].Learnings != 3 {
		t.Errorf("drain-cost.jsonl: %+v, want 3 learnings for the second entry", costs)
	}
	if log := e.lines(t, "drain.log"); len(log) != 2 || !strings.Contains(log[1], " learnings=3 ") {
		t.Errorf("drain.log: %q, want learnings=3 for the second entry", log)
	}
}
