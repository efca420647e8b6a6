package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/reflectkb/reflect/store"
)

// NewCmdForget builds `reflect forget`.
func NewCmdForget(f *Factory) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "forget ID",
		Short: "Delete a learning, its entities and its index entries",
		Args:  exactArgs(1, "one learning id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ix, err := f.OpenIndex(cmd.Context(), false, f.WaitNotice())
			if err != nil {
				return err
			}
			defer ix.Close()
			if err := ix.Forget(cmd.Context(), args[0]); err != nil {
				if errors.Is(err, store.ErrNotFound) {
					return fmt.Errorf("no learning %q; find ids with 'reflect list' or 'reflect search'", args[0])
				}
				if err := f.notIndexedYet(err, "deleted "+args[0]+", still in the index"); err != nil {
					return err
				}
			}
			if asJSON {
				return printJSON(f.IO.Out, map[string]any{"id": args[0], "forgotten": true})
			}
			fmt.Fprintf(f.IO.Out, "Forgot %s.\n", args[0])
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}
