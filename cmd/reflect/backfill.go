package main

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/reflectkb/reflect/backfill"
	"github.com/reflectkb/reflect/drain"
	"github.com/reflectkb/reflect/drain/writer"
	"github.com/reflectkb/reflect/internal/config"
	"github.com/reflectkb/reflect/internal/money"
	"github.com/reflectkb/reflect/queue"
)

// BackfillOptions are the inputs of `reflect backfill`.
type BackfillOptions struct {
	Agents            []string
	Since, Project    string
	Limit             int
	DryRun, JSON, Yes bool
	// Now is when --since counts back from.
	Now time.Time
}

// backfillReport is what --json prints.
type backfillReport struct {
	DryRun   bool              `json:"dry_run"`
	Plan     *backfill.Plan    `json:"plan"`
	Estimate backfill.Estimate `json:"estimate"`
	// Result is what was queued; null for --dry-run or when nothing was.
	Result *backfill.Result `json:"result"`
}

// NewCmdBackfill builds `reflect backfill`; runF, when not nil, runs
// instead with the parsed options.
func NewCmdBackfill(f *Factory, runF func(*BackfillOptions) error) *cobra.Command {
	opts := &BackfillOptions{}
	cmd := &cobra.Command{
		Use:   "backfill",
		Short: "Turn the sessions your agents kept before reflect into learnings",
		Long: `Backfill queues past sessions for reflection, as the hooks queue every new
one: Claude Code's ~/.claude/projects/*/*.jsonl, Codex's rollouts
(~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl and archived_sessions/), Gemini
CLI's chats (~/.gemini/tmp/<project>/chats/*.jsonl), OpenCode's sessions (its
database, ~/.local/share/opencode/opencode.db, read-only: each session is first
copied beside the copies reflect's plugin keeps, as the plugin writes them) and
Copilot CLI's ~/.copilot/session-state/<id>/events.jsonl ($CLAUDE_CONFIG_DIR,
$CODEX_HOME, $GEMINI_CLI_HOME, $XDG_DATA_HOME and $COPILOT_HOME move them).

It first prints the plan: per agent, the sessions found, how many are new, their
condensed size (what the drainer would send a writer), the writer runs, and
what they cost with the writer you chose (drain.writer; the builtin writer
costs nothing, an LLM writer is estimated from its past runs) within the caps
(drain.daily_usd, drain.daily_max, drain.max_per_run). --dry-run stops there.
Otherwise the new sessions join the queue, and the drainer reflects them within
those caps, a few at each session start (or now: reflect drain). Backfill runs
no writer itself.

A session already queued, reflected at its size or backfilled before is not
queued again, so running backfill twice queues nothing new (its record:
backfill.json in the state directory, which also keeps what the plan read of
each session, so a run after --dry-run reads only what changed since). A session written in the last two
minutes is probably still open: it is skipped with a line saying so, and the
next backfill looks at it again. A file that cannot be read is named, and the
rest goes on (exit status 1).

With an LLM writer chosen, backfill queues only after a yes: --yes, or an
answer on a terminal (default no).`,
		Example: `  reflect backfill --dry-run
  reflect backfill --agent claude --since 30d
  reflect backfill --project . --limit 50
  reflect backfill --dry-run --json --since 2026-10-01`,
		Args: exactArgs(0, "no arguments (use --agent, --since, --project)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			for _, a := range opts.Agents {
				if !slices.Contains(backfill.Agents, a) {
					return usagef("--agent %q: use %s", a, strings.Join(backfill.Agents, ", "))
				}
			}
			if opts.Limit < 0 {
				return usagef("--limit %d: give a number of sessions, 0 for no limit", opts.Limit)
			}
			opts.Now = time.Now()
			if runF != nil {
				return runF(opts)
			}
			return backfillRun(cmd, f, opts)
		},
	}
	fl := cmd.Flags()
	fl.StringSliceVar(&opts.Agents, "agent", nil, "only these agents' sessions: "+strings.Join(backfill.Agents, ", "))
	fl.StringVar(&opts.Since, "since", "", "only sessions written since `WHEN`: a duration back (30d, 36h), a date or a time")
	fl.StringVar(&opts.Project, "project", "", "only sessions run in `PATH` or below it")
	fl.IntVar(&opts.Limit, "limit", 0, "queue at most `N` sessions, the most recent first (0: no limit)")
	fl.BoolVarP(&opts.DryRun, "dry-run", "n", false, "print the plan; queue nothing")
	fl.BoolVar(&opts.JSON, "json", false, "print JSON")
	fl.BoolVarP(&opts.Yes, "yes", "y", false, "queue for an LLM writer without asking")
	_ = cmd.RegisterFlagCompletionFunc("agent", completeValues(backfill.Agents...))
	return cmd
}

