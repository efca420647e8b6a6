package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/reflectkb/reflect/backfill"
	"github.com/reflectkb/reflect/drain"
	"github.com/reflectkb/reflect/drain/writer"
	"github.com/reflectkb/reflect/internal/config"
	"github.com/reflectkb/reflect/internal/money"
	"github.com/reflectkb/reflect/knowledge"
)

// EnrichOptions are the inputs of `reflect enrich`.
type EnrichOptions struct {
	Refs              []string
	Limit             int
	DryRun, JSON, Yes bool
}

// enrichReport is what --json prints.
type enrichReport struct {
	DryRun   bool              `json:"dry_run"`
	Plan     *drain.EnrichPlan `json:"plan"`
	Estimate backfill.Estimate `json:"estimate"`
	// Result is what the runs did; null for --dry-run or when none ran.
	Result *drain.EnrichResult `json:"result"`
}

// NewCmdEnrich builds `reflect enrich`; runF, when not nil, runs instead
// with the parsed options.
func NewCmdEnrich(f *Factory, runF func(*EnrichOptions) error) *cobra.Command {
	opts := &EnrichOptions{}
	cmd := &cobra.Command{
		Use:   "enrich [<id>...]",
		Short: "Ask your LLM writer for the questions of learnings that have none",
		Long: `Enrich asks the writer you chose (drain.writer: claude, codex or command) to
write questions for learnings: 3 to 5 things a developer who has the problem,
and does not yet know its cause, would type to their agent. Search and recall
match them with the tags and symptoms, so a prompt in other words than the
learning's still finds it; they are never injected. An LLM writer writes them
for every new learning; enrich gives them to the others (the builtin writer's,
imported rules, learnings added by hand, older ones).

Without ids it takes every active learning (not a draft awaiting review, not
superseded) that has no questions, the most recently updated first; personal
and private learnings only when named. With ids it takes those, whatever they
hold. The learnings go 8 to a writer run, each shown short (title, key insight,
symptoms, the start of its text).

It first prints the plan: how many learnings, in how many writer runs, the
writer, what the runs should cost (the average of the writer's past runs) and
today's spend against the drainer's caps (drain.daily_usd, drain.daily_max).
--dry-run stops there. The runs spend from your account, so they start only
after a yes: --yes, or an answer on a terminal (default no). They are the
drainer's runs: recorded where a drain's are (reflect status, doctor, the
status line), counted against the same caps, and never while a drain runs.
Once a cap is reached enrich stops, and the rest waits for another enrich. A
run that fails changes none of its learnings; the others go on. Only the
questions of a learning change (redacted, like every write); its updated
time stays.`,
		Example: `  reflect enrich --dry-run
  reflect enrich --limit 40 --yes
  reflect enrich 1a2b3c lrn-pin-the-go-toolchain
  reflect enrich --dry-run --json`,
		ValidArgsFunction: completeLearningIDs(f),
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.Limit < 0 {
				return usagef("--limit %d: give a number of learnings, 0 for no limit", opts.Limit)
			}
			opts.Refs = args
			if runF != nil {
				return runF(opts)
			}
			return enrichRun(cmd, f, opts)
		},
	}
	fl := cmd.Flags()
	fl.IntVar(&opts.Limit, "limit", 0, "ask about at most `N` learnings (0: no limit)")
	fl.BoolVarP(&opts.DryRun, "dry-run", "n", false, "print the plan; run no writer")
	fl.BoolVar(&opts.JSON, "json", false, "print JSON")
	fl.BoolVarP(&opts.Yes, "yes", "y", false, "run the LLM writer without asking")
	return cmd
}

func enrichRun(cmd *cobra.Command, f *Factory, opts *EnrichOptions) error {
	c, err := f.Config()
	if err != nil {
		return err
	}
	w, _, err := writer.Select(writerChoice(c), f.lookPath())
	if err != nil {
		return err
	}
	if !writer.LLM(w.Name()) {
		return drain.ErrBuiltinEnrich
	}
	var ids []string
	for _, ref := range opts.Refs {
		id, err := f.resolveLearning(ref)
		if err != nil {
			return err
		}
		ids = append(ids, id)
	}
	ctx := cmd.Context()
	ix, err := f.OpenIndex(ctx, true)
	if err != nil {
		return err
	}
	defer ix.Close()
	kb := knowledge.New(ix)
	eo := drain.EnrichOptions{StateDir: c.StateDir, DailyMax: c.Drain.DailyMax, DailyUSD: c.Drain.DailyUSD, Timeout: c.Drain.Timeout}
	progress, finish := progressBar(f, "reading learnings", f.IO.ErrTTY && !opts.JSON)
	eo.ReadProgress = progress
	plan, err := drain.PlanEnrich(kb, w, ids, opts.Limit, eo)
	finish()
	if err != nil {
		return err
	}
	rep := enrichReport{DryRun: opts.DryRun, Plan: plan, Estimate: enrichEstimate(f, c, plan)}
	if opts.DryRun || plan.Runs == 0 {
		return enrichPrint(f, rep, opts, false)
	}
	shown, err := enrichConsent(f, rep, opts)
	if err != nil || !shown.ok {
		return err
	}
	if !opts.JSON {
		eo.Progress = func(run, runs, n int) {
			fmt.Fprintf(f.IO.Err, "writer run %d of %d: %s…\n", run, runs, countOf(n, "learning"))
		}
	}
	rep.Result, err = drain.Enrich(ctx, kb, w, plan, eo)
	if rep.Result == nil {
		return err
	}
	if perr := enrichPrint(f, rep, opts, shown.asked); perr != nil && err == nil {
		err = perr
	}
	return err
}

