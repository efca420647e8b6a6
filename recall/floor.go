package recall

import (
	"math"
	"sort"

	"github.com/reflectkb/reflect/index"
)

// The relevance floor. A hit is only worth injecting when the words it
// shares with the query are both many and telling, and a prompt that
// matches nothing well must get silence, not the least bad learning.
//
// The evidence is the hit's BM25F score (Why.BM25) measured in units of the
// largest idf the knowledge base allows — that of a word found in exactly
// one learning. BM25F's per-word contribution is idf × a saturating term
// frequency below 1, so one unit is at most one distinctive word matched
// strongly (in the title, key insight or tags); common words and body-only
// mentions earn fractions. Raw BM25F grows with the log of the number of
// learnings (the same match scores 2–3× higher in a 10,000-learning KB than
// in a 34-learning one); the units do not, so one floor serves both.
//
// How the numbers were chosen (TestFloorCalibration, testdata/): a KB of 34
// realistic learnings, 41 prompts that should each recall one of them and
// 33 that should recall nothing (generic coding asks, chit-chat, prompts
// sharing a word or two with some learning, three long ones). Short
// unrelated prompts peaked at 1.53 units, intended learnings started at
// 2.20, so the fixed floor sits at 1.9. Long prompts needed more: an
// unrelated one of 29 query words reached 2.74 units from many weak
// matches while long intended ones (22–39 words, pasted logs) scored
// 6.1–8.1, so the floor also grows as 0.7 × √words — at most 4.85 for the
// 48 words the index searches. The relative floor of 0.5 drops second
// hits that share only generic words with the prompt (1.17 learnings per
// intended prompt become 1.02 at the fixed floor alone) and cost no
// intended learning. With this floor the calibration prompts score precision
// 1.0 and recall 1.0 (fitted, so optimistic). Prompts written afterwards
// and never used for tuning (testdata/holdout-*, TestFloorHoldout) score
// precision 0.88 and recall 0.93; mixed into 2,000 and 10,000 synthetic
// learnings (TestFloorAtScale) recall drops to 0.80–0.95 and precision
// stays ≥ 0.92.
//
// Other signals were weighed and left out: the index's MatchedTerms counts
// loose substrings of the body only (title words are missed, "date" matches
// "update"), and a trigram hit is weak evidence ("SQL" matches every
// learning that mentions SQLite).
const (
	// minEvidence is the BM25F evidence, in units, a hit needs.
	minEvidence = 1.9
	// minEvidencePerRootTerm raises the floor for long prompts to this
	// many units times the square root of their number of query words:
	// every unrelated word of a long prompt adds weak matches, and thirty
	// loosely related words add up to what a short prompt that means it
	// scores.
	minEvidencePerRootTerm = 0.7
	// minRelative drops hits much weaker than the best one of the same
	// query: beside a learning that matches the prompt's error message, one
	// that shares two generic words with it is noise even above the floor.
	minRelative = 0.5
)

// smallKB is the size below which the floor is lowered. In a knowledge
// base of a handful of learnings every word is in one or two of them, so
// idf cannot tell telling words from common ones and a real match scores
// fewer units (a first-day KB of 3 learnings: the session-start query of
// the project that wrote them scored 1.76 against a floor of 1.98). Below
// smallKB the floor falls linearly to half at an empty KB; the 34-learning
// calibration KB is unaffected.
const smallKB = 30

// floorFor is the evidence a hit needs for a query of terms words in a KB
// of docs learnings.
func floorFor(terms, docs int, minEv, perRootTerm float64) float64 {
	f := math.Max(minEv, perRootTerm*math.Sqrt(float64(terms)))
	if docs < smallKB {
		f *= 0.5 + 0.5*float64(docs)/smallKB
	}
	return f
}

// maxIDF is BM25's idf of a word found in one of docs learnings, with the
// Robertson–Spärck Jones form that index uses: ln(1 + (N − df + ½)/(df + ½)).
func maxIDF(docs int) float64 {
	if docs < 1 {
		return 0
	}
	return math.Log(1 + (float64(docs)-0.5)/1.5)
}

// evidence is a hit's BM25F score in units of maxIDF.
func evidence(r index.Result, docs int) float64 {
	m := maxIDF(docs)
	if m <= 0 {
		return 0
	}
	return r.Why.BM25 / m
}

// aboveFloor keeps the results of a query of terms words that clear the
// floor, with their evidence, best first.
//
// Best by evidence × the index's confidence and scope factors, not by the
// index's Score: that is a reciprocal-rank fusion, in which lexical rank 1
// and rank 2 differ by 2% whatever their BM25F, so the ×1.25 same-project
// boost or the ×0.8 for medium confidence alone decides the order — a
// learning of this project that shares two words with the prompt would
// otherwise be "the top hit" over the one that matches its error message.
// Applied to the evidence, the same factors stay the modest adjustments
// they were meant to be; recency and freshness (a cited file changed) are
// applied the same way.
func aboveFloor(results []index.Result, docs, terms int) ([]index.Result, []float64) {
	kept, ev := filterFloor(results, docs, floorFor(terms, docs, minEvidence, minEvidencePerRootTerm), minRelative)
	rank := make([]float64, len(kept))
	for i, r := range kept {
		rank[i] = ev[i] * factor(r.Why.Confidence) * factor(r.Why.Scope) * factor(r.Why.Recency) * factor(r.Why.Freshness)
	}
	idx := make([]int, len(kept))
	for i := range idx {
		idx[i] = i
	}
	// Stable: equal ranks keep the index's order.
	sort.SliceStable(idx, func(a, b int) bool { return rank[idx[a]] > rank[idx[b]] })
	sortedKept := make([]index.Result, len(kept))
	sortedEv := make([]float64, len(kept))
	for i, j := range idx {
		sortedKept[i], sortedEv[i] = kept[j], ev[j]
	}
	return sortedKept, sortedEv
}

// factor treats a factor the index did not set as neutral.
func factor(f float64) float64 {
	if f <= 0 {
		return 1
	}
	return f
}

// filterFloor keeps the results with at least floor evidence and at least
// minRel times the best one's; the calibration test sweeps both.
func filterFloor(results []index.Result, docs int, floor, minRel float64) ([]index.Result, []float64) {
	best := 0.0
	for _, r := range results {
		best = math.Max(best, evidence(r, docs))
	}
	if best < floor {
		return nil, nil
	}
	var kept []index.Result
	var ev []float64
	for _, r := range results {
		e := evidence(r, docs)
		if e >= floor && e >= minRel*best {
			kept = append(kept, r)
			ev = append(ev, e)
		}
	}
	return kept, ev
}
