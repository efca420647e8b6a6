package backfill

import "math"

// charsPerToken turns condensed characters into input tokens for the
// estimate: English prose and code run about four characters a token,
// the ratio the condenser's own limits are set by.
const charsPerToken = 4

// Caps are the drainer's budgets (drain.daily_usd, drain.daily_max,
// drain.max_per_run), which bound how fast and at what daily cost the
// queued sessions are reflected.
type Caps struct {
	DailyUSD  float64 `json:"daily_usd"` // 0: no spend cap
	DailyMax  int     `json:"daily_max"`
	MaxPerRun int     `json:"max_per_run"`
}

// Estimate is what reflecting a plan's new sessions would take.
type Estimate struct {
	// Writer is the writer the drainer would use; LLM says whether it
	// runs a model, and so spends.
	Writer     string `json:"writer"`
	LLM        bool   `json:"llm"`
	WriterRuns int    `json:"writer_runs"`
	// InputTokens approximates what the runs send (condensed characters
	// divided by charsPerToken), before the writer's own prompt.
	InputTokens int64 `json:"input_tokens"`
	// PerRunUSD is the average cost of the writer's past runs that
	// reported one (PastRuns of them); USD is WriterRuns times that, nil
	// when an LLM writer has no such run to go by.
	PerRunUSD float64  `json:"per_run_usd"`
	PastRuns  int      `json:"past_runs"`
	USD       *float64 `json:"usd"`
	// Days is the fewest days of drains the caps spread the runs over.
	Days int  `json:"days"`
	Caps Caps `json:"caps"`
}

// EstimateCost estimates p's writer runs for the writer named, from the
// costs of its past runs (drain-cost.jsonl; runs that reported no cost
// are left out by the caller) and the caps. The builtin writer costs
// nothing.
func EstimateCost(p *Plan, writer string, llm bool, pastCosts []float64, caps Caps) Estimate {
	e := Estimate{Writer: writer, LLM: llm, WriterRuns: p.Total.WriterRuns,
		InputTokens: p.Total.CondensedChars / charsPerToken, Caps: caps}
	if !llm {
		zero := 0.0
		e.USD = &zero
	} else if len(pastCosts) > 0 {
		sum := 0.0
		for _, c := range pastCosts {
			sum += c
		}
		e.PastRuns, e.PerRunUSD = len(pastCosts), sum/float64(len(pastCosts))
		usd := e.PerRunUSD * float64(e.WriterRuns)
		e.USD = &usd
	}
	if caps.DailyMax > 0 && e.WriterRuns > 0 {
		e.Days = ceilDiv(e.WriterRuns, caps.DailyMax)
	}
	if e.USD != nil && caps.DailyUSD > 0 && *e.USD > 0 {
		if d := int(math.Ceil(*e.USD / caps.DailyUSD)); d > e.Days {
			e.Days = d
		}
	}
	return e
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }
