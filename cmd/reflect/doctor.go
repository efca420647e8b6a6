package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/reflectkb/reflect/doctor"
)

// DoctorOptions are the inputs of `reflect doctor`.
type DoctorOptions struct {
	JSON bool
}

// NewCmdDoctor builds `reflect doctor`; runF, when not nil, runs instead
// with the parsed options.
func NewCmdDoctor(f *Factory, runF func(*DoctorOptions) error) *cobra.Command {
	opts := &DoctorOptions{}
	cmd := &cobra.Command{
		Use: "doctor",
		Example: `  reflect doctor
  reflect doctor --json | jq .malformed`,
		Short: "Check directories, permissions, index health and documents",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return doctorRun(cmd, f, opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print JSON")
	return cmd
}

func doctorRun(cmd *cobra.Command, f *Factory, opts *DoctorOptions) error {
	c, err := f.Config()
	if err != nil {
		return err
	}
	rep := doctor.Run(cmd.Context(), c, f.RebuildNotice())
	if opts.JSON {
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
}
