package main

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/reflectkb/reflect/store"
)

// completeLearningIDs completes learning ids from the documents on disk
// (no index needed, so completion stays instant), described by their
// titles where the shell shows descriptions.
func completeLearningIDs(f *Factory) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		c, err := f.Config()
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		st := store.Open(c.DocumentsDir())
		ids, err := st.IDs()
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var out []cobra.Completion
		for _, id := range ids {
			candidate := id
			if !strings.HasPrefix(id, toComplete) {
				// "oauth" completes to the id without "lrn-", which
				// resolves just the same: shells drop candidates that do
				// not start with what was typed.
				if !strings.HasPrefix(id, store.IDKind+toComplete) {
					continue
				}
				candidate = strings.TrimPrefix(id, store.IDKind)
			}
			if l, err := st.Read(id); err == nil {
				out = append(out, cobra.CompletionWithDesc(candidate, oneLine(l.Title)))
			} else {
				out = append(out, candidate)
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

// completeFirstArg completes the first argument from a fixed list and
// nothing after it.
func completeFirstArg(values ...string) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return values, cobra.ShellCompDirectiveNoFileComp
	}
}

// completeValues completes a flag or argument from a fixed list.
func completeValues(values ...string) cobra.CompletionFunc {
	return cobra.FixedCompletions(values, cobra.ShellCompDirectiveNoFileComp)
}

// completeQueueIDs completes the ids of waiting and poisoned queue entries.
func completeQueueIDs(f *Factory) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		q, err := f.Queue()
		if err != nil || len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var out []cobra.Completion
		recs, _, _ := q.List()
		for _, r := range recs {
			out = append(out, cobra.CompletionWithDesc(r.ID, string(r.Harness)+" "+r.TranscriptPath))
		}
		poisoned, _ := q.ListPoisoned()
		for _, p := range poisoned {
			out = append(out, cobra.CompletionWithDesc(p.Record.ID, "poisoned: "+oneLine(p.Reason)))
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}
