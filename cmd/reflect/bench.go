package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/reflectkb/reflect/bench"
	"github.com/reflectkb/reflect/index"
	"github.com/reflectkb/reflect/internal/config"
	"github.com/reflectkb/reflect/recall"
)

// NewCmdBench builds `reflect bench`.
func NewCmdBench(f *Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use: "bench",
		Example: `  reflect bench generate /tmp/kb10k --count 10000
  reflect bench retrieval ./beir/scifact --run scifact.tsv`,
		Short: "Measure retrieval quality and build synthetic knowledge bases",
		Args:  noSubcommand,
		RunE:  showHelp,
	}
	cmd.AddCommand(newCmdBenchRetrieval(f, nil), newCmdBenchGenerate(f, nil), newCmdBenchRecall(f, nil))
	return cmd
}

// BenchRetrievalOptions are the inputs of `reflect bench retrieval`.
type BenchRetrievalOptions struct {
	Datasets []string
	RunPath  string
	Signals  index.Signals
	JSON     bool
}

// newCmdBenchRetrieval builds `reflect bench retrieval`; runF, when not
// nil, runs instead with the parsed options.
func newCmdBenchRetrieval(f *Factory, runF func(*BenchRetrievalOptions) error) *cobra.Command {
	opts := &BenchRetrievalOptions{}
	var signals string
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
			opts.Datasets, opts.Signals = args, sig
			if runF != nil {
				return runF(opts)
			}
			return benchRetrievalRun(cmd, f, opts)
		},
	}
	cmd.Flags().StringVar(&opts.RunPath, "run", "", "write the ranked lists to this file")
	cmd.Flags().StringVar(&signals, "signals", "all", "lists to fuse: all, or some of lexical,trigram,vector,graph")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print JSON")
	return cmd
}

func benchRetrievalRun(cmd *cobra.Command, f *Factory, opts *BenchRetrievalOptions) error {
	c, err := f.Config()
	if err != nil {
		return err
	}
	ixOpts, err := index.SettingsOptions(index.Settings(c.Index), false)
	if err != nil {
		return err
	}
	var reports []*bench.Report
	var runFile *os.File
	if opts.RunPath != "" {
		if runFile, err = os.Create(opts.RunPath); err != nil {
			return err
		}
		defer runFile.Close()
	}
	for _, dir := range opts.Datasets {
		ds, err := bench.LoadBEIR(dir)
		if err != nil {
			return usagef("%v", err)
		}
		if !opts.JSON {
			fmt.Fprintf(f.IO.Err, "loading %s: %d documents, %d queries…\n", ds.Name, len(ds.Corpus), len(ds.Queries))
		}
		work, err := os.MkdirTemp("", "reflect-bench-*")
		if err != nil {
			return err
		}
		rep, err := bench.Retrieval(cmd.Context(), ds, filepath.Join(work, "kb"), bench.Options{Signals: opts.Signals, Index: ixOpts})
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
	if opts.JSON {
		return printJSON(f.IO.Out, map[string]any{"reports": reports})
	}
	fmt.Fprintf(f.IO.Out, "%-12s %7s %7s %7s %7s %6s %8s %8s\n", "dataset", "nDCG@10", "R@5", "R@10", "MRR@10", "q", "p50 ms", "p95 ms")
	for _, r := range reports {
		s := r.Scores
		fmt.Fprintf(f.IO.Out, "%-12s %7.4f %7.4f %7.4f %7.4f %6d %8.2f %8.2f\n", r.Dataset, s.NDCG10, s.Recall5, s.Recall10, s.MRR10, s.Queries, r.P50MS, r.P95MS)
	}
	if opts.RunPath != "" {
		fmt.Fprintf(f.IO.Err, "run written to %s\n", opts.RunPath)
	}
	return nil
}

// BenchGenerateOptions are the inputs of `reflect bench generate`.
type BenchGenerateOptions struct {
	Dir   string
	Count int
	Seed  uint64
	JSON  bool
}

// newCmdBenchGenerate builds `reflect bench generate`; runF, when not nil,
// runs instead with the parsed options.
func newCmdBenchGenerate(f *Factory, runF func(*BenchGenerateOptions) error) *cobra.Command {
	opts := &BenchGenerateOptions{}
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
			if opts.Count < 1 {
				return usagef("--count must be at least 1")
			}
			opts.Dir = args[0]
			if runF != nil {
				return runF(opts)
			}
			return benchGenerateRun(f, opts)
		},
	}
	cmd.Flags().IntVar(&opts.Count, "count", 10000, "how many learnings")
	cmd.Flags().Uint64Var(&opts.Seed, "seed", 1, "random seed (same seed, same KB)")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print JSON")
	return cmd
}

