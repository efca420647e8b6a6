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
			if !strings.HasPrefix(id, toComplete) && !strings.HasPrefix(id, store.IDKind+toComplete) {
				continue
			}
			if l, err := st.Read(id); err == nil {
				out = append(out, cobra.CompletionWithDesc(id, oneLine(l.Title)))
			} else {
				out = append(out, id)
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

// completeValues completes a flag or argument from a fixed list.
func completeValues(values ...string) cobra.CompletionFunc {
	return cobra.FixedCompletions(values, cobra.ShellCompDirectiveNoFileComp)
}
