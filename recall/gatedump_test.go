package recall_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/reflectkb/reflect/bench"
	"github.com/reflectkb/reflect/index"
	"github.com/reflectkb/reflect/recall"
)

// TestGateDump writes the gate's features of every lexical hit of every
// prompt of a labelled set, at the sizes asked, to the file
// REFLECT_GATE_DUMP names: the data the gate's weights are fitted on (the
// tuning part only; the held-out rows are marked). Skipped unless asked.
func TestGateDump(t *testing.T) {
	out := os.Getenv("REFLECT_GATE_DUMP")
	if out == "" {
		t.Skip("set REFLECT_GATE_DUMP=file (and REFLECT_GATE_SET, REFLECT_GATE_SIZES, REFLECT_GATE_PADDING, REFLECT_GATE_QUESTIONS) to dump the gate's features")
	}
	setName := os.Getenv("REFLECT_GATE_SET")
	if setName == "" {
		setName = "userset"
	}
	set, err := bench.LoadSet(setName)
	if err != nil {
		t.Fatal(err)
	}
	// REFLECT_GATE_QUESTIONS=1 gives the learnings their writer questions,
	// as `bench recall --questions` does.
	var questionWords []string
	if os.Getenv("REFLECT_GATE_QUESTIONS") == "1" {
		if set, err = set.WithQuestions(); err != nil {
			t.Fatal(err)
		}
		questionWords = set.QuestionWords()
	}
	byText := map[string]bench.LabelledPrompt{}
	for _, p := range set.Prompts {
		byText[p.Prompt] = p
	}
	var sizes []int
	for _, s := range strings.Split(os.Getenv("REFLECT_GATE_SIZES"), ",") {
		if n, err := strconv.Atoi(s); err == nil {
			sizes = append(sizes, n)
		}
	}
	// REFLECT_GATE_PADDING=everyday pads as `bench recall --padding
	// everyday` does.
	var everyday []string
	if os.Getenv("REFLECT_GATE_PADDING") == "everyday" {
		everyday = bench.EverydayWords()
	}
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fmt.Fprintln(f, "set\tsize\tid\theld_out\tkind\trank\tlabel\tbm25\tfloor_ratio\tcoverage\tmatched\tlead\twig\tfields\tidentifiers\tpassing\tdocs\tterms\tmatched_terms\tquery_bm25\tfused\ttrigram_rank\tclears\tphrase\tquestions\trequest\thit\thit_text")
	for _, size := range sizes {
		_, err := bench.Recall(context.Background(), set, bench.RecallOptions{
			Sizes:    []int{size},
			WorkDir:  t.TempDir(),
			Everyday: everyday, QuestionWords: questionWords,
			Recall: func(ctx context.Context, ix *index.Index, prompt string, now time.Time) ([]string, string, error) {
				p := byText[prompt]
				c, err := recall.GateCandidatesFull(ctx, ix, prompt, now)
				if err != nil {
					return nil, "", err
				}
				results, feats := c.Results, c.Features
				for i, r := range results {
					if r.Why.BM25 <= 0 || i >= 10 {
						continue
					}
					x := feats[i]
					label := 0
					if r.ID == p.Want {
						label = 1
					}
					fmt.Fprintf(f, "%s\t%d\t%s\t%v\t%s\t%d\t%d\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\t%v\t%d\t%d\t%d\t%.4f\t%.4f\t%d\t%.0f\t%.4f\t%.0f\t%v\t%s\t%s\n", setName, size, p.ID, p.HeldOut(), p.Kind, i+1, label,
						r.Why.BM25, x.FloorRatio, x.Coverage, x.Matched, x.Lead, x.WIG, x.Fields, x.Identifiers, c.Passing[r.ID], c.Docs, c.Terms, r.Why.MatchedTerms, r.Why.QueryBM25, r.Why.Fused, r.Why.TrigramRank, x.Clears, x.Phrase, x.Questions, c.Request, r.ID, strings.NewReplacer("\t", " ", "\n", " ").Replace(r.Title+" | "+r.KeyInsight+" | "+strings.Join(r.Tags, " ")))
				}
				return nil, "", nil
			},
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}