func benchGenerateRun(f *Factory, opts *BenchGenerateOptions) error {
	docs := filepath.Join(opts.Dir, "documents")
	if err := bench.Generate(docs, opts.Count, opts.Seed); err != nil {
		return err
	}
	if opts.JSON {
		return printJSON(f.IO.Out, map[string]any{"documents": docs, "count": opts.Count, "seed": opts.Seed})
	}
	fmt.Fprintf(f.IO.Out, "Wrote %s to %s\n", countOf(opts.Count, "learning"), docs)
	return nil
}

// BenchRecallOptions are the inputs of `reflect bench recall`.
type BenchRecallOptions struct {
	Sizes []int
	Set   string
	// Padding is the synthetic learnings' filler: synthetic or everyday.
	Padding string
	// Questions indexes the questions LLM writers wrote for the set's
	// learnings (doc2query).
	Questions bool
	// Gate is the gate's level; empty: recall.gate's.
	Gate         string
	JSON, Misses bool
}

// newCmdBenchRecall builds `reflect bench recall`; runF, when not nil, runs
// instead with the parsed options.
func newCmdBenchRecall(f *Factory, runF func(*BenchRecallOptions) error) *cobra.Command {
	opts := &BenchRecallOptions{}
	cmd := &cobra.Command{
		Use:   "recall",
		Short: "Measure the prompt hook's recall on a built-in labelled prompt set",
		Long: `Recall builds temporary knowledge bases from a labelled set built into
reflect (coding learnings, prompts that must recall one of them and prompts
that must recall nothing), padded with synthetic learnings to each --sizes
value, and sends every prompt through the same recall as the
UserPromptSubmit hook. --set picks the set: recallset (the project's own,
50 learnings, 194 prompts) or userset (written as users write, 175
learnings, 1,193 prompts). A size below the set's learning count splits the
set into knowledge bases of exactly that size, each holding a share of the
set's learnings (padded if short): a prompt is asked of the one holding its
learning, a silent prompt of every one. It reports, by prompt kind and for
the tuning and held-out parts of the set: recall (the expected learning
was injected), false injections (a silent prompt got anything, an
answerable one only wrong learnings), characters injected per prompt, and
where 'reflect search' ranks the expected learning. Runs offline; your
knowledge base is not touched. --padding everyday draws half of the
synthetic learnings' filler words from everyday developer prose (the Go
standard library's doc comments) instead of pseudo-words, so that words
such as "order" or "database" are not rarer in the padding than in real
notes. --questions gives the set's learnings the questions an LLM writer
emits (what someone with the problem would ask; each set's were written
by writers that never saw its prompts), and the synthetic ones questions
made of the same question words, as a KB written by an LLM writer has them.
--gate measures another level of the gate than recall.gate's (strict,
balanced or eager).`,
		Example: `  reflect bench recall
  reflect bench recall --set userset --sizes 10,100,1000,10000
  reflect bench recall --set userset --sizes 10000 --padding everyday
  reflect bench recall --set userset --questions
  reflect bench recall --set userset --gate eager
  reflect bench recall --sizes 100,1000 --json`,
		Args: maxArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			for _, n := range opts.Sizes {
				if n < 1 {
					return usagef("--sizes: %d is not a knowledge-base size; give sizes of at least 1, e.g. --sizes 10,100", n)
				}
			}
			if opts.Padding != "synthetic" && opts.Padding != "everyday" {
				return usagef("--padding: %q is not a padding; use synthetic or everyday", opts.Padding)
			}
			if opts.Gate != "" {
				if _, err := recall.ParseGate(opts.Gate); err != nil {
					return usagef("--gate: %v", err)
				}
			}
			if !slices.Contains(bench.SetNames, opts.Set) {
				return usagef("--set: no labelled set %q; use one of %s", opts.Set, strings.Join(bench.SetNames, ", "))
			}
			if runF != nil {
				return runF(opts)
			}
			return benchRecallRun(cmd, f, opts)
		},
	}
	cmd.Flags().StringVar(&opts.Set, "set", bench.SetRecall, "labelled set: "+strings.Join(bench.SetNames, " or "))
	cmd.Flags().IntSliceVar(&opts.Sizes, "sizes", []int{10, 100, 1000, 10000}, "knowledge-base sizes to measure")
	cmd.Flags().BoolVar(&opts.Misses, "misses", false, "list the prompts that missed their learning, and the silent ones that got one")
	cmd.Flags().StringVar(&opts.Padding, "padding", "synthetic", "filler of the synthetic learnings: synthetic (pseudo-words) or everyday (half of them everyday prose)")
	cmd.Flags().BoolVar(&opts.Questions, "questions", false, "give the learnings the questions an LLM writer wrote for them (doc2query)")
	cmd.Flags().StringVar(&opts.Gate, "gate", "", "the gate's level: strict, balanced or eager (default recall.gate's)")
	_ = cmd.RegisterFlagCompletionFunc("gate", completeValues(config.GateLevels...))
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print JSON")
	return cmd
}