func backfillRun(cmd *cobra.Command, f *Factory, opts *BackfillOptions) error {
	c, err := f.Config()
	if err != nil {
		return err
	}
	xdgData, _ := f.LookupEnv("XDG_DATA_HOME")
	o, err := backfillPlanOptions(c, opts, xdgData)
	if err != nil {
		return err
	}
	st, serr := backfill.LoadState(c.StateDir)
	if serr != nil {
		fmt.Fprintf(f.IO.Err, "reflect: %v\n", serr)
	}
	q, err := queue.Open(c.StateDir)
	if err != nil {
		return err
	}
	known, err := q.Known()
	if err != nil {
		return err
	}
	show := f.IO.ErrTTY && !opts.JSON
	progress, finish := progressBar(f, "reading sessions", show)
	o.Progress = progress
	plan, err := backfill.MakePlan(cmd.Context(), o, st, known)
	finish()
	if err != nil {
		return err
	}
	rep := backfillReport{DryRun: opts.DryRun, Plan: plan, Estimate: backfillEstimate(f, c, plan)}
	if opts.DryRun || plan.Total.New == 0 {
		// What the plan read is kept, so the run after a dry run does
		// not read every session again; a failure costs only that.
		if err := st.Save(); err != nil {
			fmt.Fprintf(f.IO.Err, "reflect: %v\n", err)
		}
		return backfillPrint(f, rep, opts, false)
	}
	shown, err := backfillConsent(f, rep, opts)
	if err != nil || !shown.ok {
		return err
	}
	progress, finish = progressBar(f, "queueing", show)
	res, err := backfill.Enqueue(q, plan, st, time.Now(), progress)
	finish()
	rep.Result = &res
	if perr := backfillPrint(f, rep, opts, shown.asked); perr != nil && err == nil {
		err = perr
	}
	return err
}

// backfillPlanOptions translates the configuration and the flags into
// the plan's options.
func backfillPlanOptions(c *config.Config, opts *BackfillOptions, xdgData string) (backfill.Options, error) {
	since, err := parseSince(opts.Since, opts.Now)
	if err != nil {
		return backfill.Options{}, err
	}
	project := opts.Project
	if project != "" {
		if project, err = filepath.Abs(project); err != nil {
			return backfill.Options{}, usagef("--project %q: %v", opts.Project, err)
		}
	}
	a := c.Agents
	return backfill.Options{
		Dirs: backfill.Dirs{Home: a.Home, Claude: a.Claude, Codex: a.Codex, GeminiHome: a.GeminiHome,
			Copilot: a.Copilot, StateDir: c.StateDir, XDGData: xdgData},
		Agents: opts.Agents, Since: since, Project: project, Limit: opts.Limit,
		Now: func() time.Time { return opts.Now },
	}, nil
}

