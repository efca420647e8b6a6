package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/rivo/uniseg"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/reflectkb/reflect/index"
	"github.com/reflectkb/reflect/store"
)

// listItem is one learning as `list --json` prints it: what the catalog
// knows, without the fields only a search fills in (score, snippet, why).
type listItem struct {
	ID         string   `json:"id"`
	ShortID    string   `json:"short_id"`
	Title      string   `json:"title"`
	Confidence string   `json:"confidence"`
	Type       string   `json:"type"`
	Scope      string   `json:"scope,omitempty"`
	Project    string   `json:"project,omitempty"`
	Tags       []string `json:"tags,omitempty"`
	KeyInsight string   `json:"key_insight,omitempty"`
	Path       string   `json:"path"`
	Updated    string   `json:"updated"`
	// NeedsReview: a sync merge kept two bodies for a person to settle.
	NeedsReview bool `json:"needs_review,omitempty"`
	// Pending: a draft awaiting 'reflect review' (listed with --pending
	// or --all only).
	Pending bool `json:"pending,omitempty"`
}

// ListOptions are the inputs of `reflect list`.
type ListOptions struct {
	index.ListOptions
	JSON bool
}

// NewCmdList builds `reflect list`; runF, when not nil, runs instead with
// the parsed options.
func NewCmdList(f *Factory, runF func(*ListOptions) error) *cobra.Command {
	opts := &ListOptions{}
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List learnings, most recently updated first",
		Long: `List prints one learning a line under a header: its short id (the 6-hex
tail of the id, or the whole id where the tail would be ambiguous; every
command taking an ID accepts it), the day it was last updated, its
confidence and its title. On a terminal, titles are cut to the width of the
window; --json prints every field in full. A learning that 'reflect sync'
merged with both bodies kept shows "[needs review]" before its title. Drafts
awaiting 'reflect review' are listed only with --pending (drafts only) or
--all, marked "[pending]".`,
		Example: `  reflect list
  reflect list -n 5 --project auth-service
  reflect list --json | jq -r '.learnings[].id'`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.Limit < 1 {
				return usagef("--limit must be at least 1")
			}
			var err error
			if opts.Pending, err = pendingFlags(cmd); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			ix, err := f.OpenIndex(cmd.Context(), true)
			if err != nil {
				return err
			}
			defer ix.Close()
			items, err := ix.List(cmd.Context(), opts.ListOptions)
			if err != nil {
				return err
			}
			ids := make([]string, len(items))
			for i, r := range items {
				ids[i] = r.ID
			}
			short := shortener(cmd.Context(), ix, ids)
			if opts.JSON {
				out := make([]listItem, len(items))
				for i, r := range items {
					out[i] = listItem{ID: r.ID, ShortID: short(r.ID), Title: r.Title, Confidence: r.Confidence,
						Type: r.Type, Scope: r.Scope, Project: r.Project, Tags: r.Tags,
						KeyInsight: r.KeyInsight, Path: r.Path, Updated: r.Updated, NeedsReview: store.NeedsReview(r.Path), Pending: r.Held == store.StatusPending}
				}
				return printJSON(f.IO.Out, map[string]any{"learnings": out})
			}
			if len(items) == 0 && opts.Project != "" {
				fmt.Fprintf(f.IO.Out, "No learnings for project %q. Run 'reflect list' without --project to see all.\n", opts.Project)
				return nil
			}
			if len(items) == 0 {
				fmt.Fprintln(f.IO.Out, "No learnings yet. Add one with 'reflect add --title ... --insight ...'.")
				return nil
			}
			printList(f.IO, items, short, f.Getenv("COLUMNS"))
			return nil
		},
	}
	cmd.Flags().IntVarP(&opts.Limit, "limit", "n", 50, "how many learnings at most")
	cmd.Flags().StringVar(&opts.Project, "project", "", "only learnings of this project")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print JSON")
	addPendingFlags(cmd)
	return cmd
}

// printList prints the aligned table of `reflect list`.
func printList(s *Streams, items []index.Result, short func(string) string, columns string) {
	ids := make([]string, len(items))
	idWidth := len("ID")
	for i, r := range items {
		ids[i] = short(r.ID)
		idWidth = max(idWidth, len(ids[i]))
	}
	const confWidth = len("medium")
	titleAt := idWidth + 2 + len("2006-01-02") + 2 + confWidth + 2
	fmt.Fprintf(s.Out, "%-*s  %-10s  %-*s  %s\n", idWidth, "ID", "UPDATED", confWidth, "CONF", "TITLE")
	for i, r := range items {
		day := r.Updated
		if len(day) >= 10 {
			day = day[:10]
		}
		title := oneLine(r.Title)
		if store.NeedsReview(r.Path) {
			// Flagged before the cut, so a narrow window still shows it.
			title = "[needs review] " + title
		}
		if r.Held == store.StatusPending {
			title = "[pending] " + title
		}
		if s.OutTTY {
			title = truncateWidth(title, max(termWidth(s, columns)-titleAt, 20))
		}
		fmt.Fprintf(s.Out, "%-*s  %-10s  %-*s  %s\n", idWidth, ids[i], day, confWidth, r.Confidence, title)
	}
}

// termWidth is the width of the terminal stdout is, from columns ($COLUMNS)
// when set (as shells and tests set it), else from the terminal, else 80.
func termWidth(s *Streams, columns string) int {
	if n, err := strconv.Atoi(columns); err == nil && n > 0 {
		return n
	}
	if f, ok := s.Out.(*os.File); ok {
		if w, _, err := term.GetSize(int(f.Fd())); err == nil && w > 0 {
			return w
		}
	}
	return 80
}

// truncateWidth cuts s to at most width terminal columns, ending it with
// "…" when cut. Widths are those of grapheme clusters, so CJK (two columns)
// and combining accents (none) line up.
func truncateWidth(s string, width int) string {
	if uniseg.StringWidth(s) <= width {
		return s
	}
	var b strings.Builder
	used, state := 0, -1
	for rest := s; rest != ""; {
		var cluster string
		var w int
		cluster, rest, w, state = uniseg.FirstGraphemeClusterInString(rest, state)
		if used+w > width-1 {
			break
		}
		b.WriteString(cluster)
		used += w
	}
	return b.String() + "…"
}