func benchRecallRun(cmd *cobra.Command, f *Factory, opts *BenchRecallOptions) error {
	c, err := f.Config()
	if err != nil {
		return err
	}
	ixOpts, err := index.SettingsOptions(index.Settings(c.Index), false)
	if err != nil {
		return err
	}
	set, err := bench.LoadSet(opts.Set)
	if err != nil {
		return err
	}
	if opts.Questions {
		if set, err = set.WithQuestions(); err != nil {
			return fmt.Errorf("--questions: %w; try --set %s", err, bench.SetUser)
		}
	}
	gate := c.Recall.Gate
	if opts.Gate != "" {
		gate = opts.Gate
	}
	g, err := recall.ParseGate(gate)
	if err != nil {
		return err
	}
	ro := bench.RecallOptions{Sizes: opts.Sizes, Index: ixOpts, Recall: hookRecall(g)}
	if opts.Padding == "everyday" {
		ro.Everyday = bench.EverydayWords()
	}
	if opts.Questions {
		ro.QuestionWords = set.QuestionWords()
	}
	if !opts.JSON {
		ro.Progress = func(msg string) { fmt.Fprintln(f.IO.Err, msg+"…") }
	}
	rep, err := bench.Recall(cmd.Context(), set, ro)
	if err != nil {
		return err
	}
	if !opts.Misses {
		for _, s := range rep.Sizes {
			s.Misses = nil
		}
	}
	if opts.JSON {
		return printJSON(f.IO.Out, rep)
	}
	printRecallReport(f.IO.Out, rep)
	return nil
}

// printRecallReport prints one table per part of the set: a row per size
// and kind.
func printRecallReport(out io.Writer, rep *bench.RecallReport) {
	fmt.Fprintf(out, "set %s\n%d learnings, %d prompts\n", rep.Set, rep.Learnings, rep.Prompts)
	for _, part := range []string{"held-out", "tuning"} {
		fmt.Fprintf(out, "\n%s part\n%6s %-11s %7s %7s %7s %8s %8s %9s\n", part, "size", "kind", "prompts", "recall", "false", "chars", "search@1", "mean rank")
		for _, s := range rep.Sizes {
			p := s.Tuning
			if part == "held-out" {
				p = s.HeldOut
			}
			for _, k := range bench.Kinds {
				ks := p.Kinds[k]
				if ks.Prompts == 0 {
					continue
				}
				if k == bench.KindSilent {
					fmt.Fprintf(out, "%6d %-11s %7d %7s %7.3f %8.0f %8s %9s\n", s.Size, k, ks.Prompts, "-", ks.FalseInjection(), ks.CharsPerPrompt(), "-", "-")
					continue
				}
				fmt.Fprintf(out, "%6d %-11s %7d %7.3f %7.3f %8.0f %8.3f %9.2f\n", s.Size, k, ks.Prompts, ks.Recall(), ks.FalseInjection(), ks.CharsPerPrompt(),
					float64(ks.SearchTop1)/float64(ks.Prompts), ks.MeanSearchRank())
			}
		}
	}
	fmt.Fprintln(out)
	for _, s := range rep.Sizes {
		fmt.Fprintf(out, "size %d: %d knowledge base(s) indexed in %.0f ms\n", s.Size, s.KBs, s.IndexMS)
		for _, m := range s.Misses {
			if m.Rank == 0 {
				fmt.Fprintf(out, "  silent %s got %v\n", m.ID, m.Injected)
				continue
			}
			fmt.Fprintf(out, "  missed %s: injected %v, search rank %d\n", m.ID, m.Injected, m.Rank)
		}
	}
}

// hookRecall is what the prompt hook injects for a prompt with the gate at
// level gate: the recall that `reflect bench recall` measures.
func hookRecall(gate recall.Gate) func(context.Context, *index.Index, string, time.Time) ([]string, string, error) {
	return func(ctx context.Context, ix *index.Index, prompt string, now time.Time) ([]string, string, error) {
		res, err := recall.Recall(ctx, ix, recall.Request{Kind: recall.Prompt, Prompt: prompt, Now: now, Gate: gate})
		ids := make([]string, 0, len(res.Injected))
		for _, h := range res.Injected {
			ids = append(ids, h.ID)
		}
		return ids, res.Context, err
	}
}
