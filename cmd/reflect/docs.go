package main

import (
	"fmt"
	"os"

	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/reflectkb/reflect/internal/manpage"
)

// NewCmdDocs builds `reflect docs`: man pages (or markdown) for every
// command, generated from the same help text the commands print.
func NewCmdDocs(f *Factory) *cobra.Command {
	var manDir, mdDir string
	cmd := &cobra.Command{
		Use:   "docs (--man DIR | --markdown DIR)",
		Short: "Write man pages or markdown for every command",
		Long: `Docs writes one page per command, from the help text the commands print:
man pages (section 1) with --man, markdown with --markdown. DIR is created
when missing.`,
		Example: `  reflect docs --man ~/.local/share/man/man1 && man reflect
  reflect docs --markdown docs/commands`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if (manDir == "") == (mdDir == "") {
				return usagef("docs needs exactly one of --man DIR or --markdown DIR")
			}
			root := cmd.Root()
			root.DisableAutoGenTag = true
			dir := manDir + mdDir
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return err
			}
			var err error
			if manDir != "" {
				var date time.Time
				if date, err = manDate(f.Getenv("SOURCE_DATE_EPOCH")); err == nil {
					err = manpage.ManTree(root, manpage.Header{Title: "REFLECT", Section: "1", Date: date, Source: "reflect " + version}, dir)
				}
			} else {
				err = manpage.MarkdownTree(root, dir)
			}
			if err != nil {
				return fmt.Errorf("write pages to %s: %w", dir, err)
			}
			fmt.Fprintf(f.IO.Out, "Wrote the pages to %s\n", dir)
			return nil
		},
	}
	cmd.Flags().StringVar(&manDir, "man", "", "write man pages to this directory")
	cmd.Flags().StringVar(&mdDir, "markdown", "", "write markdown to this directory")
	_ = cmd.MarkFlagDirname("man")
	_ = cmd.MarkFlagDirname("markdown")
	return cmd
}

// manDate is the date man pages carry: now, or SOURCE_DATE_EPOCH for a
// reproducible build (as cobra/doc reads it).
func manDate(epoch string) (time.Time, error) {
	if epoch == "" {
		return time.Now(), nil
	}
	sec, err := strconv.ParseInt(epoch, 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("invalid SOURCE_DATE_EPOCH: %v", err)
	}
	return time.Unix(sec, 0), nil
}
