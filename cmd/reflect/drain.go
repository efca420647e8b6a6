package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/reflectkb/reflect/drain"
	"github.com/reflectkb/reflect/internal/proc"
	"github.com/reflectkb/reflect/queue"
)

// NewCmdDrain builds `reflect drain`.
func NewCmdDrain(f *Factory) *cobra.Command {
	var detach, dryRun, asJSON bool
	var maxN int
	var writer string
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
			c, err := f.Config()
			if err != nil {
				return err
			}
			if maxN < 0 {
				return usagef("--max must be positive")
			}
			if writer != "" {
				switch writer {
				case "claude", "codex", "builtin", "command":
				default:
					return usagef("--writer must be claude, codex, builtin or command")
				}
				c.Drain.Writer = writer
				c.Origin["drain.writer"] = "--writer"
			}
			if detach {
				bg := []string{"drain"}
				if writer != "" {
					bg = append(bg, "--writer", writer)
				}
				if maxN > 0 {
					bg = append(bg, "--max", fmt.Sprint(maxN))
				}
				if err := proc.SpawnDetached(bg...); err != nil {
					return fmt.Errorf("start a background drain: %w", err)
				}
				if asJSON {
					return printJSON(f.IO.Out, map[string]any{"detached": true})
				}
				fmt.Fprintln(f.IO.Out, "Draining in the background; see 'reflect status'.")
				return nil
			}
			opts := drainOptions(c)
			opts.Max, opts.DryRun = maxN, dryRun
			if !asJSON {
				opts.Progress = func(rec queue.Record) {
					fmt.Fprintf(f.IO.Err, "reflecting %s (%s, %s)…\n", rec.TranscriptPath, rec.Harness, rec.Trigger)
				}
			}
			rep, err := drain.Run(cmd.Context(), opts)
			if err != nil {
				return err
			}
			syncing := false
			if c.Sync.Auto && !dryRun && wroteLearnings(rep) {
				// Detached: the drain (and any hook that started it) never
				// waits on the network; sync's own lock keeps syncs apart.
				if serr := proc.SpawnDetached("sync", "--background"); serr != nil {
					fmt.Fprintf(f.IO.Err, "reflect: start a background sync: %v\n", serr)
				} else {
					syncing = true
				}
			}
			if asJSON {
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
		},
	}
	cmd.Flags().BoolVar(&detach, "detach", false, "run in the background and return at once")
	cmd.Flags().IntVar(&maxN, "max", 0, "reflect at most N entries (default drain.max_per_run)")
	cmd.Flags().StringVar(&writer, "writer", "", "claude, codex, builtin or command")
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "show what would run; change nothing")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	_ = cmd.RegisterFlagCompletionFunc("writer", completeValues("claude", "codex", "builtin", "command"))
	return cmd
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
