package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/spf13/cobra"

	"github.com/reflectkb/reflect/store"
)

// NewCmdShow builds `reflect show`.
func NewCmdShow(f *Factory) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "show ID",
		Short: "Print one learning and its entities",
		Args:  exactArgs(1, "one learning id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := f.Config()
			if err != nil {
				return err
			}
			st := store.Open(c.DocumentsDir())
			l, err := st.Read(args[0])
			if errors.Is(err, store.ErrNotFound) {
				return fmt.Errorf("no learning %q; find ids with 'reflect list' or 'reflect search'", args[0])
			}
			var de *store.DocError
			if errors.As(err, &de) {
				return fmt.Errorf("%w\nfix the file, or remove it with 'reflect forget %s'", err, args[0])
			}
			if err != nil {
				return err
			}
			sc, err := st.ReadSidecar(l.ID)
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				fmt.Fprintf(f.IO.Err, "reflect: %v\n", err)
			}
			if asJSON {
				return printJSON(f.IO.Out, map[string]any{"learning": l, "entities": sc})
			}
			data, err := os.ReadFile(l.Path)
			if err != nil {
				return err
			}
			fmt.Fprintf(f.IO.Out, "%s\n", data)
			if sc != nil && len(sc.Entities) > 0 {
				fmt.Fprintln(f.IO.Out, "Entities:")
				for _, e := range sc.Entities {
					fmt.Fprintf(f.IO.Out, "  - %s (%s)\n", e.Name, e.Type)
				}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}
