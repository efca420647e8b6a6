package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/reflectkb/reflect/importer"
	"github.com/reflectkb/reflect/internal/gitrepo"
	"github.com/reflectkb/reflect/internal/safetext"
	"github.com/reflectkb/reflect/internal/udiff"
	"github.com/reflectkb/reflect/recall"
	"github.com/reflectkb/reflect/store"
)

// PromoteOptions are the inputs of `reflect promote` and `reflect demote`.
type PromoteOptions struct {
	Refs         []string
	File         string // --to (promote) or --from (demote)
	Branch       string
	Suggest      bool
	DryRun, JSON bool
	Cwd          string
	demote       bool
	suggestLimit int
}

// promoteReport is what --json prints.
type promoteReport struct {
	File    string   `json:"file"`
	Changed []string `json:"changed"` // ids added (promote) or removed (demote)
	Diff    string   `json:"diff,omitempty"`
	DryRun  bool     `json:"dry_run"`
	Branch  string   `json:"branch,omitempty"`
}

// NewCmdPromote builds `reflect promote`; runF, when not nil, runs instead
// with the parsed options.
func NewCmdPromote(f *Factory, runF func(*PromoteOptions) error) *cobra.Command {
	opts := &PromoteOptions{suggestLimit: 10}
	cmd := &cobra.Command{
		Use:   "promote ID... [--to FILE]",
		Short: "Write learnings into the repository's AGENTS.md, CLAUDE.md or another instruction file",
		Long: `Promote writes one short line per learning — its title and key insight,
sourced with its id — into an instruction file of the repository around the
current directory (AGENTS.md unless --to names another: CLAUDE.md,
GEMINI.md, .github/copilot-instructions.md…), so every agent and every
teammate gets it. The lines go in a section reflect manages, between
<!-- reflect:begin … --> and <!-- reflect:end --> (added at the end of the
file the first time); every line outside it is kept as it is. A learning
promoted before is not written twice. 'reflect demote ID' removes a line.

--dry-run prints the diff and writes nothing. --branch NAME creates the
branch, switches to it and commits the file there (with the system git),
ready for a pull request. --suggest lists the learnings that earned it:
this project's, high confidence, injected into at least two sessions,
and not promoted yet.`,
		Example: `  reflect promote --suggest
  reflect promote 3f9a1c b41d07 --dry-run
  reflect promote 3f9a1c --to CLAUDE.md
  reflect promote 3f9a1c --branch reflect/promote-oauth`,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Refs = args
			switch {
			case opts.Suggest && len(args) > 0:
				return usagef("--suggest lists candidates; give it no ids")
			case !opts.Suggest && len(args) == 0:
				return usagef("promote needs at least one learning id (or --suggest to list candidates)")
			case opts.Suggest && opts.Branch != "":
				return usagef("--branch commits a promotion; --suggest only lists")
			}
			if cwd, err := os.Getwd(); err == nil {
				opts.Cwd = cwd
			}
			if runF != nil {
				return runF(opts)
			}
			return promoteRun(cmd, f, opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.File, "to", "AGENTS.md", "the instruction file, relative to the repository's root")
	fl.StringVar(&opts.Branch, "branch", "", "create this branch and commit the change on it")
	fl.BoolVar(&opts.Suggest, "suggest", false, "list learnings worth promoting")
	fl.BoolVarP(&opts.DryRun, "dry-run", "n", false, "print the diff; write nothing")
	fl.BoolVar(&opts.JSON, "json", false, "print JSON")
	return cmd
}

// NewCmdDemote builds `reflect demote`.
func NewCmdDemote(f *Factory, runF func(*PromoteOptions) error) *cobra.Command {
	opts := &PromoteOptions{demote: true}
	cmd := &cobra.Command{
		Use:   "demote ID... [--from FILE]",
		Short: "Remove promoted learnings from the repository's instruction file",
		Long: `Demote removes the lines 'reflect promote' wrote for the learnings from the
reflect section of an instruction file (AGENTS.md unless --from names
another), and the section itself once it is empty. Lines outside the
section are never touched; the learnings stay in the knowledge base.`,
		Example: `  reflect demote 3f9a1c
  reflect demote 3f9a1c --from CLAUDE.md --dry-run`,
		Args: minArgs(1, "at least one learning id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Refs = args
			if cwd, err := os.Getwd(); err == nil {
				opts.Cwd = cwd
			}
			if runF != nil {
				return runF(opts)
			}
			return promoteRun(cmd, f, opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.File, "from", "AGENTS.md", "the instruction file, relative to the repository's root")
	fl.StringVar(&opts.Branch, "branch", "", "create this branch and commit the change on it")
	fl.BoolVarP(&opts.DryRun, "dry-run", "n", false, "print the diff; write nothing")
	fl.BoolVar(&opts.JSON, "json", false, "print JSON")
	return cmd
}

func promoteRun(cmd *cobra.Command, f *Factory, opts *PromoteOptions) error {
	ctx := cmd.Context()
	c, err := f.Config()
	if err != nil {
		return err
	}
	root := gitrepo.Root(opts.Cwd)
	if root == "" {
		return usagef("not inside a git repository: promote writes into a repository's instruction file")
	}
	target, err := importer.OpenTarget(root, opts.File)
	if err != nil {
		return err
	}
	st := store.Open(c.DocumentsDir())
	if opts.Suggest {
		sugg := importer.Suggest(st, gitrepo.Project(ctx, root), recall.SessionsInjected(c.StateDir), target.Content, opts.suggestLimit)
		return printSuggestions(f, opts, sugg, target.Name)
	}
	ids, ls, err := promoteLearnings(f, st, opts)
	if err != nil {
		return err
	}
	var out string
	var changed []string
	if opts.demote {
		out, changed, err = importer.Demote(target.Content, ids)
	} else {
		out, changed, err = importer.Promote(target.Content, ls)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", target.Name, err)
	}
	rep := promoteReport{File: target.Name, Changed: changed, DryRun: opts.DryRun, Branch: opts.Branch}
	if rep.Changed == nil {
		rep.Changed = []string{}
	}
	if opts.DryRun {
		rep.Diff = udiff.Unified("a/"+target.Name, "b/"+target.Name, []byte(target.Content), []byte(out))
		rep.Branch = ""
	}
	if len(changed) > 0 && !opts.DryRun {
		if opts.Branch != "" {
			if err := importer.CheckoutBranch(ctx, root, opts.Branch); err != nil {
				return err
			}
		}
		if err := target.Write(out); err != nil {
			return err
		}
		if opts.Branch != "" {
			verb := "Promote"
			if opts.demote {
				verb = "Demote"
			}
			msg := fmt.Sprintf("%s %s in %s\n\nWritten by reflect: %s", verb, countOf(len(changed), "learning"), target.Name, strings.Join(changed, ", "))
			if err := importer.Commit(ctx, root, target.Path, msg); err != nil {
				return err
			}
		}
	}
	if opts.JSON {
		return printJSON(f.IO.Out, rep)
	}
	if opts.DryRun {
		if len(changed) == 0 {
			fmt.Fprintf(f.IO.Out, "Nothing to change in %s.\n", target.Name)
			return nil
		}
		fmt.Fprint(f.IO.Out, safeDiff(rep.Diff))
		return nil
	}
	switch {
	case len(changed) == 0 && opts.demote:
		return fmt.Errorf("%s has no reflect line for %s", target.Name, strings.Join(ids, ", "))
	case len(changed) == 0:
		fmt.Fprintf(f.IO.Out, "Already in %s: nothing written.\n", target.Name)
	case opts.demote:
		fmt.Fprintf(f.IO.Out, "Removed %s from %s\n", countOf(len(changed), "line"), target.Name)
	default:
		fmt.Fprintf(f.IO.Out, "Promoted %s into %s\n", countOf(len(changed), "learning"), target.Name)
	}
	if opts.Branch != "" && len(changed) > 0 {
		fmt.Fprintf(f.IO.Out, "Committed on branch %s\n", opts.Branch)
	}
	return nil
}

// safeDiff keeps a diff of a user's file from carrying terminal escapes.
func safeDiff(d string) string { return safetext.Terminal(d) }

// printSuggestions shows promote --suggest's candidates, or says why there
// are none.
func printSuggestions(f *Factory, opts *PromoteOptions, sugg []importer.Suggestion, file string) error {
	if opts.JSON {
		if sugg == nil {
			sugg = []importer.Suggestion{}
		}
		return printJSON(f.IO.Out, sugg)
	}
	if len(sugg) == 0 {
		fmt.Fprintf(f.IO.Out, "No learning to suggest yet: none of this project's high-confidence learnings was recalled in %d sessions.\n", importer.MinRecalls)
		return nil
	}
	for _, s := range sugg {
		fmt.Fprintf(f.IO.Out, "%s  %s  %s\n", s.ID, countOf(s.Sessions, "session"), oneLine(s.Title))
	}
	fmt.Fprintf(f.IO.Out, "Promote with: reflect promote ID... --to %s\n", file)
	return nil
}

// promoteLearnings resolves the ids to promote or demote, and reads the
// learnings a promote writes. A demoted id need not resolve: its learning
// may be forgotten already.
func promoteLearnings(f *Factory, st *store.Store, opts *PromoteOptions) ([]string, []*store.Learning, error) {
	var ids []string
	var ls []*store.Learning
	for _, ref := range opts.Refs {
		id, err := f.resolveLearning(ref)
		if err != nil {
			if !opts.demote {
				return nil, nil, err
			}
			id = ref
		}
		ids = append(ids, id)
		if !opts.demote {
			l, err := st.Read(id)
			if err != nil {
				return nil, nil, err
			}
			ls = append(ls, l)
		}
	}
	return ids, ls, nil
}
