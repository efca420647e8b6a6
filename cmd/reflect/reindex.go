package main

import (
	"fmt"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"

	"github.com/reflectkb/reflect/index"
)

// ReindexOptions are the inputs of `reflect reindex`.
type ReindexOptions struct {
	Full, JSON bool
}

// NewCmdReindex builds `reflect reindex`; runF, when not nil, runs instead
// with the parsed options.
func NewCmdReindex(f *Factory, runF func(*ReindexOptions) error) *cobra.Command {
	opts := &ReindexOptions{}
	cmd := &cobra.Command{
		Use: "reindex",
		Example: `  reflect reindex
  reflect reindex --full`,
		Short: "Bring the index up to date with documents/",
		Long: `Reindex indexes new and changed documents and drops deleted ones; unchanged
documents cost one stat. --full rebuilds the index from scratch. Learnings
without a vector for the configured embedder are embedded (all of them after
the embedder changed), and the entity graph's communities are recomputed.
Malformed documents are reported and skipped.`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return reindexRun(cmd, f, opts)
		},
	}
	cmd.Flags().BoolVar(&opts.Full, "full", false, "rebuild the index from scratch")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print JSON")
	return cmd
}

func reindexRun(cmd *cobra.Command, f *Factory, opts *ReindexOptions) error {
	show := f.IO.ErrTTY && !opts.JSON
	progress, finish := progressBar(f, "indexing", show)
	embedProgress, finishEmbed := progressBar(f, "embedding", show)
	ix, err := f.OpenIndex(cmd.Context(), false, index.WithProgress(progress), f.WaitNotice())
	if err != nil {
		finish()
		return err
	}
	defer ix.Close()
	uo := index.UpdateOptions{Full: opts.Full, Progress: progress, EmbedProgress: embedProgress, Communities: true, DropRetired: true}
	if ix.Rebuilt != "" {
		// A catalog Open just rebuilt is complete: the second pass
		// only adds what a rebuild leaves to reindex (communities,
		// removing retired files).
		uo.Full = false
	}
	st, err := ix.Update(cmd.Context(), uo)
	finish()
	finishEmbed()
	if err != nil {
		return err
	}
	if ix.Rebuilt != "" {
		rb := ix.RebuildStats
		rb.Graph, rb.Embedded = st.Graph, rb.Embedded || st.Embedded
		rb.Duration += st.Duration
		st = rb
	}
	problems := make([]map[string]string, 0, len(st.Problems))
	for _, p := range st.Problems {
		problems = append(problems, map[string]string{"path": p.Path, "reason": p.Reason})
	}
	if opts.JSON {
		return printJSON(f.IO.Out, map[string]any{
			"full": opts.Full, "stats": st, "duration_ms": st.Duration.Milliseconds(), "malformed": problems,
		})
	}
	fmt.Fprintf(f.IO.Out, "Indexed %s in %s: %d added, %d updated, %d removed, %d unchanged.\n",
		countOf(st.Indexed, "learning"), st.Duration.Round(1e6), st.Added, st.Updated, st.Removed, st.Unchanged)
	for _, p := range st.Problems {
		fmt.Fprintf(f.IO.Err, "reflect: skipped %s\n", p.Error())
	}
	return nil
}

// progressBar returns a progress callback that draws a bar on stderr when
// show is set (a TTY), and a finish func that clears it.
func progressBar(f *Factory, what string, show bool) (func(done, total int), func()) {
	if !show {
		return nil, func() {}
	}
	var bar *progressbar.ProgressBar
	progress := func(done, total int) {
		if bar == nil {
			bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(f.IO.Err),
				progressbar.OptionSetDescription(what), progressbar.OptionShowCount(),
				progressbar.OptionClearOnFinish(), progressbar.OptionThrottle(50e6))
		}
		_ = bar.Set(done)
	}
	return progress, func() {
		if bar != nil {
			_ = bar.Finish()
		}
	}
}
