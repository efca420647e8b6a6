package backfill

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reflectkb/reflect/queue"
)

func TestEnqueueQueuesAsTheHooksDo(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	p, res := w.run(t, Options{})
	if res.Queued != 5 || res.Already != 0 || len(res.Problems) != 0 {
		t.Fatalf("result %+v", res)
	}
	recs, bad, err := w.queue(t).List()
	if err != nil || len(bad) != 0 || len(recs) != 5 {
		t.Fatalf("queue: %d records, %v, %v", len(recs), bad, err)
	}
	plan := byPath(p)
	for _, r := range recs {
		s := plan[r.TranscriptPath]
		if r.Trigger != queue.TriggerBackfill || string(r.Harness) != s.Agent || r.SessionID != s.SessionID || r.Cwd != s.Cwd || r.ID == "" {
			t.Errorf("record %+v for session %+v", r, s)
		}
	}
}

func TestEnqueueTwiceQueuesNothing(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.run(t, Options{})
	p, res := w.run(t, Options{})
	if res.Queued != 0 || p.Total.New != 0 || p.Total.Already != 5 {
		t.Fatalf("second run: queued %d, plan %+v", res.Queued, p.Total)
	}
	for _, s := range p.Sessions {
		if s.Status != StatusBackfilled {
			t.Errorf("second run: %+v", s)
		}
	}
	if recs, _, _ := w.queue(t).List(); len(recs) != 5 {
		t.Errorf("queue holds %d records after two runs, want 5", len(recs))
	}
	// Without backfill.json (deleted, or damaged) the queue still knows.
	if err := os.Remove(filepath.Join(w.dirs.StateDir, StateFile)); err != nil {
		t.Fatal(err)
	}
	p, res = w.run(t, Options{})
	if res.Queued != 0 || p.Total.Already != 5 {
		t.Errorf("without backfill.json: queued %d, plan %+v", res.Queued, p.Total)
	}
}

func TestEnqueueRacedByAHook(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	st, err := LoadState(w.dirs.StateDir)
	if err != nil {
		t.Fatal(err)
	}
	p := w.planWith(t, Options{}, st)
	// Between the plan and the run, Copilot's Stop hook queues its session.
	if ok, _, err := w.queue(t).Enqueue(queue.Record{TranscriptPath: w.paths["copilot"], SessionID: "11111111-2222-4333-8444-555555555555",
		Trigger: queue.TriggerStop, Harness: queue.HarnessCopilot}); !ok || err != nil {
		t.Fatal(ok, err)
	}
	res, err := Enqueue(w.queue(t), p, st, clock, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Queued != 4 || res.Already != 1 {
		t.Errorf("result %+v, want 4 queued and 1 already", res)
	}
	if recs, _, _ := w.queue(t).List(); len(recs) != 5 {
		t.Errorf("queue holds %d records, want 5", len(recs))
	}
}

func TestEnqueueNamesASessionGoneMeanwhile(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	st, _ := LoadState(w.dirs.StateDir)
	p := w.planWith(t, Options{}, st)
	if err := os.Remove(w.paths["gemini"]); err != nil {
		t.Fatal(err)
	}
	res, err := Enqueue(w.queue(t), p, st, clock, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Queued != 4 || len(res.Problems) != 1 || res.Problems[0].Path != w.paths["gemini"] || res.Problems[0].Reason != queue.ReasonTranscriptMissing {
		t.Errorf("result %+v", res)
	}
	// Not recorded: were it to come back, the next run would queue it.
	if _, ok := st.Sessions[w.paths["gemini"]]; ok {
		t.Errorf("a session that was not queued was recorded")
	}
}

func TestStateIsWrittenAtomicallyAndSurvivesDamage(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.run(t, Options{})
	path := filepath.Join(w.dirs.StateDir, StateFile)
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("backfill.json mode %v, want 0600", fi.Mode().Perm())
	}
	if leftovers, _ := filepath.Glob(filepath.Join(w.dirs.StateDir, ".backfill.json.tmp-*")); len(leftovers) != 0 {
		t.Errorf("temporary files left: %v", leftovers)
	}
	st, err := LoadState(w.dirs.StateDir)
	if err != nil || len(st.Sessions) != 5 {
		t.Fatalf("state: %d sessions, %v", len(st.Sessions), err)
	}
	if err := os.WriteFile(path, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	st, err = LoadState(w.dirs.StateDir)
	if err == nil || !strings.Contains(err.Error(), path) || st == nil || len(st.Sessions) != 0 {
		t.Errorf("damaged state: %v, %+v", err, st)
	}
}
