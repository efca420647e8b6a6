package index

import "sort"

// Contributions are each signal's term of the fused score: its weight
// times its normalised score (see fuse), 0 for a signal that did not find
// the learning.
type Contributions struct {
	Lexical float64 `json:"lexical"`
	Trigram float64 `json:"trigram"`
	Vector  float64 `json:"vector"`
	Graph   float64 `json:"graph"`
}

// Fusion weights: the fused score is a convex combination of the signals'
// normalised scores (Bruch, Gai & Ingber, "An Analysis of Fusion Functions
// for Hybrid Retrieval", TOIS 2023), each signal weighted by what it earns
// on the benchmarks (docs/ranking.md). Scores, not ranks: under
// reciprocal-rank fusion lexical ranks 1 and 8 differed by 10% whatever
// their BM25F, so a learning that shared one word with the query passed
// one that matched it on four through a graph hit alone.
const (
	weightLexical = 1.0
	// weightTrigram weighs the share of the query's identifiers a learning
	// contains: a learning that holds the pasted error code or path the
	// query names gains on one that shares its words only.
	weightTrigram = 0.5
	// weightGraph only breaks ties: the graph adds nothing measurable to
	// retrieval (docs/ranking.md), so it orders learnings of equal lexical
	// evidence and lists those no other signal found last, but never
	// outweighs a difference in BM25F that matters.
	weightGraph = 0.001
	// HashVectorWeight is the vector weight with the hash embedder. Its
	// features are the words BM25F already scores, so its errors overlap
	// BM25F's and any weight that lets it vote lowered nDCG@10 on
	// locomo-dev; at a tie-break weight it orders lexical near-ties and
	// adds learnings that share no word with the query at the end of the
	// list, where a typo's match belongs.
	HashVectorWeight = 0.001
	// ModelVectorWeight is the vector weight with a model embedder (ollama,
	// openai), whose similarity of meaning BM25F cannot see.
	ModelVectorWeight = 0.5
)

// fusionWeights are the weights one search fuses with.
type fusionWeights struct {
	lexical, trigram, vector, graph float64
}

func (ix *Index) fusionWeights() fusionWeights {
	w := fusionWeights{lexical: weightLexical, trigram: weightTrigram, vector: ix.vectorWeight(), graph: weightGraph}
	return w
}

// normalise maps a score into [0, 1] between a theoretical minimum lo (the
// least score the signal can report) and the best score of this search
// (Bruch et al.'s "TMM" normalisation: the observed minimum of a top-k
// list moves with k and with the query, the theoretical one does not).
func normalise(score, lo, hi float64) float64 {
	if hi <= lo || score <= lo {
		return 0
	}
	return min(1, (score-lo)/(hi-lo))
}

// fuse is the second stage: it scores every candidate by the weighted sum
// of its signals' normalised scores (Why.Contributions, Why.Fused) and
// returns the keep best row numbers, best first, ties by row. BM25F and
// the graph's score are normalised by the best of the search (their least
// is 0), the cosine between minCosine and the best; the trigram signal's
// score, the share of the query's identifiers a learning holds, is in
// [0, 1] already.
func fuse(cands map[int64]*Why, w fusionWeights, keep int) []int64 {
	var bestBM25, bestCos, bestGraph float64
	for _, c := range cands {
		bestBM25 = max(bestBM25, c.BM25)
		if c.VectorRank > 0 {
			bestCos = max(bestCos, c.Cosine)
		}
		bestGraph = max(bestGraph, c.GraphScore)
	}
	ns := make([]int64, 0, len(cands))
	for n, c := range cands {
		norm := Contributions{Lexical: normalise(c.BM25, 0, bestBM25), Trigram: c.Identifiers}
		// The weakest hit a list keeps still says more than none: it sits
		// just above the learnings the signal did not find.
		if c.VectorRank > 0 {
			norm.Vector = max(normalise(c.Cosine, minCosine, bestCos), 1e-3)
		}
		if c.GraphRank > 0 {
			norm.Graph = max(normalise(c.GraphScore, 0, bestGraph), 1e-3)
		}
		c.Normalised = norm
		c.Weights = Contributions{Lexical: w.lexical, Trigram: w.trigram, Vector: w.vector, Graph: w.graph}
		c.Contributions = Contributions{
			Lexical: w.lexical * norm.Lexical,
			Trigram: w.trigram * norm.Trigram,
			Vector:  w.vector * norm.Vector,
			Graph:   w.graph * norm.Graph,
		}
		c.Fused = c.Contributions.Lexical + c.Contributions.Trigram + c.Contributions.Vector + c.Contributions.Graph
		ns = append(ns, n)
	}
	// The factors (confidence, scope, recency, freshness) are read only for
	// the best fused candidates: they are adjustments, and a learning far
	// down every list does not climb into the top from there, while reading
	// every candidate's row was a third of a search's time.
	sort.Slice(ns, func(i, j int) bool {
		if cands[ns[i]].Fused != cands[ns[j]].Fused {
			return cands[ns[i]].Fused > cands[ns[j]].Fused
		}
		return ns[i] < ns[j]
	})
	if len(ns) > keep {
		ns = ns[:keep]
	}
	return ns
}
