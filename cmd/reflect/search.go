package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/reflectkb/reflect/index"
)

// SearchOptions are the inputs of `reflect search`.
type SearchOptions struct {
	IO      *Streams
	Query   string
	Limit   int
	Project string
	JSON    bool
	Explain bool
}

// NewCmdSearch builds `reflect search`.
func NewCmdSearch(f *Factory) *cobra.Command {
	opts := &SearchOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "search QUERY...",
		Short: "Find learnings by free text",
		Long: `Search ranks learnings by the words of QUERY (BM25 over title, key insight,
tags and body, weighted in that order) and by code-like tokens matched as
substrings (paths, flags, error codes). Operators and quotes in QUERY are
searched as plain words.`,
		Example: `  reflect search oauth state mismatch
  reflect search -- -fPIC relocation
  reflect search --json --limit 3 "SameSite cookie"`,
		Args: func(cmd *cobra.Command, args []string) error {
			if strings.TrimSpace(strings.Join(args, " ")) == "" {
				return usagef("search needs a query, e.g. reflect search oauth cookie")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Query = strings.Join(args, " ")
			if opts.Limit < 1 || opts.Limit > 1000 {
				return usagef("--limit must be between 1 and 1000")
			}
			ix, err := f.OpenIndex(cmd.Context(), true)
			if err != nil {
				return err
			}
			defer ix.Close()
			results, err := ix.Search(cmd.Context(), index.Query{Text: opts.Query, Limit: opts.Limit, Project: opts.Project})
			if err != nil {
				return err
			}
			return searchOutput(opts, results)
		},
	}
	cmd.Flags().IntVarP(&opts.Limit, "limit", "n", 10, "how many results at most")
	cmd.Flags().StringVar(&opts.Project, "project", "", "rank this project's learnings first")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print JSON")
	cmd.Flags().BoolVar(&opts.Explain, "explain", false, "show how each result was scored")
	return cmd
}

func searchOutput(opts *SearchOptions, results []index.Result) error {
	if opts.JSON {
		if results == nil {
			results = []index.Result{}
		}
		return printJSON(opts.IO.Out, map[string]any{"query": opts.Query, "results": results})
	}
	out := opts.IO.Out
	if len(results) == 0 {
		if len(index.Terms(opts.Query)) == 0 && len(index.Identifiers(opts.Query)) == 0 {
			fmt.Fprintln(out, "No results: the query has no words to search for.")
		} else {
			fmt.Fprintln(out, "No learnings match. Try fewer or other words, or 'reflect list' to see what there is.")
		}
		return nil
	}
	for i, r := range results {
		fmt.Fprintf(out, "%d. %s  [%s]\n   %s\n", i+1, oneLine(r.Title), r.Confidence, r.ID)
		if r.Snippet != "" {
			fmt.Fprintf(out, "   %s\n", oneLine(r.Snippet))
		}
		if opts.Explain {
			fmt.Fprintf(out, "   why: %s\n", explain(r.Why))
		}
	}
	return nil
}

func explain(w index.Why) string {
	rank := func(n int) string {
		if n == 0 {
			return "-"
		}
		return fmt.Sprintf("#%d", n)
	}
	return fmt.Sprintf("lexical %s (bm25 %.2f, %d terms) · trigram %s · fused %.4f × confidence %.2f × scope %.2f",
		rank(w.LexicalRank), w.BM25, w.MatchedTerms, rank(w.TrigramRank), w.Fused, w.Confidence, w.Scope)
}
