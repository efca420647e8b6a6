package main

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/reflectkb/reflect/importer"
	"github.com/reflectkb/reflect/knowledge"
)

// ImportOptions are the inputs of `reflect import`.
type ImportOptions struct {
	Paths             []string
	From              []string
	All, DryRun, JSON bool
	Cwd               string
}

// importReport is what --json prints.
type importReport struct {
	DryRun    bool                 `json:"dry_run"`
	Sources   []importer.Source    `json:"sources"`
	Learnings []knowledge.Imported `json:"learnings"`
	Added     int                  `json:"added"`
	Updated   int                  `json:"updated"`
	Unchanged int                  `json:"unchanged"`
	Merged    int                  `json:"merged"`
}

// NewCmdImport builds `reflect import`; runF, when not nil, runs instead
// with the parsed options.
func NewCmdImport(f *Factory, runF func(*ImportOptions) error) *cobra.Command {
	opts := &ImportOptions{}
	cmd := &cobra.Command{
		Use:   "import [PATH...]",
		Short: "Import the rules of CLAUDE.md, AGENTS.md, Cursor rules and the agents' memories",
		Long: `Import turns the instruction and memory files you already keep into
learnings, one per rule (a top-level list item) or section (a heading with
no list under it), of type rule, whose source names the file and line.

Without PATH it reads the current repository's CLAUDE.md, .claude/CLAUDE.md,
CLAUDE.local.md, .claude/rules/*.md, AGENTS.md, GEMINI.md,
.github/copilot-instructions.md, .cursorrules, .cursor/rules/*.mdc and
memory-bank/*.md, and Claude Code's auto memory for the repository
(~/.claude/projects/<repository path>/memory/*.md). --all adds every
project's Claude Code memory and Codex's memory handbook
(~/.codex/memories/MEMORY.md).
--from limits the sources to the kinds named (repeat it or separate with
commas). A PATH is a file (its kind follows its name) or a directory.

Rules of a repository file are scoped to its project; the agents' memories
stay on this machine (private). Importing again adds nothing: a rule
imported before is unchanged, one that moved is updated, and one that says
nearly the same as an existing learning is merged into it (not repeated).
The sources are never changed; import says which changed since the last
import (their hashes are kept in the state directory, imports.json).
A file that is missing, unreadable, not a regular file or over 4 MiB, and
a Cursor rule with malformed front matter, is skipped with a line saying
why; the others are imported, and the exit status is 1.

The hooks do not inject a rule into an agent that loads its file itself
(CLAUDE.md into Claude Code, AGENTS.md into Codex, GEMINI.md into Gemini
CLI); the other agents and search get it.`,
		Example: `  reflect import --dry-run
  reflect import
  reflect import --from agents,cursor
  reflect import --all --from claude-memory
  reflect import ../other-repo/AGENTS.md --json`,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Paths = args
			if cwd, err := os.Getwd(); err == nil {
				opts.Cwd = cwd
			}
			var kinds []importer.Kind
			for _, v := range opts.From {
				k, err := importer.ParseKind(v)
				if err != nil {
					return usagef("--from: %v", err)
				}
				kinds = append(kinds, k)
			}
			if runF != nil {
				return runF(opts)
			}
			return importRun(cmd, f, opts, kinds)
		},
	}
	fl := cmd.Flags()
	fl.StringSliceVar(&opts.From, "from", nil, "only these sources: "+kindNames())
	fl.BoolVar(&opts.All, "all", false, "also every project's Claude Code memory and Codex's memories")
	fl.BoolVarP(&opts.DryRun, "dry-run", "n", false, "list what would be imported; write nothing")
	fl.BoolVar(&opts.JSON, "json", false, "print JSON")
	_ = cmd.RegisterFlagCompletionFunc("from", completeValues(kindStrings()...))
	return cmd
}

func kindStrings() []string {
	out := make([]string, len(importer.Kinds))
	for i, k := range importer.Kinds {
		out[i] = string(k)
	}
	return out
}

