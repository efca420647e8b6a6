package main

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/reflectkb/reflect/index/graph"
	"github.com/reflectkb/reflect/store"
)

// GraphOptions are the inputs of `reflect graph`.
type GraphOptions struct {
	IO        *Streams
	JSON      bool
	Type      string
	Community int
	Sort      string
	Limit     int
}

// graphSorts are the orders --sort accepts, in the order help lists them.
var graphSorts = []string{graph.ByDocuments, graph.ByDegree, graph.ByName, graph.ByCommunity}

// NewCmdGraph builds `reflect graph`; runF, when not nil, runs instead
// with the parsed options.
func NewCmdGraph(f *Factory, runF func(*GraphOptions) error) *cobra.Command {
	opts := &GraphOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "graph",
		Short: "List the entities of the knowledge graph",
		Long: `Graph lists the entities the index knows (files, errors, tools, libraries,
config keys, functions, concepts) with the number of learnings that mention
each, its degree (how many other entities it is related to) and its
community (a cluster of closely related entities, numbered from 1 by size).
Entities come from each learning's entities sidecar, or are extracted from
its text; communities are computed by 'reflect reindex'.`,
		Example: `  reflect graph
  reflect graph --type error --sort degree
  reflect graph --community 1 --limit 0
  reflect graph --json`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !slices.Contains(graphSorts, opts.Sort) {
				return usagef("--sort must be one of %s, not %q", strings.Join(graphSorts, ", "), opts.Sort)
			}
			// A misspelt type would otherwise list nothing, as if there
			// were no such entities.
			if opts.Type != "" && !slices.Contains(store.EntityTypes, opts.Type) {
				return usagef("--type must be one of %s, not %q", strings.Join(store.EntityTypes, ", "), opts.Type)
			}
			if opts.Limit < 0 {
				return usagef("--limit must be a number of entities, or 0 for all")
			}
			if opts.Community < 0 {
				return usagef("--community must be a community number (1 and up)")
			}
			if runF != nil {
				return runF(opts)
			}
			return graphRun(cmd, f, opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print JSON")
	cmd.Flags().StringVar(&opts.Type, "type", "", "only entities of this type: "+strings.Join(store.EntityTypes, ", "))
	cmd.Flags().IntVar(&opts.Community, "community", 0, "only entities of this community")
	cmd.Flags().StringVar(&opts.Sort, "sort", graph.ByDocuments, "order: "+strings.Join(graphSorts, ", "))
	cmd.Flags().IntVarP(&opts.Limit, "limit", "n", 50, "how many entities at most (0: all)")
	_ = cmd.RegisterFlagCompletionFunc("type", completeValues(store.EntityTypes...))
	_ = cmd.RegisterFlagCompletionFunc("sort", completeValues(graphSorts...))
	return cmd
}

func graphRun(cmd *cobra.Command, f *Factory, opts *GraphOptions) error {
	ix, err := f.OpenIndex(cmd.Context(), true)
	if err != nil {
		return err
	}
	defer ix.Close()
	lo := graph.ListOptions{Type: opts.Type, Community: opts.Community, Sort: opts.Sort}
	if opts.Limit > 0 {
		// One more than asked says whether the list was cut.
		lo.Limit = opts.Limit + 1
	}
	ents, err := ix.Entities(cmd.Context(), lo)
	if err != nil {
		return err
	}
	more := opts.Limit > 0 && len(ents) > opts.Limit
	if more {
		ents = ents[:opts.Limit]
	}
	return graphOutput(opts, ents, more)
}

func graphOutput(opts *GraphOptions, ents []graph.EntityInfo, more bool) error {
	if opts.JSON {
		if ents == nil {
			ents = []graph.EntityInfo{}
		}
		return printJSON(opts.IO.Out, map[string]any{"entities": ents})
	}
	out := opts.IO.Out
	if len(ents) == 0 {
		if opts.Type != "" || opts.Community != 0 {
			fmt.Fprintln(out, "No entities match; 'reflect graph' without --type or --community lists them all.")
		} else {
			fmt.Fprintln(out, "The graph has no entities yet: add learnings ('reflect add', or let the hooks capture sessions), then run 'reflect reindex'.")
		}
		return nil
	}
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ENTITY\tTYPE\tLEARNINGS\tDEGREE\tCOMMUNITY")
	unassigned := false
	for _, e := range ents {
		community := "-"
		if e.Community > 0 {
			community = strconv.Itoa(e.Community)
		} else {
			unassigned = true
		}
		// Tabs in a name would break the columns; oneLine folds them.
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\n", oneLine(e.Name), e.Type, e.Documents, e.Degree, community)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if more {
		fmt.Fprintf(out, "(first %d shown; --limit 0 lists all)\n", opts.Limit)
	}
	if unassigned {
		fmt.Fprintln(opts.IO.Err, "reflect: entities marked - have no community yet; run 'reflect reindex' to compute communities")
	}
	return nil
}
