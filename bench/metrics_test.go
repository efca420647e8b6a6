package bench

import (
	"math"
	"testing"
)

// The metrics must equal beir_eval.py's: exponential-gain nDCG@10, recall
// over the relevant documents, MRR@10, queries without relevant documents
// skipped. Expected values worked out by hand.
func TestScore(t *testing.T) {
	qrels := map[string]map[string]int{
		"q1": {"a": 1, "b": 1}, // relevant at ranks 1 and 3
		"q2": {"c": 1},         // relevant at rank 2
		"q3": {"d": 1},         // not retrieved
		"q4": {"e": 0},         // no relevant document: skipped
		"q5": {"f": 2, "g": 1}, // graded: f at rank 1, g missing
		"q6": {"h": 1, "x": 1}, // h at rank 6: recall@5 0, recall@10 0.5
	}
	run := map[string][]string{
		"q1": {"a", "z", "b"},
		"q2": {"z", "c"},
		"q3": {"z"},
		"q5": {"f", "z"},
		"q6": {"z1", "z2", "z3", "z4", "z5", "h"},
	}
	s := Score(run, qrels)
	log2 := math.Log2
	ndcg := []float64{
		(1 + 1/log2(4)) / (1 + 1/log2(3)),
		(1 / log2(3)) / 1,
		0,
		3 / (3 + 1/log2(3)),
		(1 / log2(7)) / (1 + 1/log2(3)),
	}
	want := Scores{Queries: 5}
	for _, v := range ndcg {
		want.NDCG10 += v / 5
	}
	want.Recall5 = (1 + 1 + 0 + 0.5 + 0) / 5
	want.Recall10 = (1 + 1 + 0 + 0.5 + 0.5) / 5
	want.MRR10 = (1 + 0.5 + 0 + 1 + 1.0/6) / 5
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-12 }
	if s.Queries != want.Queries || !near(s.NDCG10, want.NDCG10) || !near(s.Recall5, want.Recall5) ||
		!near(s.Recall10, want.Recall10) || !near(s.MRR10, want.MRR10) {
		t.Errorf("Score = %+v\nwant    %+v", s, want)
	}
}