// backfillEstimate prices the plan with the writer the drainer would use:
// the builtin writer costs nothing; an LLM writer costs what its past
// runs cost on average (drain-cost.jsonl), unknown without any.
func backfillEstimate(f *Factory, c *config.Config, plan *backfill.Plan) backfill.Estimate {
	name, llm := "builtin", writer.LLM(c.Drain.Writer)
	if llm {
		name = strings.ToLower(strings.TrimSpace(c.Drain.Writer))
		if w, _, err := writer.Select(writerChoice(c), f.lookPath()); err == nil {
			name, llm = w.Name(), w.Name() != "builtin"
		}
	}
	var costs []float64
	if llm {
		costs = pastRunCosts(f, c, name, "")
	}
	return backfill.EstimateCost(plan, name, llm, costs,
		backfill.Caps{DailyUSD: c.Drain.DailyUSD, DailyMax: c.Drain.DailyMax, MaxPerRun: c.Drain.MaxPerRun})
}

// pastRunCosts are the costs the writer named reported for its past runs
// of kind (drain-cost.jsonl: "" for drains, drain.KindEnrich), leaving out
// the runs that reported none: what the estimates of backfill and enrich
// average.
func pastRunCosts(f *Factory, c *config.Config, name, kind string) []float64 {
	runs, err := drain.WriterRuns(c.StateDir, time.Time{})
	if err != nil {
		fmt.Fprintf(f.IO.Err, "reflect: %v\n", err)
	}
	var costs []float64
	for _, r := range runs {
		if r.Writer == name && r.Kind == kind && r.CostUSD > 0 {
			costs = append(costs, r.CostUSD)
		}
	}
	return costs
}

// backfillConsent settles whether the new sessions may be queued: always
// with the builtin writer; with an LLM writer, which spends from the
// user's account, only with --yes or a yes on a terminal (default no).
// The plan and its cost are printed before the question.
func backfillConsent(f *Factory, rep backfillReport, opts *BackfillOptions) (consent, error) {
	e := rep.Estimate
	if !e.LLM || opts.Yes {
		return consent{ok: true}, nil
	}
	sessions := countOf(rep.Plan.Total.New, "session")
	if opts.JSON || !f.IO.InTTY || !f.IO.ErrTTY {
		if err := backfillPrint(f, rep, opts, false); err != nil {
			return consent{}, err
		}
		return consent{}, usagef("nothing queued: the %s writer would reflect %s, spending from your account (%s); run again with --yes to queue them", e.Writer, sessions, costText(e))
	}
	if err := backfillPrintTo(f.IO.Err, rep, true); err != nil {
		return consent{}, err
	}
	if !confirm(f.IO, fmt.Sprintf("Queue %s for the %s writer? [y/N] ", sessions, e.Writer)) {
		fmt.Fprintln(f.IO.Err, "Nothing queued.")
		return consent{asked: true}, nil
	}
	return consent{ok: true, asked: true}, nil
}

// consent is backfillConsent's answer: whether to queue, and whether the
// plan was printed with the question.
type consent struct{ ok, asked bool }

// backfillPrint prints the report: JSON, or the plan (unless shown
// already, before the question) and what was queued.
// Problems make the exit status 1, after everything else was done.
func backfillPrint(f *Factory, rep backfillReport, opts *BackfillOptions, shown bool) error {
	if opts.JSON {
		if err := printJSON(f.IO.Out, rep); err != nil {
			return err
		}
	} else if err := backfillPrintTo(f.IO.Out, rep, !shown); err != nil {
		return err
	}
	n := rep.Plan.Total.Problems + len(rep.Plan.Problems)
	if rep.Result != nil {
		n += len(rep.Result.Problems)
	}
	if n > 0 {
		// Each was named in the output; the status says some were.
		return quietError{fmt.Errorf("%d unreadable", n)}
	}
	return nil
}

// backfillPrintTo writes the plan (with withPlan), and what was queued,
// as text.
func backfillPrintTo(w io.Writer, rep backfillReport, withPlan bool) error {
	if withPlan {
		if err := printPlan(w, rep.Plan, rep.Estimate); err != nil {
			return err
		}
	}
	if r := rep.Result; r != nil {
		for _, pr := range r.Problems {
			fmt.Fprintf(w, "not queued %s: %s\n", pr.Path, pr.Reason)
		}
		fmt.Fprintf(w, "Queued %s", countOf(r.Queued, "session"))
		if r.Already > 0 {
			fmt.Fprintf(w, " (%d more were queued or reflected meanwhile)", r.Already)
		}
		fmt.Fprintln(w, "; the drainer reflects what is queued within the caps at the next session starts, or now: reflect drain")
	}
	return nil
}

