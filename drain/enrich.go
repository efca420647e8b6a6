package drain

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"github.com/reflectkb/reflect/drain/writer"
	"github.com/reflectkb/reflect/knowledge"
	"github.com/reflectkb/reflect/transcript"
)

// `reflect enrich` asks the chosen LLM writer for the questions of
// learnings that have none (store.Learning.Questions): the builtin
// writer's, imported rules, added ones, older LLM ones. It is the
// drainer's spend, under the drainer's lock, ledger and daily caps, so
// every surface that shows what the drainer spent shows it too.

// EnrichOptions are the inputs of an enrich run; like Options, filled by
// the command layer from the configuration.
type EnrichOptions struct {
	// StateDir holds drain.lock, the cost ledger and the logs.
	StateDir string
	// DailyMax and DailyUSD are the drainer's daily caps
	// (drain.daily_max, drain.daily_usd; 0 USD sets no limit): an
	// enrich run counts against them and stops at them.
	DailyMax int
	DailyUSD float64
	// Timeout bounds each writer run (drain.timeout).
	Timeout time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Progress, when set, hears about each writer run as it starts.
	Progress func(run, runs, learnings int)
	// ReadProgress, when set, hears how many learnings the plan has read
	// of how many: it reads each one.
	ReadProgress func(done, total int)
}

// ErrBuiltinEnrich is the answer to an enrich with the builtin writer,
// which runs no model and so writes no questions.
var ErrBuiltinEnrich = errors.New("the builtin writer writes no questions (it runs no LLM), and nothing was spent; to let an LLM write them: " + writer.OptIn)

// EnrichPlan is what an enrich would do: which learnings, in how many
// writer runs, with which writer.
type EnrichPlan struct {
	Learnings int    `json:"learnings"`
	Runs      int    `json:"runs"`
	Writer    string `json:"writer"`
	// PromptChars is what the runs' prompts add up to, for the estimate.
	PromptChars int64 `json:"prompt_chars"`
	// Left is how many learnings without questions --limit leaves out.
	Left int `json:"left,omitempty"`
	// LocalOnly is how many personal or private learnings without
	// questions were left out: they never leave this machine unless named.
	LocalOnly int `json:"local_only,omitempty"`
	// Problems are the documents that could not be read.
	Problems []EnrichProblem `json:"problems,omitempty"`
	// Today is what the drainer spent today before this enrich.
	Today Spend `json:"today"`

	batches [][]writer.Subject
}

// EnrichProblem is a learning an enrich could not read or write.
type EnrichProblem struct {
	ID     string `json:"id"`
	Reason string `json:"reason"`
}

// EnrichResult is what an enrich did.
type EnrichResult struct {
	// Enriched is how many learnings got questions; Learnings their ids.
	Enriched  int      `json:"enriched"`
	Learnings []string `json:"learnings"`
	// Failed is how many learnings of the runs that ran got none (a
	// failed run, an answer without them); they are unchanged.
	Failed int `json:"failed"`
	// USD is what the runs cost, as the writer reported it.
	USD  float64 `json:"usd"`
	Runs int     `json:"runs"`
	// Left is how many learnings no run asked about, because a daily cap
	// was reached (Stopped says which) or the enrich was interrupted.
	Left    int    `json:"left"`
	Stopped string `json:"stopped,omitempty"`
	// Errors say why runs failed or learnings were not written.
	Errors []EnrichProblem `json:"errors,omitempty"`
	// Today is the drainer's spend today after this enrich.
	Today Spend `json:"today"`
}

// enrichCandidate is a learning to ask about, with what orders the plan.
type enrichCandidate struct {
	subject writer.Subject
	updated time.Time
}

