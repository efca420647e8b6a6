package main

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/reflectkb/reflect/knowledge"
	"github.com/reflectkb/reflect/store"
)

// ForgetOptions are the inputs of `reflect forget`.
type ForgetOptions struct {
	Refs              []string // the ids as given
	Yes, DryRun, JSON bool
}

// NewCmdForget builds `reflect forget`; runF, when not nil, runs instead
// with the parsed options.
func NewCmdForget(f *Factory, runF func(*ForgetOptions) error) *cobra.Command {
	opts := &ForgetOptions{}
	cmd := &cobra.Command{
		Use:   "forget ID...",
		Short: "Delete learnings, their entities and their index entries",
		Long: `Forget deletes each learning's file and entity sidecar and takes it out of
the index. An ID may be the full id, any unique prefix of it (with or
without "lrn-"), or its 6-hex tail as 'reflect list' shows it.

Forgetting cannot be undone (unless documents/ is under version control):
on a terminal forget lists what it will delete and asks first; elsewhere
(scripts, agents) it refuses unless --yes is given. --dry-run only lists.
All ids are resolved before anything is deleted: one unknown or ambiguous
id deletes nothing.

A learning the forgotten one superseded is active again, unless the
forgotten one had been superseded in its turn: in X → A → B, forgetting A
leaves X superseded, now by B (forget says so; --json: "joined").`,
		Example: `  reflect forget 3f9a1c
  reflect forget --dry-run lrn-oauth
  reflect forget --yes 3f9a1c b41d07`,
		Args:              minArgs(1, "at least one learning id"),
		ValidArgsFunction: completeLearningIDs(f),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Refs = args
			if runF != nil {
				return runF(opts)
			}
			var ids []string
			seen := map[string]bool{}
			for _, ref := range opts.Refs {
				id, err := f.resolveLearning(ref)
				if err != nil {
					return err
				}
				if !seen[id] {
					seen[id] = true
					ids = append(ids, id)
				}
			}
			if opts.DryRun {
				return forgetPreview(f, f.IO.Out, ids, opts.JSON)
			}
			if !opts.Yes {
				if !f.IO.InTTY {
					return usagef("refusing to forget %s without --yes: stdin is not a terminal to confirm on (--dry-run shows what would go)", countOf(len(ids), "learning"))
				}
				if err := forgetPreview(f, f.IO.Err, ids, false); err != nil {
					return err
				}
				if !confirm(f.IO, fmt.Sprintf("Forget %s? [y/N] ", countOf(len(ids), "learning"))) {
					fmt.Fprintln(f.IO.Err, "Nothing forgotten.")
					return nil
				}
			}
			ix, err := f.OpenIndex(cmd.Context(), false, f.WaitNotice())
			if err != nil {
				return err
			}
			defer ix.Close()
			res, err := knowledge.New(ix).ForgetAll(cmd.Context(), ids...)
			if err != nil {
				if err := f.notIndexedYet(err, "deleted "+strings.Join(ids, ", ")+", still in the index"); err != nil {
					return err
				}
			}
			if opts.JSON {
				joined := res.Joined
				if joined == nil {
					joined = []knowledge.Joined{}
				}
				return printJSON(f.IO.Out, map[string]any{"ids": ids, "forgotten": true, "joined": joined})
			}
			for _, id := range ids {
				fmt.Fprintf(f.IO.Out, "Forgot %s.\n", id)
			}
			for _, j := range res.Joined {
				fmt.Fprintf(f.IO.Out, "%s stays superseded, now by %s.\n", j.Superseded, j.By)
			}
			return nil
		},
	}
	cmd.Flags().BoolVarP(&opts.Yes, "yes", "y", false, "do not ask for confirmation")
	cmd.Flags().BoolVarP(&opts.DryRun, "dry-run", "n", false, "only list what would be forgotten")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print JSON")
	return cmd
}

// forgetPreview lists the learnings about to be forgotten: on stdout for
// --dry-run (it is the command's output), on stderr before the prompt.
func forgetPreview(f *Factory, w io.Writer, ids []string, asJSON bool) error {
	if asJSON {
		return printJSON(f.IO.Out, map[string]any{"ids": ids, "forgotten": false, "dry_run": true})
	}
	c, err := f.Config()
	if err != nil {
		return err
	}
	st := store.Open(c.DocumentsDir())
	for _, id := range ids {
		title := "(malformed document)"
		if l, err := st.Read(id); err == nil {
			title = oneLine(l.Title)
		}
		fmt.Fprintf(w, "Would forget %s  %s\n", id, title)
	}
	return nil
}

// confirm asks a yes/no question on stderr and reads the answer from
// stdin; only y or yes (any case) is a yes.
func confirm(s *Streams, question string) bool {
	fmt.Fprint(s.Err, question)
	line, _ := bufio.NewReader(s.In).ReadString('\n')
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return true
	}
	return false
}

// countOf says "1 learning", "2 learnings".
func countOf(n int, noun string) string {
	return fmt.Sprintf("%d %s", n, plural(n, noun, noun+"s"))
}

// entries says "1 entry", "2 entries".
func entries(n int) string {
	return fmt.Sprintf("%d %s", n, plural(n, "entry", "entries"))
}
