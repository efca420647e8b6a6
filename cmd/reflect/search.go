package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/reflectkb/reflect/index"
	"github.com/reflectkb/reflect/internal/gitrepo"
	"github.com/reflectkb/reflect/store"
)

// SearchOptions are the inputs of `reflect search`.
type SearchOptions struct {
	IO      *Streams
	Query   string
	Limit   int
	Project string
	// ProjectSet says --project was given (even empty): it then replaces
	// the current directory's project.
	ProjectSet bool
	JSON       bool
	Explain    bool
	// Pending says whether drafts awaiting review are found (--all,
	// --pending); by default they are not.
	Pending index.PendingFilter
	// Color paints titles and the words that matched (a terminal's
	// default; see --color).
	Color bool
}

// NewCmdSearch builds `reflect search`. runF, when not nil, runs instead
// of the search with the parsed options (the seam tests use to check flag
// parsing without an index).
func NewCmdSearch(f *Factory, runF func(*SearchOptions) error) *cobra.Command {
	opts := &SearchOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "search QUERY...",
		Short: "Find learnings by free text",
		Long: `Search ranks learnings by four signals, fused by a weighted sum of their
scores, each scaled to 0..1 (see docs/ranking.md):
  lexical  BM25 over title, key insight, tags, symptoms and questions, and body,
           weighted in that order; over the best result's BM25, weight 1
  trigram  code-like tokens of QUERY (paths, flags, error codes) matched
           as substrings: the share of them a learning holds, weight 0.5
  vector   similarity of meaning, from the configured embedder
           (index.embedder; the default hash embedder needs no network
           and only breaks ties, a model embedder weighs 0.5)
  graph    learnings that mention the entities QUERY names, and their
           neighbours in the entity graph (see 'reflect graph'); it only
           breaks ties and lists what no other signal found last
The fused score is then multiplied by factors: confidence (high 1.0,
medium 0.8, low 0.55), scope (the current project's learnings first, other
projects' last), recency (newer learnings win near-ties) and freshness (a
learning citing a file that changed since is demoted and marked "may be
stale"), and helpful (×1.2 for a learning marked helpful; 'reflect mark').
A learning superseded by another, or marked wrong, outdated or never, is
listed with the reason the hooks do not inject it. A draft awaiting review
('reflect review') is found only with --pending (drafts only) or --all,
marked pending. The current project is the git repository around the current
directory (its origin remote's name, else the directory's); --project
names another. Factors reorder near-ties only: a result whose BM25 is at
least twice another's stays above it unless other signals fused it lower.
A result with under a fifth of the best result's BM25 (or found by trigram,
vector or graph alone beside word matches) is listed as a "(weak match)",
"weak": true in --json. --explain shows each signal's rank, raw and
normalised score, weight and share, the factors, and the marks.
Operators and quotes in QUERY are searched as plain words.`,
		Example: `  reflect search oauth state mismatch
  reflect search -- -fPIC relocation
  reflect search --explain --project auth-service "SameSite cookie"
  reflect search --json --limit 3 "SameSite cookie"`,
		Args: func(cmd *cobra.Command, args []string) error {
			if strings.TrimSpace(strings.Join(args, " ")) == "" {
				return usagef("search needs a query, e.g. reflect search oauth cookie")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Query = strings.Join(args, " ")
			opts.ProjectSet = cmd.Flags().Changed("project")
			var err error
			if opts.Pending, err = pendingFlags(cmd); err != nil {
				return err
			}
			if opts.Limit < 1 || opts.Limit > 1000 {
				return usagef("--limit must be between 1 and 1000")
			}
			if runF != nil {
				return runF(opts)
			}
			ix, err := f.OpenIndex(cmd.Context(), true)
			if err != nil {
				return err
			}
			defer ix.Close()
			results, err := ix.Search(cmd.Context(), searchQuery(cmd.Context(), opts))
			if err != nil {
				return err
			}
			opts.Color = f.Color()
			ids := make([]string, len(results))
			for i, r := range results {
				ids[i] = r.ID
			}
			return searchOutput(opts, results, shortener(cmd.Context(), ix, ids))
		},
	}
	cmd.Flags().IntVarP(&opts.Limit, "limit", "n", 10, "how many results at most")
	cmd.Flags().StringVar(&opts.Project, "project", "", "rank this project's learnings first (default: the current directory's project)")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print JSON")
	cmd.Flags().BoolVar(&opts.Explain, "explain", false, "show how each result was scored")
	addPendingFlags(cmd)
	return cmd
}

