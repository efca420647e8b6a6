package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/reflectkb/reflect/agents"
	"github.com/reflectkb/reflect/drain"
	"github.com/reflectkb/reflect/drain/writer"
	"github.com/reflectkb/reflect/index"
	"github.com/reflectkb/reflect/internal/config"
	"github.com/reflectkb/reflect/internal/money"
	"github.com/reflectkb/reflect/knowledge"
	"github.com/reflectkb/reflect/statusline"
)

// StatusOptions are the inputs of `reflect status`.
type StatusOptions struct {
	JSON bool
}

// NewCmdStatus builds `reflect status`; runF, when not nil, runs instead
// with the parsed options.
func NewCmdStatus(f *Factory, runF func(*StatusOptions) error) *cobra.Command {
	opts := &StatusOptions{}
	cmd := &cobra.Command{
		Use: "status",
		Example: `  reflect status
  reflect status --json`,
		Short: "Show queue depth, the last hook event and the size of the knowledge base",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return statusRun(cmd.Context(), f, opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print JSON")
	return cmd
}

// statusType is what `reflect status` reports.
type statusType struct {
	Queued       int               `json:"queued"`
	LastEvent    *statusline.Event `json:"last_event"`
	LastDrain    *drain.Report     `json:"last_drain"`
	Writer       writerStatus      `json:"writer"`
	Today        drain.Spend       `json:"today"`
	Knowledge    index.Counts      `json:"knowledge"`
	StateDir     string            `json:"state_dir"`
	LearningsDir string            `json:"learnings_dir"`
	Disabled     bool              `json:"disabled"`
	// Agents: every supported agent, installed or not.
	Agents []agents.AgentStatus `json:"agents"`
}

// statusRun gathers the status and prints it.
func statusRun(ctx context.Context, f *Factory, opts *StatusOptions) error {
	c, err := f.Config()
	if err != nil {
		return err
	}
	q, err := f.Queue()
	if err != nil {
		return err
	}
	ev, err := statusline.Read(c.StateDir)
	if err != nil {
		fmt.Fprintf(f.IO.Err, "reflect: %v\n", err)
	}
	ix, err := f.OpenIndex(ctx, true)
	if err != nil {
		return err
	}
	defer ix.Close()
	counts, err := ix.Count(ctx)
	if err != nil {
		return err
	}
	// The status line reads this count; status has it exact.
	_ = knowledge.RecordPending(c.StateDir, counts.Pending)
	last, err := drain.LastRun(c.StateDir)
	if err != nil {
		fmt.Fprintf(f.IO.Err, "reflect: %v\n", err)
	}
	spend, err := drain.TodaySpend(c.StateDir, time.Now())
	if err != nil {
		return err
	}
	w := currentWriter(c)
	st := statusType{q.Depth(), nil, last, w, spend, counts, c.StateDir, c.LearningsDir, c.Disabled, agents.Statuses(ctx, agents.Dirs(c.Agents))}
	if !ev.TS.IsZero() {
		st.LastEvent = &ev
	}
	if opts.JSON {
		return printJSON(f.IO.Out, st)
	}
	return printStatus(f.IO.Out, st, c)
}

// printStatus prints the status as text, one line per part.
func printStatus(out io.Writer, st statusType, c *config.Config) error {
	last, counts, spend, w := st.LastDrain, st.Knowledge, st.Today, st.Writer
	fmt.Fprintf(out, "queue:      %s waiting\n", countOf(st.Queued, "transcript"))
	if ev := st.LastEvent; ev != nil {
		detail := ev.Detail
		if ev.Error {
			detail = "error: " + detail
		}
		fmt.Fprintf(out, "last event: %s %s ago (%s)\n", ev.Event, time.Since(ev.TS).Round(time.Second), oneLine(detail))
	} else {
		fmt.Fprintln(out, "last event: none yet (no hook has run; see 'reflect install')")
	}
	if last != nil {
		written := 0
		for _, e := range last.Entries {
			written += len(e.Learnings)
		}
		if last.Kind == drain.KindEnrich {
			fmt.Fprintf(out, "last drain: reflect enrich %s ago, %s, %s given questions (%s writer)\n",
				time.Since(last.Finished).Round(time.Second), countOf(len(last.Entries), "writer run"), countOf(written, "learning"), last.Writer)
		} else {
			fmt.Fprintf(out, "last drain: %s ago, %s, %s written (%s writer)\n",
				time.Since(last.Finished).Round(time.Second), entries(len(last.Entries)), countOf(written, "learning"), last.Writer)
		}
	} else {
		fmt.Fprintln(out, "last drain: never")
	}
	fmt.Fprintf(out, "writer:     %s\n", w.line())
	fmt.Fprintf(out, "today:      %s\n", todayLine(spend, c))
	fmt.Fprintf(out, "knowledge:  %s (%d mini), %d malformed\n", countOf(counts.Learnings, "learning"), counts.Mini, counts.Problems)
	fmt.Fprintf(out, "review:     %s\n", reviewLine(counts.Pending, w.Review))
	if c.Disabled {
		fmt.Fprintln(out, "hooks:      disabled by REFLECT_DISABLE=1")
	}
	fmt.Fprintln(out, "agents:")
	for _, a := range st.Agents {
		fmt.Fprintf(out, "  %-9s %s\n", a.Agent, agentLine(a))
	}
	return nil
}

// agentLine is one agent's status in words: its version, whether reflect
// is installed and whether its hooks will run.
func agentLine(a agents.AgentStatus) string {
	ver := "not found on PATH"
	if a.Executable != "" {
		ver = "version unknown"
		if a.Version != "" {
			ver = a.Version
		}
	}
	switch {
	case a.Error != "":
		return fmt.Sprintf("%s (%s): %s", a.Name, ver, a.Error)
	case !a.Installed:
		return fmt.Sprintf("%s (%s): %s", a.Name, ver, a.Detail)
	case a.HooksRun:
		return fmt.Sprintf("%s (%s): installed, hooks run (%s)", a.Name, ver, a.Detail)
	}
	return fmt.Sprintf("%s (%s): installed, hooks will NOT run: %s", a.Name, ver, a.Detail)
}

// writerStatus is the writer a drain would use now, as status shows it.
type writerStatus struct {
	Name string `json:"name"`
	// LLM says whether it runs a language model, and so may spend.
	LLM bool `json:"llm"`
	// Why says where the choice comes from, or what is wrong with it.
	Why   string `json:"why"`
	Error string `json:"error,omitempty"`
	// Review says what it drafts waits for 'reflect review'
	// (drain.review, by default on for an LLM writer).
	Review bool `json:"review"`
}

// reviewLine says how many drafts wait for review, and whether new ones
// will.
func reviewLine(pending int, review bool) string {
	s := "no learnings wait"
	if pending > 0 {
		s = waitingNote(pending)
	}
	if review {
		return s + " (drain.review true: drafts wait for your approval before hooks inject them)"
	}
	return s + " (drain.review false: what the writer writes is injected without review)"
}

// currentWriter resolves the configured writer as a drain would.
func currentWriter(c *config.Config) writerStatus {
	w, why, err := writer.Select(writerChoice(c), nil)
	if err != nil {
		name := strings.ToLower(strings.TrimSpace(c.Drain.Writer))
		return writerStatus{Name: name, LLM: writer.LLM(name), Error: err.Error(), Review: c.Drain.ReviewOn()}
	}
	review := writer.LLM(w.Name())
	if c.Drain.Review != nil {
		review = *c.Drain.Review
	}
	return writerStatus{Name: w.Name(), LLM: writer.LLM(w.Name()), Why: why, Review: review}
}

// line is the writer in words: which, whether it spends, and why.
func (w writerStatus) line() string {
	switch {
	case w.Error != "":
		return w.Name + ": " + w.Error
	case w.LLM:
		return w.Name + " (an LLM: each run spends from your account; " + w.Why + ")"
	}
	return w.Name + " (no LLM, nothing spent; " + w.Why + ")"
}

// todayLine is the UTC day's drain runs and spend against their caps,
// the spend in cents under a dollar so a fraction of a cent never reads
// as nothing.
func todayLine(spend drain.Spend, c *config.Config) string {
	capUSD := "no daily cap (drain.daily_usd)"
	if c.Drain.DailyUSD > 0 {
		capUSD = "of " + money.USD(c.Drain.DailyUSD) + " a day (drain.daily_usd)"
	}
	return fmt.Sprintf("%s of %d a day reflected (drain.daily_max), %s spent %s",
		countOf(spend.Entries, "writer run"), c.Drain.DailyMax, money.USD(spend.USD), capUSD)
}
