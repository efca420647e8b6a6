package main

import (
	"fmt"
	"slices"

	"github.com/spf13/cobra"

	"github.com/reflectkb/reflect/drain"
	"github.com/reflectkb/reflect/drain/writer"
	"github.com/reflectkb/reflect/internal/proc"
	textutil "github.com/reflectkb/reflect/internal/text" // main_test.go declares text
	"github.com/reflectkb/reflect/queue"
)

// DrainOptions are the inputs of `reflect drain`.
type DrainOptions struct {
	Detach, DryRun, JSON bool
	Max                  int
	Writer               string
}

// NewCmdDrain builds `reflect drain`; runF, when not nil, runs instead with
// the parsed options.
func NewCmdDrain(f *Factory, runF func(*DrainOptions) error) *cobra.Command {
	opts := &DrainOptions{}
	cmd := &cobra.Command{
		Use:   "drain",
		Short: "Turn queued transcripts into learnings",
		Long: `Drain reflects on queued session transcripts: it condenses each one (redacted,
without injected learnings), asks the writer for learnings, writes and indexes
them, and only then removes the entry from the queue. One drain runs at a time;
budgets (drain.max_per_run, drain.daily_max, drain.daily_usd) are never exceeded.
The writer is the builtin rules (no LLM, nothing spent) until drain.writer /
REFLECT_WRITER chooses another: claude, codex, command, or auto (claude when on
PATH, else codex, else builtin); drain.daily_usd caps its spend ($1.00 a day
by default). SessionStart hooks start a
background drain when the queue is not empty.`,
		Example: `  reflect drain --dry-run
  reflect drain --writer builtin --max 1
  reflect drain --detach`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return drainRun(cmd, f, opts)
		},
	}
	cmd.Flags().BoolVar(&opts.Detach, "detach", false, "run in the background and return at once")
	cmd.Flags().IntVar(&opts.Max, "max", 0, "reflect at most N entries (default drain.max_per_run)")
	cmd.Flags().StringVar(&opts.Writer, "writer", "", textutil.OrList(writer.Names()))
	cmd.Flags().BoolVar(&opts.DryRun, "dry-run", false, "show what would run; change nothing")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print JSON")
	_ = cmd.RegisterFlagCompletionFunc("writer", completeValues(writer.Names()...))
	return cmd
}

// drainRun checks the flags after loading the configuration, so a broken
// config.toml is the error reported first, as it always was.
func drainRun(cmd *cobra.Command, f *Factory, opts *DrainOptions) error {
	c, err := f.Config()
	if err != nil {
		return err
	}
	if opts.Max < 0 {
		return usagef("--max must be positive")
	}
	if opts.Writer != "" {
		if !slices.Contains(writer.Names(), opts.Writer) {
			return usagef("--writer must be %s", textutil.OrList(writer.Names()))
		}
		c.Drain.Writer = opts.Writer
		c.Origin["drain.writer"] = "--writer"
	}
	if opts.Detach {
		return drainDetached(f, opts)
	}
	do := drainOptions(c)
	do.Max, do.DryRun = opts.Max, opts.DryRun
	if !opts.JSON {
		do.Progress = func(rec queue.Record) {
			fmt.Fprintf(f.IO.Err, "reflecting %s (%s, %s)…\n", rec.TranscriptPath, rec.Harness, rec.Trigger)
		}
	}
	rep, err := drain.Run(cmd.Context(), do)
	if err != nil {
		return err
	}
	syncing := false
	if c.Sync.Auto && !opts.DryRun && wroteLearnings(rep) {
		// Detached: the drain (and any hook that started it) never
		// waits on the network; sync's own lock keeps syncs apart.
		if serr := proc.SpawnDetached("sync", "--background"); serr != nil {
			fmt.Fprintf(f.IO.Err, "reflect: start a background sync: %v\n", serr)
		} else {
			syncing = true
		}
	}
	if opts.JSON {
		return printJSON(f.IO.Out, struct {
			*drain.Report
			Syncing bool `json:"syncing,omitempty"`
		}{rep, syncing})
	}
	printDrain(f, rep)
	if syncing {
		fmt.Fprintln(f.IO.Out, "Syncing the new learnings in the background (sync.auto).")
	}
	return nil
}