// searchQuery places the search in the current directory, as the hooks'
// recall does for a session: its project ranks first (ARCHITECTURE §5), and
// files that project's learnings cite are checked for changes under the
// repository's top directory, wherever in the tree the search runs. A
// directory that names no project ($HOME, /) checks relative cites nowhere.
func searchQuery(ctx context.Context, opts *SearchOptions) index.Query {
	q := index.Query{Text: opts.Query, Limit: opts.Limit, Project: opts.Project, Pending: opts.Pending}
	cwd, err := os.Getwd()
	if err != nil || gitrepo.SkipDir(cwd) != "" {
		return q
	}
	cwd = filepath.Clean(cwd)
	if q.Root = gitrepo.Root(cwd); q.Root == "" {
		q.Root = cwd
	}
	if !opts.ProjectSet {
		q.Project = gitrepo.Project(ctx, cwd)
	}
	return q
}

// searchResult is a result as `search --json` prints it: the index's
// result plus the short id the text output shows.
type searchResult struct {
	index.Result
	ShortID string `json:"short_id"`
}

// searchOutput prints the results. No result is exit status 1 with the
// hint on stderr, as grep and rg do, in JSON mode too (which still prints
// an empty list), so scripts can test for a match without parsing.
func searchOutput(opts *SearchOptions, results []index.Result, short func(string) string) error {
	if len(results) == 0 {
		if opts.JSON {
			if err := printJSON(opts.IO.Out, map[string]any{"query": opts.Query, "results": []searchResult{}}); err != nil {
				return err
			}
		}
		if len(index.Terms(opts.Query)) == 0 && len(index.Identifiers(opts.Query)) == 0 {
			fmt.Fprintln(opts.IO.Err, "No results: the query has no words to search for.")
		} else {
			fmt.Fprintln(opts.IO.Err, "No learnings match. Try fewer or other words, or 'reflect list' to see what there is.")
		}
		return errNoMatch
	}
	if opts.JSON {
		out := make([]searchResult, len(results))
		for i, r := range results {
			out[i] = searchResult{Result: r, ShortID: short(r.ID)}
		}
		return printJSON(opts.IO.Out, map[string]any{"query": opts.Query, "results": out})
	}
	out := opts.IO.Out
	p := painter{opts.Color}
	terms := queryStems(opts.Query)
	for i, r := range results {
		weak := ""
		if r.Weak {
			weak = "  (weak match)"
		}
		fmt.Fprintf(out, "%d. %s  [%s]%s\n   %s\n", i+1, p.highlight(oneLine(r.Title), terms, styleBold), r.Confidence, weak, short(r.ID))
		if r.Snippet != "" {
			fmt.Fprintf(out, "   %s\n", p.highlight(oneLine(r.Snippet), terms, ""))
		}
		if r.Stale {
			fmt.Fprintf(out, "   ⚠ may be stale: %s changed since this was learned\n", oneLine(strings.Join(r.StaleFiles, ", ")))
		}
		if r.Held != "" {
			fmt.Fprintf(out, "   ⊘ not injected by hooks: %s\n", heldReason(r.Held))
		}
		if opts.Explain {
			fmt.Fprintf(out, "   why: %s\n", explain(r.Why))
			if r.Feedback != "" {
				fmt.Fprintf(out, "   marks: %s\n", oneLine(r.Feedback))
			}
		}
	}
	return nil
}

// explain renders a result's Why on one line (index.Why.Explain), made
// safe for a terminal: GraphVia is an entity name from a learning.
func explain(w index.Why) string {
	return oneLine(w.Explain())
}

// heldReason says in words why a learning is held out of injection.
func heldReason(held string) string {
	switch {
	case held == "superseded":
		return "superseded by a newer learning ('reflect show' names it)"
	case held == store.StatusPending:
		return "pending review ('reflect review' approves or rejects it)"
	case strings.HasPrefix(held, "stale: "):
		return held + " ('reflect mark ID fresh' after checking it)"
	case held == "refuted":
		return "refuted: its command failed the same way in sessions it was injected in ('reflect mark ID clear' undoes it)"
	}
	return "marked " + held + " ('reflect mark ID clear' undoes it)"
}

// addPendingFlags adds --pending and --all, which search and list share.
func addPendingFlags(cmd *cobra.Command) {
	cmd.Flags().Bool("pending", false, "only drafts awaiting review ('reflect review')")
	cmd.Flags().Bool("all", false, "drafts awaiting review too, marked pending")
}

// pendingFlags reads --pending and --all.
func pendingFlags(cmd *cobra.Command) (index.PendingFilter, error) {
	only, _ := cmd.Flags().GetBool("pending")
	all, _ := cmd.Flags().GetBool("all")
	switch {
	case only && all:
		return 0, usagef("--pending lists drafts only, --all everything: pass one")
	case only:
		return index.PendingOnly, nil
	case all:
		return index.PendingShown, nil
	}
	return index.PendingHidden, nil
}
