package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/reflectkb/reflect/knowledge"
	"github.com/reflectkb/reflect/store"
)

// MarkOptions are the inputs of `reflect mark`.
type MarkOptions struct {
	Ref, Mark string
	JSON      bool
}

// markResult is what `reflect mark --json` prints.
type markResult struct {
	ID       string          `json:"id"`
	Mark     string          `json:"mark"`
	Feedback *store.Feedback `json:"feedback"`
	// Held says why hooks no longer inject the learning ("" when they do).
	Held string `json:"held"`
}

// NewCmdMark builds `reflect mark`; runF, when not nil, runs instead with
// the parsed options.
func NewCmdMark(f *Factory, runF func(*MarkOptions) error) *cobra.Command {
	opts := &MarkOptions{}
	cmd := &cobra.Command{
		Use:   "mark ID helpful|wrong|outdated|never|fresh|clear",
		Short: "Tell reflect whether a learning helped: changes what the hooks inject",
		Long: `Mark records feedback on a learning, counted in its frontmatter (feedback:),
so marks sync with it.

  helpful   raises it in search and recall (a fixed ×1.2, see --explain)
  wrong     keeps it out of what the hooks inject
  outdated  keeps it out of what the hooks inject
  never     keeps it out of what the hooks inject
  fresh     says you checked it and it still holds: undoes "stale"
  clear     removes every mark (and the counts below)

The drainer adds what sessions show (docs/ranking.md): "confirmed" when the
learning was injected and its command then worked, "refuted" when the
command failed the same way again (held after 2, unless confirmed or
marked helpful), and "stale" when its cited files are all gone or its
failing command has since worked in the project (held until you mark it
fresh; evidence older than that is not counted again).

A learning marked wrong, outdated or never is still found by 'reflect
search', marked, until you clear the marks, edit it ('reflect edit'), or
forget it. 'reflect show' prints the counts.`,
		Example: `  reflect mark 3f9a1c wrong
  reflect mark lrn-oauth-state helpful
  reflect mark 3f9a1c fresh
  reflect mark 3f9a1c clear`,
		Args:              exactArgs(2, "a learning id and a mark (helpful, wrong, outdated, never, fresh or clear)"),
		ValidArgsFunction: completeMark(f),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Ref, opts.Mark = args[0], args[1]
			if runF != nil {
				return runF(opts)
			}
			return markRun(cmd, f, opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print JSON")
	return cmd
}

func markRun(cmd *cobra.Command, f *Factory, opts *MarkOptions) error {
	if opts.Mark != "clear" && opts.Mark != "fresh" && !(&store.Feedback{}).Add(opts.Mark) {
		return usagef("unknown mark %q: use helpful, wrong, outdated, never, fresh or clear", opts.Mark)
	}
	id, err := f.resolveLearning(opts.Ref)
	if err != nil {
		return err
	}
	ix, err := f.OpenIndex(cmd.Context(), false, f.WaitNotice())
	if err != nil {
		return err
	}
	defer ix.Close()
	l, err := knowledge.New(ix).Mark(cmd.Context(), id, opts.Mark)
	var de *store.DocError
	switch {
	case errors.Is(err, store.ErrNotFound):
		return learningRefError(opts.Ref, err)
	case errors.As(err, &de):
		return fmt.Errorf("%w\nfix the file ('reflect edit %s'), then mark it", err, id)
	case l == nil:
		return err
	}
	if err := f.notIndexedYet(err, "marked "+id); err != nil {
		return err
	}
	if opts.JSON {
		fb := l.Feedback
		if fb == nil {
			fb = &store.Feedback{}
		}
		return printJSON(f.IO.Out, markResult{ID: id, Mark: opts.Mark, Feedback: fb, Held: l.Held()})
	}
	switch held := l.Held(); {
	case opts.Mark == "clear":
		fmt.Fprintf(f.IO.Out, "Cleared the marks of %s.\n", id)
	case opts.Mark == "fresh" && held == "":
		fmt.Fprintf(f.IO.Out, "Marked %s fresh: hooks inject it again.\n", id)
	case opts.Mark == "fresh":
		fmt.Fprintf(f.IO.Out, "Marked %s fresh; hooks still do not inject it: %s.\n", id, heldReason(held))
	case held != "":
		fmt.Fprintf(f.IO.Out, "Marked %s %s (%s): hooks no longer inject it; search still finds it.\n", id, opts.Mark, l.Feedback)
	default:
		fmt.Fprintf(f.IO.Out, "Marked %s %s (%s).\n", id, opts.Mark, l.Feedback)
	}
	if held := l.Held(); held == "superseded" {
		fmt.Fprintf(f.IO.Out, "It is superseded by %s, so hooks do not inject it whatever its marks.\n", l.SupersededBy)
	}
	return nil
}

// completeMark completes the id, then the mark.
func completeMark(f *Factory) cobra.CompletionFunc {
	ids := completeLearningIDs(f)
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) == 0 {
			return ids(cmd, args, toComplete)
		}
		if len(args) == 1 {
			return append(append([]cobra.Completion{}, store.Marks...), "fresh", "clear"), cobra.ShellCompDirectiveNoFileComp
		}
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
}
