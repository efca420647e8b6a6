package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/reflectkb/reflect/doctor"
)

// NewCmdDoctor builds `reflect doctor`.
func NewCmdDoctor(f *Factory) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use: "doctor",
		Example: `  reflect doctor
  reflect doctor --json | jq .malformed`,
		Short: "Check directories, permissions, index health and documents",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := f.Config()
			if err != nil {
				return err
			}
			rep := doctor.Run(cmd.Context(), c, f.RebuildNotice())
			if asJSON {
				if err := printJSON(f.IO.Out, rep); err != nil {
					return err
				}
			} else {
				p := painter{f.Color()}
				for _, ch := range rep.Checks {
					fmt.Fprintf(f.IO.Out, "%s  %-20s %s\n", p.status(fmt.Sprintf("%-4s", ch.Status)), ch.Name, ch.Detail)
					if ch.Fix != "" {
						fmt.Fprintf(f.IO.Out, "      %-20s → %s\n", "", ch.Fix)
					}
				}
				for _, m := range rep.Malformed {
					fmt.Fprintf(f.IO.Out, "      malformed: %s: %s\n", m.Path, m.Reason)
				}
			}
			if !rep.Healthy() {
				return errors.New("doctor found problems (see above)")
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}
