package drain

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reflectkb/reflect/drain/writer"
	"github.com/reflectkb/reflect/index"
	"github.com/reflectkb/reflect/knowledge"
	"github.com/reflectkb/reflect/store"
	"github.com/reflectkb/reflect/transcript"
)

// questionsWriter is an LLM writer for enrich tests: it answers every
// subject of a run with questions naming its title (and one id nobody
// asked about), and fails the runs listed in fail. It records the runs.
type questionsWriter struct {
	mu   sync.Mutex
	runs [][]string
	fail map[int]bool
	cost float64
}

func (*questionsWriter) Name() string { return "claude" }

func (w *questionsWriter) Write(ctx context.Context, c *transcript.Condensed) (*writer.Output, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	var ids []string
	out := &writer.Output{CostUSD: w.cost}
	for _, line := range strings.Split(c.Text, "\n") {
		if id, ok := strings.CutPrefix(line, `<learning id="`); ok {
			id = strings.TrimSuffix(id, `">`)
			ids = append(ids, id)
			out.Learnings = append(out.Learnings, writer.Draft{Update: id, Questions: []string{"what breaks in " + id + "?"}})
		}
	}
	out.Learnings = append(out.Learnings, writer.Draft{Update: "lrn-not-asked-000000", Questions: []string{"nobody asked"}})
	w.runs = append(w.runs, ids)
	if w.fail[len(w.runs)] {
		return out, errors.New("claude run failed: error_during_execution")
	}
	return out, nil
}

type enrichEnv struct {
	kb    *knowledge.Base
	state string
}

