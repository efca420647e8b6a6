package index

import (
	"strings"
	"testing"
)

// TestExplainShowsFusion checks that --explain shows the fusion's
// arithmetic: every signal's normalised score times its weight and the
// share it added, so a reader can redo the sum.
func TestExplainShowsFusion(t *testing.T) {
	cands := map[int64]*Why{
		1: {LexicalRank: 1, BM25: 8, MatchedTerms: 3, TrigramRank: 1, Identifiers: 1, GraphRank: 1, GraphScore: 2, GraphVia: "SQLite"},
		2: {LexicalRank: 2, BM25: 4, MatchedTerms: 2, VectorRank: 1, Cosine: 0.4},
	}
	fuse(cands, fusionWeights{lexical: 1, trigram: 0.5, vector: 0.5, graph: 0.001}, 10)
	w := *cands[1]
	w.Confidence, w.Scope, w.Recency, w.Freshness = 1, 1, 0.9, 1
	got := w.Explain()
	for _, want := range []string{
		"lexical #1 (bm25 8.00, 3 terms, 1.00 × 1 = +1.0000)",
		"trigram #1 (100% of identifiers, 1.00 × 0.5 = +0.5000)",
		"vector -",
		"graph #1 (via SQLite, 1.00 × 0.001 = +0.0010)",
		"= fused 1.5010 × confidence 1.00 × scope 1.00 × recency 0.90 × freshness 1.00",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("explain lacks %q:\n%s", want, got)
		}
	}
	got = cands[2].Explain()
	if want := "lexical #2 (bm25 4.00, 2 terms, 0.50 × 1 = +0.5000)"; !strings.Contains(got, want) {
		t.Errorf("explain lacks %q:\n%s", want, got)
	}
	if want := "vector #1 (cos 0.40, 1.00 × 0.5 = +0.5000)"; !strings.Contains(got, want) {
		t.Errorf("explain lacks %q:\n%s", want, got)
	}
}