func kindNames() string {
	s := ""
	for i, k := range kindStrings() {
		if i > 0 {
			s += ", "
		}
		s += k
	}
	return s
}

func importRun(cmd *cobra.Command, f *Factory, opts *ImportOptions, kinds []importer.Kind) error {
	ctx := cmd.Context()
	c, err := f.Config()
	if err != nil {
		return err
	}
	now := time.Now()
	st, serr := importer.LoadState(c.StateDir)
	if serr != nil {
		fmt.Fprintf(f.IO.Err, "reflect: %v\n", serr)
	}
	plan, err := importer.Collect(ctx, importer.Options{
		Cwd: opts.Cwd, Paths: opts.Paths, Kinds: kinds, All: opts.All, Now: now,
		Dirs: importer.Dirs{Home: c.Agents.Home, Claude: c.Agents.Claude, Codex: c.Agents.Codex},
	}, st)
	if errors.Is(err, importer.ErrNoProject) {
		return usagef("%v", err)
	}
	if err != nil {
		return err
	}
	rep := importReport{DryRun: opts.DryRun, Sources: plan.Sources, Learnings: []knowledge.Imported{}}
	if len(plan.Learnings) > 0 {
		ix, err := f.OpenIndex(ctx, false, f.WaitNotice())
		if err != nil {
			return err
		}
		defer ix.Close()
		rep.Learnings, err = knowledge.New(ix).Import(ctx, plan.Learnings, opts.DryRun, now)
		if err != nil {
			if err = f.notIndexedYet(err, "imported learnings saved"); err != nil {
				return err
			}
		}
	}
	for _, l := range rep.Learnings {
		switch l.Action {
		case knowledge.ImportAdded:
			rep.Added++
		case knowledge.ImportUpdated:
			rep.Updated++
		case knowledge.ImportUnchanged:
			rep.Unchanged++
		case knowledge.ImportMerged:
			rep.Merged++
		}
	}
	if !opts.DryRun {
		st.Record(plan.Sources, now)
		if err := st.Save(c.StateDir); err != nil {
			fmt.Fprintf(f.IO.Err, "reflect: could not record what was imported (%v): the next import cannot say which sources changed\n", err)
		}
	}
	failed := 0
	for _, s := range plan.Sources {
		if s.Error != "" {
			failed++
			fmt.Fprintf(f.IO.Err, "reflect: %s\n", oneLine(s.Error))
		}
	}
	if opts.JSON {
		if err := printJSON(f.IO.Out, rep); err != nil {
			return err
		}
	} else {
		printImport(f, rep)
	}
	if failed > 0 {
		return quietError{fmt.Errorf("%s skipped", countOf(failed, "source"))}
	}
	return nil
}

func printImport(f *Factory, rep importReport) {
	w := f.IO.Out
	if len(rep.Sources) == 0 {
		fmt.Fprintln(w, "No instruction or memory files found (see 'reflect import --help' for where import looks).")
		return
	}
	for _, s := range rep.Sources {
		if s.Error != "" || s.Path == "" {
			continue
		}
		note := ""
		if s.Changed {
			note = "  (changed since the last import)"
		}
		fmt.Fprintf(w, "%s  %s, %s%s\n", oneLine(s.Name), s.Kind, countOf(s.Rules, "rule"), note)
	}
	mark := map[string]string{knowledge.ImportAdded: "+", knowledge.ImportUpdated: "~", knowledge.ImportMerged: "="}
	for _, l := range rep.Learnings {
		m, ok := mark[l.Action]
		if !ok {
			continue
		}
		line := fmt.Sprintf("%s %s  (%s:%d)", m, oneLine(l.Title), oneLine(l.File), l.Line)
		if l.Action == knowledge.ImportMerged {
			line += "  same as " + l.DuplicateOf
		}
		fmt.Fprintln(w, line)
	}
	verb := "Imported"
	if rep.DryRun {
		verb = "Would import"
	}
	fmt.Fprintf(w, "%s: %d added, %d updated, %d unchanged, %d merged into existing learnings\n",
		verb, rep.Added, rep.Updated, rep.Unchanged, rep.Merged)
}
