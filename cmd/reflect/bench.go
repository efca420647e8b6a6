package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/reflectkb/reflect/bench"
	"github.com/reflectkb/reflect/index"
)

// NewCmdBench builds `reflect bench`.
func NewCmdBench(f *Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Measure retrieval quality and build synthetic knowledge bases",
		Args:  noSubcommand,
		RunE:  showHelp,
	}
	cmd.AddCommand(newCmdBenchRetrieval(f), newCmdBenchGenerate(f))
	return cmd
}

func newCmdBenchRetrieval(f *Factory) *cobra.Command {
	var runPath, signals string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "retrieval DATASET_DIR...",
		Short: "Score search on BEIR-layout datasets (nDCG@10, recall@5/10, MRR@10, latency)",
		Long: `Each dataset is loaded into a temporary knowledge base as real learnings
(title → title, text → body) and every query runs through the same search as
'reflect search'. --run writes the ranked lists (qid docid rank, top 100) so
beir_eval.py can score them independently. Your own knowledge base is not
touched. The embedder is the one config.toml sets (hash by default);
--signals fuses only the lists named, to measure what each contributes.`,
		Example: `  reflect bench retrieval testdata/bench/locomo-dev/conv-26 --run conv-26.tsv
  python3 testdata/bench/beir_eval.py testdata/bench/locomo-dev/conv-26 --run conv-26.tsv
  reflect bench retrieval testdata/bench/locomo-dev/conv-26 --signals lexical,vector`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("bench retrieval needs a dataset directory")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			sig, err := index.ParseSignals(signals)
			if err != nil {
				return usagef("--signals: %v", err)
			}
			c, err := f.Config()
			if err != nil {
				return err
			}
			ixOpts, err := index.ConfigOptions(c.Index, false)
			if err != nil {
				return err
			}
			var reports []*bench.Report
			var runFile *os.File
			if runPath != "" {
				if runFile, err = os.Create(runPath); err != nil {
					return err
				}
				defer runFile.Close()
			}
			for _, dir := range args {
				ds, err := bench.LoadBEIR(dir)
				if err != nil {
					return usagef("%v", err)
				}
				if !asJSON {
					fmt.Fprintf(f.IO.Err, "loading %s: %d documents, %d queries…\n", ds.Name, len(ds.Corpus), len(ds.Queries))
				}
				work, err := os.MkdirTemp("", "reflect-bench-*")
				if err != nil {
					return err
				}
				rep, err := bench.Retrieval(cmd.Context(), ds, filepath.Join(work, "kb"), bench.Options{Signals: sig, Index: ixOpts})
				os.RemoveAll(work)
				if err != nil {
					return err
				}
				if runFile != nil {
					if err := bench.WriteRun(runFile, rep.Run); err != nil {
						return err
					}
				}
				reports = append(reports, rep)
			}
			if asJSON {
				return printJSON(f.IO.Out, map[string]any{"reports": reports})
			}
			fmt.Fprintf(f.IO.Out, "%-12s %7s %7s %7s %7s %6s %8s %8s\n", "dataset", "nDCG@10", "R@5", "R@10", "MRR@10", "q", "p50 ms", "p95 ms")
			for _, r := range reports {
				s := r.Scores
				fmt.Fprintf(f.IO.Out, "%-12s %7.4f %7.4f %7.4f %7.4f %6d %8.2f %8.2f\n", r.Dataset, s.NDCG10, s.Recall5, s.Recall10, s.MRR10, s.Queries, r.P50MS, r.P95MS)
			}
			if runPath != "" {
				fmt.Fprintf(f.IO.Err, "run written to %s\n", runPath)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&runPath, "run", "", "write the ranked lists to this file")
	cmd.Flags().StringVar(&signals, "signals", "all", "lists to fuse: all, or some of lexical,trigram,vector,graph")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func newCmdBenchGenerate(f *Factory) *cobra.Command {
	var count int
	var seed uint64
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "generate LEARNINGS_DIR",
		Short: "Write a synthetic knowledge base for latency benchmarks",
		Long: `Generate writes --count synthetic learnings (100–400 words, titles, tags,
identifiers, paths) into LEARNINGS_DIR/documents. Point REFLECT_LEARNINGS_DIR
at LEARNINGS_DIR to benchmark commands against it.`,
		Example: `  reflect bench generate /tmp/kb10k --count 10000
  REFLECT_LEARNINGS_DIR=/tmp/kb10k reflect reindex --full`,
		Args: exactArgs(1, "one directory"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if count < 1 {
				return usagef("--count must be at least 1")
			}
			docs := filepath.Join(args[0], "documents")
			if err := bench.Generate(docs, count, seed); err != nil {
				return err
			}
			if asJSON {
				return printJSON(f.IO.Out, map[string]any{"documents": docs, "count": count, "seed": seed})
			}
			fmt.Fprintf(f.IO.Out, "Wrote %d learnings to %s\n", count, docs)
			return nil
		},
	}
	cmd.Flags().IntVar(&count, "count", 10000, "how many learnings")
	cmd.Flags().Uint64Var(&seed, "seed", 1, "random seed (same seed, same KB)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}
