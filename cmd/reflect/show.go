package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/spf13/cobra"

	"github.com/reflectkb/reflect/index"
	"github.com/reflectkb/reflect/index/graph"
	"github.com/reflectkb/reflect/internal/redact"
	"github.com/reflectkb/reflect/internal/safetext"
	"github.com/reflectkb/reflect/knowledge"
	"github.com/reflectkb/reflect/store"
)

// showRelated is how many related learnings show lists: enough to find
// the neighbours worth reading, few enough to read at a glance.
const showRelated = 5

// ShowOptions are the inputs of `reflect show`.
type ShowOptions struct {
	Ref  string // the id as given: full, a prefix or the 6-hex tail
	JSON bool
}

// NewCmdShow builds `reflect show`; runF, when not nil, runs instead with
// the parsed options.
func NewCmdShow(f *Factory, runF func(*ShowOptions) error) *cobra.Command {
	opts := &ShowOptions{}
	cmd := &cobra.Command{
		Use: "show ID",
		Example: `  reflect show 3f9a1c
  reflect show lrn-oauth-state
  reflect show --json 3f9a1c`,
		ValidArgsFunction: completeLearningIDs(f),
		Short:             "Print one learning, its entities and related learnings",
		Long: `Show prints the learning's file as written (secrets redacted, terminal
escapes removed), then its entities as the index knows them (with their
community, see 'reflect graph') and the learnings that share entities with
it, rarest shared entity first. A learning in a supersession chain lists the
learnings that supersede it and those it supersedes; its marks ('reflect
mark') are counted, and a learning the hooks do not inject says why. ID may
be the full id, any unique prefix of it (with or without "lrn-"), or its
6-hex tail. A file that is not a regular file (a symbolic link, a FIFO) or
is over 1 MiB is refused, not read.`,
		Args: exactArgs(1, "one learning id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Ref = args[0]
			if runF != nil {
				return runF(opts)
			}
			return showRun(cmd.Context(), f, opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print JSON")
	return cmd
}

// showGraph reads the learning's entities and related learnings from the
// index, and the drafts awaiting review that would supersede it. The file
// is the source of truth and is shown regardless: an index that cannot be
// opened, or that does not hold the learning yet, is a note on stderr, not
// a failure. The index is not refreshed first, since show reads and should
// not write while a drain may be indexing; the note says how to catch up
// instead.
func showGraph(ctx context.Context, f *Factory, id string) (g shownGraph) {
	ix, err := f.OpenIndex(ctx, false)
	if err != nil {
		fmt.Fprintf(f.IO.Err, "reflect: no entities or related learnings: %v\n", err)
		return g
	}
	defer ix.Close()
	g.pendingBy, _ = knowledge.New(ix).PendingSupersessors(ctx, id)
	ents, related, err := ix.Related(ctx, id, showRelated)
	switch {
	case errors.Is(err, index.ErrNotIndexed):
		fmt.Fprintf(f.IO.Err, "reflect: %s is not indexed yet: run 'reflect reindex'\n", id)
		return g
	case err != nil:
		fmt.Fprintf(f.IO.Err, "reflect: no entities or related learnings: %v\n", err)
		return g
	}
	g.ents, g.related, g.indexed = ents, related, true
	return g
}

// shownGraph is what show reads from the index about a learning.
type shownGraph struct {
	ents    []graph.EntityInfo
	related []index.RelatedLearning
	indexed bool
	// pendingBy are the drafts awaiting review that would supersede it.
	pendingBy []string
}

// showRun prints one learning: its file as written, redacted, then its
// supersession chain, entities and related learnings (or all of it as JSON).
func showRun(ctx context.Context, f *Factory, opts *ShowOptions) error {
	c, err := f.Config()
	if err != nil {
		return err
	}
	st := store.Open(c.DocumentsDir())
	id, err := f.resolveLearning(opts.Ref)
	if err != nil {
		return err
	}
	l, err := st.Read(id)
	if errors.Is(err, store.ErrNotFound) {
		return learningRefError(opts.Ref, err)
	}
	var de *store.DocError
	if errors.As(err, &de) {
		return fmt.Errorf("%w\nfix the file, or remove it with 'reflect forget %s'", err, id)
	}
	if err != nil {
		return err
	}
	sc, err := st.ReadSidecarOf(l)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		fmt.Fprintf(f.IO.Err, "reflect: %v\n", err)
	}
	if sc != nil {
		sc.Redact()
	}
	g := showGraph(ctx, f, l.ID)
	ents, related, indexed := g.ents, g.related, g.indexed
	control := chainOf(st, l)
	control.PendingSupersededBy = g.pendingBy
	if opts.JSON {
		l.RedactRead()
		if ents == nil {
			ents = []graph.EntityInfo{}
		}
		if related == nil {
			related = []index.RelatedLearning{}
		}
		return printJSON(f.IO.Out, map[string]any{"learning": l, "entities": sc,
			"indexed": indexed, "graph_entities": ents, "related": related, "control": control})
	}
	// The file as written, read again by the same bounded reader
	// (it may have been swapped since), redacted: a synced or
	// hand-edited file never went through the redactor on write.
	data, err := st.ReadRaw(l.ID)
	if err != nil {
		return err
	}
	out := f.IO.Out
	fmt.Fprintf(out, "%s\n", safetext.Terminal(redact.String(string(data))))
	printChain(out, control)
	switch {
	case indexed && len(ents) > 0:
		fmt.Fprintln(out, "Entities:")
		for _, e := range ents {
			if e.Community > 0 {
				fmt.Fprintf(out, "  - %s (%s, community %d)\n", oneLine(e.Name), e.Type, e.Community)
			} else {
				fmt.Fprintf(out, "  - %s (%s)\n", oneLine(e.Name), e.Type)
			}
		}
	case !indexed && sc != nil && len(sc.Entities) > 0:
		// Not indexed yet: the sidecar is all there is to say.
		fmt.Fprintln(out, "Entities:")
		for _, e := range sc.Entities {
			fmt.Fprintf(out, "  - %s (%s)\n", oneLine(e.Name), e.Type)
		}
	}
	if len(related) > 0 {
		fmt.Fprintln(out, "Related:")
		for _, r := range related {
			fmt.Fprintf(out, "  - %s  %s  (shares %s)\n", r.ID, oneLine(r.Title), strings.Join(r.Shared, ", "))
		}
	}
	return nil
}