func newEnrichEnv(t *testing.T) *enrichEnv {
	t.Helper()
	root := t.TempDir()
	docs := filepath.Join(root, "kb", "documents")
	if err := os.MkdirAll(docs, 0o700); err != nil {
		t.Fatal(err)
	}
	ix, err := index.Open(context.Background(), docs, filepath.Join(root, "kb", "index"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	return &enrichEnv{kb: knowledge.New(ix), state: filepath.Join(root, "state")}
}

// add writes n learnings titled prefix 0…n-1, each updated a minute after
// the one before, and returns their ids, oldest first.
func (e *enrichEnv) add(t *testing.T, prefix string, n int, edit func(*store.Learning)) []string {
	t.Helper()
	var ids []string
	base := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < n; i++ {
		title := fmt.Sprintf("%s %d needs a fix", prefix, i)
		l := &store.Learning{ID: store.NewID(title, "insight "+title), Title: title, KeyInsight: "insight " + title,
			Confidence: "medium", Created: base, Updated: base.Add(time.Duration(len(prefix)*100+i) * time.Minute)}
		if edit != nil {
			edit(l)
		}
		if _, err := e.kb.Put(context.Background(), l, nil, l.Updated); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, l.ID)
	}
	return ids
}

func (e *enrichEnv) questions(t *testing.T, id string) []string {
	t.Helper()
	l, err := e.kb.Store().Read(id)
	if err != nil {
		t.Fatal(err)
	}
	return l.Questions
}

// The plan takes the active learnings without questions, the most
// recently updated first, in runs of writer.MaxSubjects; drafts, superseded
// learnings, learnings with questions and personal ones stay out unless
// named.
func TestPlanEnrich(t *testing.T) {
	t.Parallel()
	e := newEnrichEnv(t)
	plain := e.add(t, "plain", 10, nil)
	pending := e.add(t, "pending", 1, func(l *store.Learning) { l.Status = store.StatusPending })
	asked := e.add(t, "asked", 1, func(l *store.Learning) { l.Questions = []string{"already?"} })
	personal := e.add(t, "personal", 1, func(l *store.Learning) { l.Scope = "personal" })
	superseded := e.add(t, "superseded", 1, func(l *store.Learning) { l.SupersededBy = plain[0] })
	w := &questionsWriter{}
	p, err := PlanEnrich(e.kb, w, nil, 0, EnrichOptions{StateDir: e.state})
	if err != nil {
		t.Fatal(err)
	}
	if p.Learnings != 10 || p.Runs != 2 || p.Writer != "claude" || p.LocalOnly != 1 || p.PromptChars == 0 {
		t.Fatalf("plan %+v", p)
	}
	runs := p.EnrichIDs()
	if len(runs[0]) != writer.MaxSubjects || runs[0][0] != plain[9] || runs[1][1] != plain[0] {
		t.Errorf("runs %q: want the most recently updated first", runs)
	}
	p, err = PlanEnrich(e.kb, w, nil, 3, EnrichOptions{StateDir: e.state})
	if err != nil || p.Learnings != 3 || p.Left != 7 || p.Runs != 1 {
		t.Fatalf("--limit 3: %+v, %v", p, err)
	}
	named := []string{pending[0], asked[0], personal[0], superseded[0], "lrn-gone-000000"}
	p, err = PlanEnrich(e.kb, w, named, 0, EnrichOptions{StateDir: e.state})
	if err != nil || p.Learnings != 4 || len(p.Problems) != 1 || p.Problems[0].ID != "lrn-gone-000000" {
		t.Fatalf("named: %+v, %v", p, err)
	}
	if _, err := PlanEnrich(e.kb, &writer.Builtin{}, nil, 0, EnrichOptions{StateDir: e.state}); !errors.Is(err, ErrBuiltinEnrich) {
		t.Errorf("builtin writer: %v", err)
	}
}

// Enrich writes the questions each run got to exactly the learnings asked
// about, ignores ids nobody asked about, records every run in the cost
// ledger (so today's spend counts it) and last-drain.json.
func TestEnrichWritesAndRecords(t *testing.T) {
	t.Parallel()
	e := newEnrichEnv(t)
	ids := e.add(t, "plain", 10, nil)
	w := &questionsWriter{cost: 0.01}
	o := EnrichOptions{StateDir: e.state, DailyMax: 20, DailyUSD: 1}
	p, err := PlanEnrich(e.kb, w, nil, 0, o)
	if err != nil {
		t.Fatal(err)
	}
	var progress []string
	o.Progress = func(run, runs, n int) { progress = append(progress, fmt.Sprintf("%d/%d:%d", run, runs, n)) }
	res, err := Enrich(context.Background(), e.kb, w, p, o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Enriched != 10 || res.Failed != 0 || res.Runs != 2 || res.Left != 0 || res.USD != 0.02 {
		t.Fatalf("result %+v", res)
	}
	if strings.Join(progress, " ") != "1/2:8 2/2:2" {
		t.Errorf("progress %q", progress)
	}
	for _, id := range ids {
		if q := e.questions(t, id); len(q) != 1 || q[0] != "what breaks in "+id+"?" {
			t.Errorf("%s: questions %q", id, q)
		}
	}
	if _, err := e.kb.Store().Read("lrn-not-asked-000000"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("an id nobody asked about was written: %v", err)
	}
	spend, err := TodaySpend(e.state, time.Now())
	if err != nil || spend.Entries != 2 || spend.USD != 0.02 {
		t.Errorf("today %+v, %v", spend, err)
	}
	last, err := LastRun(e.state)
	if err != nil || last == nil || last.Kind != KindEnrich || last.Today.Entries != 2 || len(last.Entries) != 2 || last.Entries[0].Outcome != OutcomeEnriched {
		t.Errorf("last-drain.json: %+v, %v", last, err)
	}
	// Nothing is left to ask about.
	if p, err := PlanEnrich(e.kb, w, nil, 0, o); err != nil || p.Learnings != 0 || p.Runs != 0 {
		t.Errorf("second plan %+v, %v", p, err)
	}
}

// A daily cap reached between runs stops the enrich: the learnings of
// the runs not made are untouched, and the result says which cap.
func TestEnrichStopsAtADailyCap(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		o    EnrichOptions
		want string
	}{
		{"runs", EnrichOptions{DailyMax: 1}, "entries"},
		{"usd", EnrichOptions{DailyMax: 20, DailyUSD: 0.05}, "$0.05"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnrichEnv(t)
			e.add(t, "plain", 12, nil)
			w := &questionsWriter{cost: 0.06}
			o := tc.o
			o.StateDir = e.state
			p, err := PlanEnrich(e.kb, w, nil, 0, o)
			if err != nil {
				t.Fatal(err)
			}
			res, err := Enrich(context.Background(), e.kb, w, p, o)
			if err != nil {
				t.Fatal(err)
			}
			if res.Runs != 1 || res.Enriched != 8 || res.Left != 4 || !strings.Contains(res.Stopped, "daily budget reached") || !strings.Contains(res.Stopped, tc.want) {
				t.Fatalf("result %+v", res)
			}
			for _, id := range p.EnrichIDs()[1] {
				if q := e.questions(t, id); len(q) != 0 {
					t.Errorf("%s past the cap got questions %q", id, q)
				}
			}
			if len(w.runs) != 1 {
				t.Errorf("%d writer runs, want 1", len(w.runs))
			}
			// The next enrich, the same day, runs nothing.
			res, err = Enrich(context.Background(), e.kb, w, p, o)
			if err != nil || res.Runs != 0 || res.Left != 12 || len(w.runs) != 1 {
				t.Errorf("again: %+v, %v", res, err)
			}
		})
	}
}