// PlanEnrich plans the questions of ids (all of them, whatever they hold),
// or with none, of every active learning (not pending, not superseded)
// that has no questions, personal and private ones left out, the most
// recently updated first, at most limit (0: all), in runs of
// writer.MaxSubjects learnings. w is the writer that would run: the
// builtin one is ErrBuiltinEnrich. The prompts are bounded by the
// subjects' own bounds (writer.SubjectOf).
func PlanEnrich(kb *knowledge.Base, w writer.Writer, ids []string, limit int, o EnrichOptions) (*EnrichPlan, error) {
	if !writer.LLM(w.Name()) {
		return nil, ErrBuiltinEnrich
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	p := &EnrichPlan{Writer: w.Name()}
	today, err := costLedger{path: filepath.Join(o.StateDir, "drain-cost.jsonl")}.today(o.Now())
	if err != nil {
		return nil, err
	}
	p.Today = today
	named := len(ids) > 0
	if !named {
		if ids, err = kb.Store().IDs(); err != nil {
			return nil, err
		}
	}
	var cands []enrichCandidate
	for i, id := range ids {
		if o.ReadProgress != nil && (i%256 == 0 || i == len(ids)-1) {
			o.ReadProgress(i+1, len(ids))
		}
		l, err := kb.Store().Read(id)
		if err != nil {
			p.Problems = append(p.Problems, EnrichProblem{ID: id, Reason: err.Error()})
			continue
		}
		if !named {
			if l.Pending() || l.SupersededBy != "" || len(l.Questions) > 0 {
				continue
			}
			if l.LocalOnly() {
				p.LocalOnly++
				continue
			}
		}
		cands = append(cands, enrichCandidate{
			subject: writer.SubjectOf(l.ID, l.Title, l.KeyInsight, l.Symptoms, l.PlainBody()),
			updated: l.Updated,
		})
	}
	if !named {
		slices.SortStableFunc(cands, func(a, b enrichCandidate) int { return b.updated.Compare(a.updated) })
	}
	if limit > 0 && len(cands) > limit {
		p.Left = len(cands) - limit
		cands = cands[:limit]
	}
	for i := 0; i < len(cands); i += writer.MaxSubjects {
		var batch []writer.Subject
		for _, c := range cands[i:min(i+writer.MaxSubjects, len(cands))] {
			batch = append(batch, c.subject)
		}
		p.batches = append(p.batches, batch)
		p.PromptChars += int64(len(writer.QuestionsPrompt(batch)))
	}
	p.Learnings, p.Runs = len(cands), len(p.batches)
	return p, nil
}

// Enrich runs the plan's writer runs with w, one batch at a time, under
// the drainer's lock: each run is recorded in the cost ledger and
// drain.log like a drain's, and last-drain.json says what the enrich did,
// so status, doctor and the status line count it. Before each run the
// daily caps are checked: once one is reached the enrich stops, and the
// learnings not asked about are left as they were (Left, Stopped). A
// failed run changes none of its learnings and the next runs go on.
func Enrich(ctx context.Context, kb *knowledge.Base, w writer.Writer, plan *EnrichPlan, o EnrichOptions) (*EnrichResult, error) {
	if !writer.LLM(w.Name()) {
		return nil, ErrBuiltinEnrich
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	release, busy, err := takeLock(o.StateDir, false)
	if err != nil {
		return nil, err
	}
	if busy != "" {
		return nil, fmt.Errorf("%s; enrich again once it has finished", busy)
	}
	defer release()
	ledger := costLedger{path: filepath.Join(o.StateDir, "drain-cost.jsonl")}
	today, err := ledger.today(o.Now())
	if err != nil {
		return nil, err
	}
	rep := &Report{Ran: true, Kind: KindEnrich, Writer: w.Name(), Started: o.Now().UTC(), Entries: []Entry{}}
	res := &EnrichResult{Learnings: []string{}}
	for i, batch := range plan.batches {
		if err := ctx.Err(); err != nil {
			res.Stopped = "interrupted"
			res.Left += countLeft(plan.batches[i:])
			break
		}
		if _, reason := budgetFor(Options{MaxPerRun: 1, DailyMax: o.DailyMax, DailyUSD: o.DailyUSD}, today); reason != "" {
			res.Stopped = reason
			res.Left += countLeft(plan.batches[i:])
			break
		}
		if o.Progress != nil {
			o.Progress(i+1, len(plan.batches), len(batch))
		}
		e := enrichRun(ctx, kb, w, batch, o, fmt.Sprintf("enrich-%d", i+1))
		res.Runs++
		res.USD += e.CostUSD
		res.Learnings = append(res.Learnings, e.Learnings...)
		res.Enriched = len(res.Learnings)
		res.Failed += len(batch) - len(e.Learnings)
		if e.Error != "" {
			res.Errors = append(res.Errors, EnrichProblem{ID: e.ID, Reason: e.Error})
		}
		today.Entries++
		today.USD += e.CostUSD
		rep.Entries = append(rep.Entries, e)
		if err := ledger.add(costLine{TS: o.Now().UTC(), Entry: e.ID, Kind: KindEnrich, Writer: w.Name(), Outcome: e.Outcome,
			Learnings: len(e.Learnings), CostUSD: e.CostUSD, DurationMS: e.DurationMS}); err != nil {
			return res, err
		}
		logEntry(o.StateDir, o.Now(), w.Name(), e)
	}
	res.Today, rep.Today = today, today
	rep.Finished = o.Now().UTC()
	if res.Runs > 0 {
		// The status line reads the day's runs and spend from here.
		if err := saveLast(o.StateDir, rep); err != nil {
			return res, err
		}
	}
	return res, nil
}

// KindEnrich marks the Report of an enrich (last-drain.json), whose
// entries are writer runs asking for questions, not queue entries.
const KindEnrich = "enrich"

// Outcomes of an enrich run.
const (
	OutcomeEnriched = "enriched"
	OutcomeFailed   = "failed"
)

// enrichRun asks w for the questions of batch and writes those it got. Its
// Entry lists the learnings written; its Error says why the others were not.
func enrichRun(ctx context.Context, kb *knowledge.Base, w writer.Writer, batch []writer.Subject, o EnrichOptions, id string) Entry {
	e := Entry{ID: id, Outcome: OutcomeFailed}
	start := time.Now()
	runCtx := writer.WithSubjects(ctx, batch)
	if o.Timeout > 0 {
		var cancel context.CancelFunc
		runCtx, cancel = context.WithTimeout(writer.WithTimeout(runCtx, o.Timeout), o.Timeout)
		defer cancel()
	}
	text := writer.SubjectsText(batch)
	e.SentChars = len(text)
	out, err := w.Write(runCtx, &transcript.Condensed{Text: text})
	e.DurationMS = time.Since(start).Milliseconds()
	if out != nil {
		// A failed run is billed too.
		e.CostUSD = out.CostUSD
	}
	if err != nil {
		e.Error = err.Error()
		return e
	}
	asked := map[string]bool{}
	for _, s := range batch {
		asked[s.ID] = true
	}
	var problems []string
	for _, d := range out.Learnings {
		if !asked[d.Update] || len(d.Questions) == 0 {
			continue // parseQuestions keeps only these; a test writer may not
		}
		asked[d.Update] = false
		if _, err := kb.SetQuestions(ctx, d.Update, d.Questions); err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", d.Update, err))
			continue
		}
		e.Learnings = append(e.Learnings, d.Update)
	}
	if missing := len(batch) - len(e.Learnings) - len(problems); missing > 0 {
		problems = append(problems, fmt.Sprintf("the answer gave %d of the %d learnings no questions", missing, len(batch)))
	}
	if len(e.Learnings) > 0 {
		e.Outcome = OutcomeEnriched
	}
	if len(problems) > 0 {
		e.Error = problems[0]
		if len(problems) > 1 {
			e.Error += fmt.Sprintf(" (and %d more)", len(problems)-1)
		}
	}
	return e
}

func countLeft(batches [][]writer.Subject) int {
	n := 0
	for _, b := range batches {
		n += len(b)
	}
	return n
}

// EnrichIDs is the ids of the learnings each run of the plan asks about,
// in order (for tests and --dry-run listings).
func (p *EnrichPlan) EnrichIDs() [][]string {
	out := make([][]string, len(p.batches))
	for i, b := range p.batches {
		for _, s := range b {
			out[i] = append(out[i], s.ID)
		}
	}
	return out
}
