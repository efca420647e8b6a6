package main

import (
	"fmt"
	"os"

	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/reflectkb/reflect/internal/manpage"
)

// DocsOptions are the inputs of `reflect docs`.
type DocsOptions struct {
	IO                  *Streams
	ManDir, MarkdownDir string
	// Getenv reads SOURCE_DATE_EPOCH.
	Getenv func(string) string
}

// NewCmdDocs builds `reflect docs`: man pages (or markdown) for every
// command, generated from the same help text the commands print; runF,
// when not nil, runs instead with the parsed options.
func NewCmdDocs(f *Factory, runF func(*DocsOptions) error) *cobra.Command {
	opts := &DocsOptions{IO: f.IO, Getenv: f.Getenv}
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
			if (opts.ManDir == "") == (opts.MarkdownDir == "") {
				return usagef("docs needs exactly one of --man DIR or --markdown DIR")
			}
			if runF != nil {
				return runF(opts)
			}
			return docsRun(cmd.Root(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.ManDir, "man", "", "write man pages to this directory")
	cmd.Flags().StringVar(&opts.MarkdownDir, "markdown", "", "write markdown to this directory")
	_ = cmd.MarkFlagDirname("man")
	_ = cmd.MarkFlagDirname("markdown")
	return cmd
}

// docsRun writes the pages of root's command tree.
func docsRun(root *cobra.Command, opts *DocsOptions) error {
	root.DisableAutoGenTag = true
	dir := opts.ManDir + opts.MarkdownDir
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var err error
	if opts.ManDir != "" {
		var date time.Time
		if date, err = manDate(opts.Getenv("SOURCE_DATE_EPOCH")); err == nil {
			err = manpage.ManTree(root, manpage.Header{Title: "REFLECT", Section: "1", Date: date, Source: "reflect " + version}, dir)
		}
	} else {
		err = manpage.MarkdownTree(root, dir)
	}
	if err != nil {
		return fmt.Errorf("write pages to %s: %w", dir, err)
	}
	fmt.Fprintf(opts.IO.Out, "Wrote the pages to %s\n", dir)
	return nil
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