// printPlan writes the plan's table, the writer and its cost, the caps,
// and the sessions skipped or unreadable.
func printPlan(w io.Writer, p *backfill.Plan, e backfill.Estimate) error {
	fmt.Fprintf(w, "Backfill plan: %s to queue, %s examined.\n", countOf(p.Total.New, "session"), countOf(p.Total.Sessions, "session"))
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "AGENT\tSESSIONS\tNEW\tCONDENSED\tWRITER RUNS\tALREADY\tNOTHING\tBUSY\tPROBLEMS")
	for _, a := range append(append([]backfill.AgentPlan{}, p.Agents...), p.Total) {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%d\t%d\t%d\t%d\t%d\n", a.Agent, a.Sessions, a.New, sizeText(a.CondensedChars),
			a.WriterRuns, a.Already, a.Nothing, a.Busy, a.Problems)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w, writerText(e))
	if e.WriterRuns > 0 {
		fmt.Fprintf(w, "Caps: %s; at least %s of drains for %s.\n", spendCapsOf(e.Caps.DailyUSD, e.Caps.DailyMax, e.Caps.MaxPerRun),
			countOf(e.Days, "day"), countOf(e.WriterRuns, "writer run"))
		if !e.LLM && e.Days > 1 {
			// The run caps hold for the builtin writer too, though it
			// spends nothing: say which one to raise.
			fmt.Fprintf(w, "The builtin writer spends nothing: 'reflect config set drain.daily_max %d' lets the drains take them in a day.\n", e.WriterRuns)
		}
	}
	for _, s := range p.Sessions {
		switch s.Status {
		case backfill.StatusBusy:
			fmt.Fprintf(w, "skipped %s: %s\n", s.Path, s.Reason)
		case backfill.StatusProblem:
			fmt.Fprintf(w, "unreadable %s: %s\n", s.Path, s.Reason)
		}
	}
	for _, pr := range p.Problems {
		fmt.Fprintf(w, "unreadable %s: %s\n", pr.Path, pr.Reason)
	}
	if p.Total.Left > 0 {
		fmt.Fprintf(w, "%s beyond --limit not read: the next backfill takes them.\n", countOf(p.Total.Left, "session"))
	}
	return nil
}

// writerText names the writer and what the runs cost with it.
func writerText(e backfill.Estimate) string {
	if !e.LLM {
		return "Writer: builtin (no LLM, nothing spent): $0. To let an LLM write learnings instead: " + writer.OptIn
	}
	if e.WriterRuns == 0 {
		return fmt.Sprintf("Writer: %s, an LLM: it spends from your account; nothing new to run.", e.Writer)
	}
	return fmt.Sprintf("Writer: %s, an LLM: it spends from your account. Estimate: %s.", e.Writer, costText(e))
}

// costText is an LLM writer's estimate in words.
func costText(e backfill.Estimate) string {
	tokens := fmt.Sprintf("about %d input tokens", e.InputTokens)
	if e.USD == nil {
		return fmt.Sprintf("%s; no past %s run with a cost to go by", tokens, e.Writer)
	}
	return fmt.Sprintf("%s for %s at %s each (the average of %s), %s", money.USD(*e.USD), countOf(e.WriterRuns, "run"),
		money.USD(e.PerRunUSD), countOf(e.PastRuns, "past run"), tokens)
}

// sizeText is a byte count for people: 812 B, 143 kB, 2.4 MB.
func sizeText(n int64) string {
	switch {
	case n < 1000:
		return fmt.Sprintf("%d B", n)
	case n < 1000*1000:
		return fmt.Sprintf("%d kB", (n+500)/1000)
	default:
		return fmt.Sprintf("%.1f MB", float64(n)/1e6)
	}
}
