package backfill

import "testing"

func TestEstimateCost(t *testing.T) {
	t.Parallel()
	p := &Plan{Total: AgentPlan{WriterRuns: 45, CondensedChars: 400000}}
	caps := Caps{DailyUSD: 1, DailyMax: 20, MaxPerRun: 3}

	e := EstimateCost(p, "builtin", false, []float64{0.5}, caps)
	if e.USD == nil || *e.USD != 0 || e.Days != 3 || e.InputTokens != 100000 || e.Caps != caps {
		t.Errorf("builtin: %+v (want $0, 3 days of 20 runs, 100,000 tokens)", e)
	}
	e = EstimateCost(p, "claude", true, []float64{0.02, 0.04}, caps)
	if e.USD == nil || e.PastRuns != 2 || e.PerRunUSD != 0.03 || *e.USD < 1.349 || *e.USD > 1.351 || e.Days != 3 {
		t.Errorf("claude from two past runs: %+v", e)
	}
	// Dearer runs: the daily spend cap, not the run count, sets the days.
	e = EstimateCost(p, "claude", true, []float64{0.10}, caps)
	if e.Days != 5 {
		t.Errorf("45 runs at 10¢ under $1 a day: %d days, want 5", e.Days)
	}
	e = EstimateCost(p, "codex", true, nil, caps)
	if e.USD != nil || e.PastRuns != 0 || e.Days != 3 {
		t.Errorf("no past run: %+v, want no USD estimate", e)
	}
	e = EstimateCost(&Plan{}, "claude", true, []float64{0.1}, caps)
	if e.Days != 0 || *e.USD != 0 {
		t.Errorf("nothing to run: %+v", e)
	}
}
