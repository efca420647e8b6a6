package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/reflectkb/reflect/index"
)

// NewCmdList builds `reflect list`.
func NewCmdList(f *Factory) *cobra.Command {
	var opts index.ListOptions
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List learnings, most recently updated first",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.Limit < 1 {
				return usagef("--limit must be at least 1")
			}
			ix, err := f.OpenIndex(cmd.Context(), true)
			if err != nil {
				return err
			}
			defer ix.Close()
			items, err := ix.List(cmd.Context(), opts)
			if err != nil {
				return err
			}
			if asJSON {
				if items == nil {
					items = []index.Result{}
				}
				return printJSON(f.IO.Out, map[string]any{"learnings": items})
			}
			if len(items) == 0 && opts.Project != "" {
				fmt.Fprintf(f.IO.Out, "No learnings for project %q. Run 'reflect list' without --project to see all.\n", opts.Project)
				return nil
			}
			if len(items) == 0 {
				fmt.Fprintln(f.IO.Out, "No learnings yet. Add one with 'reflect add --title ... --insight ...'.")
				return nil
			}
			for _, r := range items {
				day := r.Updated
				if len(day) >= 10 {
					day = day[:10]
				}
				fmt.Fprintf(f.IO.Out, "%s  %-6s  %s  %s\n", day, r.Confidence, r.ID, oneLine(r.Title))
			}
			return nil
		},
	}
	cmd.Flags().IntVarP(&opts.Limit, "limit", "n", 50, "how many learnings at most")
	cmd.Flags().StringVar(&opts.Project, "project", "", "only learnings of this project")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}
