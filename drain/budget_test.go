package drain

import (
	"fmt"
	"testing"
	"time"

	"github.com/reflectkb/reflect/queue"
)

// The drain budgets: per run, entries per day, dollars per day.

func TestRunMaxPerRun(t *testing.T) {
	t.Parallel()
	e := newDrainEnv(t)
	e.setenv("REFLECT_DRAIN_MAX_PER_RUN", "2")
	var ids []string
	for i := 0; i < 5; i++ {
		ids = append(ids, e.enqueue(t, "../transcript/testdata/claude-session.jsonl", queue.HarnessClaude, fmt.Sprintf("s-%d", i)).ID)
	}
	w := &fixedWriter{drafts: fixedDrafts}
	rep := e.run(t, Options{Writer: w})
	if len(rep.Entries) != 2 || w.calls != 2 || rep.Waiting != 3 || rep.Entries[0].ID != ids[0] || rep.Entries[1].ID != ids[1] {
		t.Fatalf("max_per_run 2: entries %+v, calls %d, waiting %d", rep.Entries, w.calls, rep.Waiting)
	}
	// --max overrides it.
	rep = e.run(t, Options{Writer: w, Max: 1})
	if len(rep.Entries) != 1 || rep.Entries[0].ID != ids[2] || rep.Waiting != 2 {
		t.Fatalf("--max 1: entries %+v, waiting %d", rep.Entries, rep.Waiting)
	}
	rep = e.run(t, Options{Writer: w, Max: 10})
	if len(rep.Entries) != 2 || rep.Waiting != 0 || w.calls != 5 || rep.Today.Entries != 5 {
		t.Fatalf("--max 10: entries %+v, waiting %d, calls %d, today %+v", rep.Entries, rep.Waiting, w.calls, rep.Today)
	}
	if n := len(e.costLines(t)); n != 5 {
		t.Errorf("drain-cost.jsonl has %d lines", n)
	}
}

func TestRunDailyMax(t *testing.T) {
	t.Parallel()
	e := newDrainEnv(t)
	e.setenv("REFLECT_DRAIN_DAILY_MAX", "3")
	for i := 0; i < 5; i++ {
		e.enqueue(t, "../transcript/testdata/claude-session.jsonl", queue.HarnessClaude, fmt.Sprintf("s-%d", i))
	}
	w := &fixedWriter{drafts: fixedDrafts}
	clock := noonToday()
	now := func() time.Time { return clock }
	if rep := e.run(t, Options{Writer: w, Max: 2, Now: now}); len(rep.Entries) != 2 {
		t.Fatalf("first: %+v", rep.Entries)
	}
	if rep := e.run(t, Options{Writer: w, Max: 2, Now: now}); len(rep.Entries) != 1 || rep.Today.Entries != 3 || rep.Waiting != 2 {
		t.Fatalf("second: entries %+v, today %+v, waiting %d", rep.Entries, rep.Today, rep.Waiting)
	}
	rep := e.run(t, Options{Writer: w, Max: 2, Now: now})
	if rep.Ran || rep.Reason != "daily budget reached: 3 of 3 entries reflected today" || rep.Waiting != 2 || len(rep.Entries) != 0 {
		t.Fatalf("third: %+v", rep)
	}
	if w.calls != 3 {
		t.Errorf("writer calls %d", w.calls)
	}
	// A new UTC day has a new budget.
	clock = clock.Add(24 * time.Hour)
	if rep := e.run(t, Options{Writer: w, Max: 2, Now: now}); !rep.Ran || len(rep.Entries) != 2 || rep.Today.Entries != 2 {
		t.Fatalf("next day: %+v", rep)
	}
}

func TestRunDailyUSD(t *testing.T) {
	t.Parallel()
	e := newDrainEnv(t)
	setWriterFixtures(t, e)
	out := fakeWriterPath(t, e, "claude", fakeCall+`sed 's/"total_cost_usd":0.0412/"total_cost_usd":0.5/' "$FIXTURE_OK"`+"\n")
	e.setenv("REFLECT_WRITER", "claude")
	e.setenv("REFLECT_DRAIN_DAILY_USD", "1.0")
	e.setenv("REFLECT_DRAIN_MAX_PER_RUN", "10")
	for i := 0; i < 4; i++ {
		e.enqueue(t, "../transcript/testdata/claude-session.jsonl", queue.HarnessClaude, fmt.Sprintf("s-%d", i))
	}
	rep := e.run(t, Options{})
	if len(rep.Entries) != 2 || rep.Today.USD != 1.0 || rep.Today.Entries != 2 || rep.Waiting != 2 || callCount(t, out) != 2 {
		t.Fatalf("entries %+v, today %+v, waiting %d, calls %d; want 2 entries at $0.50", rep.Entries, rep.Today, rep.Waiting, callCount(t, out))
	}
	for _, en := range rep.Entries {
		if en.Outcome != OutcomeWritten || en.CostUSD != 0.5 {
			t.Errorf("entry %+v", en)
		}
	}
	var usd float64
	for _, c := range e.costLines(t) {
		usd += c.CostUSD
	}
	if usd != 1.0 {
		t.Errorf("drain-cost.jsonl sums to $%v", usd)
	}
	rep = e.run(t, Options{})
	if rep.Ran || rep.Reason != "daily budget reached: $1.00 of $1.00 spent today" || callCount(t, out) != 2 || rep.Waiting != 2 {
		t.Errorf("after the budget: %+v, calls %d", rep, callCount(t, out))
	}
}

// budgetFor is the plan a run claims by: the per-run budget (or --max),
// capped by what today has left, and the reason when a daily budget is
// spent.
func TestBudgetFor(t *testing.T) {
	t.Parallel()
	o := Options{MaxPerRun: 3, DailyMax: 20, DailyUSD: 1}
	for _, tt := range []struct {
		max    int
		today  Spend
		n      int
		reason string
	}{
		{0, Spend{}, 3, ""},
		{10, Spend{}, 10, ""},
		{10, Spend{Entries: 18}, 2, ""},
		{0, Spend{Entries: 20}, 0, "daily budget reached: 20 of 20 entries reflected today"},
		{0, Spend{Entries: 1, USD: 1}, 3, "daily budget reached: $1.00 of $1.00 spent today"},
	} {
		o.Max = tt.max
		n, reason := budgetFor(o, tt.today)
		if n != tt.n || reason != tt.reason {
			t.Errorf("max %d, today %+v: %d %q, want %d %q", tt.max, tt.today, n, reason, tt.n, tt.reason)
		}
	}
}