// enrichEstimate prices the plan's runs as backfill prices its own: the
// average cost of the writer's past enrich runs, or of its drains when it
// has enriched nothing yet (a drain's prompt holds a transcript, so that
// errs high), unknown without either.
func enrichEstimate(f *Factory, c *config.Config, plan *drain.EnrichPlan) backfill.Estimate {
	p := &backfill.Plan{Total: backfill.AgentPlan{WriterRuns: plan.Runs, CondensedChars: plan.PromptChars}}
	costs := pastRunCosts(f, c, plan.Writer, drain.KindEnrich)
	if len(costs) == 0 {
		costs = pastRunCosts(f, c, plan.Writer, "")
	}
	return backfill.EstimateCost(p, plan.Writer, true, costs,
		backfill.Caps{DailyUSD: c.Drain.DailyUSD, DailyMax: c.Drain.DailyMax})
}

// enrichConsent settles whether the runs may spend: with --yes, or a yes
// on a terminal (default no), after the plan. Without a terminal it
// prints the plan and says to pass --yes.
func enrichConsent(f *Factory, rep enrichReport, opts *EnrichOptions) (consent, error) {
	if opts.Yes {
		return consent{ok: true}, nil
	}
	p := rep.Plan
	what := fmt.Sprintf("%s in %s", countOf(p.Learnings, "learning"), countOf(p.Runs, "writer run"))
	if opts.JSON || !f.IO.InTTY || !f.IO.ErrTTY {
		if err := enrichPrint(f, rep, opts, false); err != nil {
			return consent{}, err
		}
		return consent{}, usagef("nothing spent: the %s writer would write the questions of %s, spending from your account (%s); run again with --yes to run it", p.Writer, what, costText(rep.Estimate))
	}
	enrichPrintTo(f.IO.Err, rep, true)
	if !confirm(f.IO, fmt.Sprintf("Ask the %s writer for the questions of %s? [y/N] ", p.Writer, what)) {
		fmt.Fprintln(f.IO.Err, "Nothing spent.")
		return consent{asked: true}, nil
	}
	return consent{ok: true, asked: true}, nil
}

// enrichPrint prints the report: JSON, or the plan (unless shown already,
// before the question) and what the runs did. Runs that failed make the
// exit status 1, after everything else was done.
func enrichPrint(f *Factory, rep enrichReport, opts *EnrichOptions, shown bool) error {
	if opts.JSON {
		if err := printJSON(f.IO.Out, rep); err != nil {
			return err
		}
	} else {
		enrichPrintTo(f.IO.Out, rep, !shown)
	}
	if r := rep.Result; r != nil && r.Failed > 0 {
		return quietError{errors.New("some learnings got no questions")}
	}
	return nil
}

// enrichPrintTo writes the plan (with withPlan) and the result as text.
func enrichPrintTo(w io.Writer, rep enrichReport, withPlan bool) {
	p, e := rep.Plan, rep.Estimate
	if withPlan {
		fmt.Fprintf(w, "Enrich plan: %s without questions, in %s (at most %d a run).\n",
			countOf(p.Learnings, "learning"), countOf(p.Runs, "writer run"), writer.MaxSubjects)
		if p.Runs > 0 {
			fmt.Fprintf(w, "Writer: %s, an LLM: it spends from your account. Estimate: %s.\n", e.Writer, costText(e))
		}
		fmt.Fprintf(w, "Today: %s; caps: %s.\n", spendOf(p.Today), capsOf(e.Caps))
		if room := max(e.Caps.DailyMax-p.Today.Entries, 0); room < p.Runs {
			fmt.Fprintf(w, "Today's runs cap leaves room for %s: enrich stops there, and the rest waits for an enrich another day (or use --limit).\n", countOf(room, "writer run"))
		}
		if p.Left > 0 {
			fmt.Fprintf(w, "%s more beyond --limit.\n", countOf(p.Left, "learning"))
		}
		if p.LocalOnly > 0 {
			fmt.Fprintf(w, "%s personal or private left out: name them to include them.\n", countOf(p.LocalOnly, "learning"))
		}
		for _, pr := range p.Problems {
			fmt.Fprintf(w, "unreadable %s: %s\n", pr.ID, oneLine(pr.Reason))
		}
	}
	r := rep.Result
	if r == nil {
		return
	}
	for _, er := range r.Errors {
		fmt.Fprintf(w, "%s: %s\n", er.ID, oneLine(er.Reason))
	}
	fmt.Fprintf(w, "Enriched %s, failed %d, spent %s in %s.\n", countOf(r.Enriched, "learning"), r.Failed, money.USD(r.USD), countOf(r.Runs, "writer run"))
	if r.Stopped != "" {
		fmt.Fprintf(w, "Stopped: %s. %s wait for another enrich.\n", r.Stopped, countOf(r.Left, "learning"))
	}
}

// spendOf is a day's writer runs and spend.
func spendOf(s drain.Spend) string {
	return fmt.Sprintf("%s, %s spent", countOf(s.Entries, "writer run"), money.USD(s.USD))
}

// capsOf names the daily caps with their keys.
func capsOf(c backfill.Caps) string {
	usd := "no spend cap (drain.daily_usd)"
	if c.DailyUSD > 0 {
		usd = money.USD(c.DailyUSD) + " a day (drain.daily_usd)"
	}
	return fmt.Sprintf("%s, %d writer runs a day (drain.daily_max)", usd, c.DailyMax)
}