// A failed run changes none of its learnings, is counted and reported,
// and the next run goes on.
func TestEnrichFailedRunLosesNothing(t *testing.T) {
	t.Parallel()
	e := newEnrichEnv(t)
	e.add(t, "plain", 10, nil)
	w := &questionsWriter{fail: map[int]bool{1: true}, cost: 0.01}
	o := EnrichOptions{StateDir: e.state, DailyMax: 20}
	p, err := PlanEnrich(e.kb, w, nil, 0, o)
	if err != nil {
		t.Fatal(err)
	}
	before := map[string][]byte{}
	for _, id := range p.EnrichIDs()[0] {
		before[id], _ = os.ReadFile(e.kb.Store().Path(id))
	}
	res, err := Enrich(context.Background(), e.kb, w, p, o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Enriched != 2 || res.Failed != 8 || res.Runs != 2 || len(res.Errors) != 1 || !strings.Contains(res.Errors[0].Reason, "error_during_execution") || res.USD != 0.02 {
		t.Fatalf("result %+v", res)
	}
	for id, data := range before {
		if now, _ := os.ReadFile(e.kb.Store().Path(id)); string(now) != string(data) {
			t.Errorf("%s changed by a failed run", id)
		}
	}
	for _, id := range p.EnrichIDs()[1] {
		if len(e.questions(t, id)) != 1 {
			t.Errorf("%s: the run after the failure wrote nothing", id)
		}
	}
}

// Enrich takes the drainer's lock: while a drain runs it spends nothing.
func TestEnrichWaitsForADrain(t *testing.T) {
	t.Parallel()
	e := newEnrichEnv(t)
	e.add(t, "plain", 1, nil)
	w := &questionsWriter{}
	o := EnrichOptions{StateDir: e.state, DailyMax: 20}
	p, err := PlanEnrich(e.kb, w, nil, 0, o)
	if err != nil {
		t.Fatal(err)
	}
	release, busy, err := takeLock(e.state, false)
	if err != nil || busy != "" {
		t.Fatal(busy, err)
	}
	defer release()
	if _, err := Enrich(context.Background(), e.kb, w, p, o); err == nil || !strings.Contains(err.Error(), "another drain is running") || len(w.runs) != 0 {
		t.Errorf("enrich during a drain: %v, %d runs", err, len(w.runs))
	}
}
