package main

import (
	"fmt"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"

	"github.com/reflectkb/reflect/index"
)

// NewCmdReindex builds `reflect reindex`.
func NewCmdReindex(f *Factory) *cobra.Command {
	var full, asJSON bool
	cmd := &cobra.Command{
		Use:   "reindex",
		Short: "Bring the index up to date with documents/",
		Long: `Reindex indexes new and changed documents and drops deleted ones; unchanged
documents cost one stat. --full rebuilds the index from scratch. Malformed
documents are reported and skipped.`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			var bar *progressbar.ProgressBar
			var progress func(done, total int)
			if f.IO.ErrTTY && !asJSON {
				progress = func(done, total int) {
					if bar == nil {
						bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(f.IO.Err),
							progressbar.OptionSetDescription("indexing"), progressbar.OptionShowCount(),
							progressbar.OptionClearOnFinish(), progressbar.OptionThrottle(50e6))
					}
					_ = bar.Set(done)
				}
			}
			ix, err := f.OpenIndex(cmd.Context(), false, index.WithProgress(progress))
			if err != nil {
				return err
			}
			defer ix.Close()
			// A catalog Open just rebuilt is complete: a second pass would
			// only repeat the work.
			st := ix.RebuildStats
			if ix.Rebuilt == "" {
				st, err = ix.Update(cmd.Context(), index.UpdateOptions{Full: full, Progress: progress})
			}
			if bar != nil {
				_ = bar.Finish()
			}
			if err != nil {
				return err
			}
			problems := make([]map[string]string, 0, len(st.Problems))
			for _, p := range st.Problems {
				problems = append(problems, map[string]string{"path": p.Path, "reason": p.Reason})
			}
			if asJSON {
				return printJSON(f.IO.Out, map[string]any{
					"full": full, "stats": st, "duration_ms": st.Duration.Milliseconds(), "malformed": problems,
				})
			}
			fmt.Fprintf(f.IO.Out, "Indexed %d learnings in %s: %d added, %d updated, %d removed, %d unchanged.\n",
				st.Indexed, st.Duration.Round(1e6), st.Added, st.Updated, st.Removed, st.Unchanged)
			for _, p := range st.Problems {
				fmt.Fprintf(f.IO.Err, "reflect: skipped %s\n", p.Error())
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&full, "full", false, "rebuild the index from scratch")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}