// drainDetached starts the drain in the background with the same
// --writer and --max.
func drainDetached(f *Factory, opts *DrainOptions) error {
	bg := []string{"drain"}
	if opts.Writer != "" {
		bg = append(bg, "--writer", opts.Writer)
	}
	if opts.Max > 0 {
		bg = append(bg, "--max", fmt.Sprint(opts.Max))
	}
	if err := proc.SpawnDetached(bg...); err != nil {
		return fmt.Errorf("start a background drain: %w", err)
	}
	if opts.JSON {
		return printJSON(f.IO.Out, map[string]any{"detached": true})
	}
	fmt.Fprintln(f.IO.Out, "Draining in the background; see 'reflect status'.")
	return nil
}

// wroteLearnings reports whether a drain wrote any learning.
func wroteLearnings(rep *drain.Report) bool {
	for _, e := range rep.Entries {
		if len(e.Learnings) > 0 {
			return true
		}
	}
	return false
}

func printDrain(f *Factory, rep *drain.Report) {
	out := f.IO.Out
	if !rep.Ran {
		fmt.Fprintf(out, "Nothing drained: %s.\n", rep.Reason)
		return
	}
	verb := "Drained"
	if rep.DryRun {
		verb = "Would drain"
	}
	fmt.Fprintf(out, "%s %d entr%s with the %s writer (%s).\n", verb, len(rep.Entries), plural(len(rep.Entries), "y", "ies"), rep.Writer, rep.WriterWhy)
	for _, e := range rep.Entries {
		fmt.Fprintf(out, "  %s  %-9s %s", e.ID, e.Outcome, e.Transcript)
		if len(e.Learnings) > 0 {
			fmt.Fprintf(out, " → %s%s", countOf(len(e.Learnings), "learning"), addedUpdated(e.Written))
		}
		if e.Error != "" {
			fmt.Fprintf(out, " (%s)", oneLine(e.Error))
		}
		fmt.Fprintln(out)
		if len(e.Written) == 0 {
			for _, id := range e.Learnings {
				fmt.Fprintf(out, "      %s\n", id)
			}
		}
		for _, w := range e.Written {
			if w.Updates != "" {
				fmt.Fprintf(out, "      %-7s  %s (update of %s, for review)\n", w.Action, w.ID, w.Updates)
				continue
			}
			fmt.Fprintf(out, "      %-7s  %s\n", w.Action, w.ID)
		}
		for _, s := range e.Signals {
			// What the session said of a learning (docs/ranking.md).
			fmt.Fprintf(out, "      %-9s  %s", s.Kind, oneLine(s.ID))
			if s.Reason != "" {
				fmt.Fprintf(out, "  (%s)", oneLine(s.Reason))
			}
			fmt.Fprintln(out)
		}
	}
	for _, fd := range rep.Folded {
		fmt.Fprintf(out, "Folded %s into %s: near-duplicates, one arrived by sync.\n", fd.Gone, fd.Kept)
	}
	fmt.Fprintf(out, "Today: %s, $%.2f. Waiting: %d.\n", entries(rep.Today.Entries), rep.Today.USD, rep.Waiting)
	if rep.Pending > 0 {
		// What this writer drafts waits for the user (drain.review).
		fmt.Fprintln(out, waitingNote(rep.Pending))
	}
}

// addedUpdated says how many of an entry's learnings were added and how
// many updated: " (2 added, 1 updated)", or "" when nothing says.
func addedUpdated(written []drain.Written) string {
	var added, updated int
	for _, w := range written {
		switch w.Action {
		case "added":
			added++
		case "updated":
			updated++
		}
	}
	if added+updated == 0 {
		return ""
	}
	return fmt.Sprintf(" (%d added, %d updated)", added, updated)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
