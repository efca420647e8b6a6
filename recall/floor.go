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
// largest idf a query word can score — that of a word found in exactly one
// learning, capped at its value in a KB of idfCapDocs learnings (the
// search caps every word's idf there too, Query.IDFCap). BM25F's per-word
// contribution is idf × a saturating term frequency below 1, so one unit
// is at most one distinctive word matched strongly (in the title, key
// insight or tags); common words and body-only mentions earn fractions.
//
// Why the cap: a word found in one learning out of N scores ln N, so
// without it the unit grows with every unrelated learning while the words
// a real match shares with its prompt (docker, cache, commit) are found in
// a share of the KB that stays put, and their idf with it. Measured in
// uncapped units, the same match fell from 3.03 to 2.04 between 1,000 and
// 100,000 learnings and dropped under a fixed floor. Past idfCapDocs the
// units no longer move, so the floor means the same at any size; below
// it, ranking and floor work as they always did.
//
// A second way through is coverage: the share of the query's attainable
// BM25F (Why.QueryBM25, every query word the KB holds matched with full
// weight) a hit holds. In a small KB whose learnings overlap — four notes
// about flushing the widget cache with widgetctl — every shared word is in
// several learnings, so its idf and a perfect match's units are low; but
// the hit still holds most of what the query can score, on several words.
// Unrelated prompts reach high coverage only on one or two words.
//
// How the numbers were chosen: on the tuning part of the labelled set
// (package bench, `reflect bench recall`; the held-out part was never used)
// at KB sizes 10 to 10,000, by a sweep of the floor, the per-√word floor
// and the coverage path: 1.9 units, 0.55 × √words and coverage 0.75 on 3
// words recalled 0.96–1.0 of the tuning error, identifier and natural
// prompts at every size with one false injection in 150 silent asks. A
// floor of 1.8 recalled a little more of the tuning part but let a
// session-start query take in a third, loosely related learning
// (TestSessionScenario). The
// lower per-√word floor (0.7 before) is what pasted errors, now stripped
// of their frames, and the capped units allow: long intended prompts no
// longer sit just under it. On the older calibration corpus
// (TestFloorCalibration) every intended learning still clears its floor
// (the weakest at 1.15×) and no unrelated hit does (the strongest, a
// 50-word request, at 0.92×). The relative floor of 0.5 drops second hits
// that share only generic words with the prompt.
//
// Other signals were weighed and left out: the index's MatchedTerms alone
// counts generic words like telling ones, and a trigram hit is weak
// evidence ("SQL" matches every learning that mentions SQLite).
const (
	// minEvidence is the BM25F evidence, in units, a hit needs.
	minEvidence = 1.9
	// minEvidencePerRootTerm raises the floor for long prompts to this
	// many units times the square root of their number of query words:
	// every unrelated word of a long prompt adds weak matches, and thirty
	// loosely related words add up to what a short prompt that means it
	// scores.
	minEvidencePerRootTerm = 0.55
	// minRelative drops hits much weaker than the best one of the same
	// query: beside a learning that matches the prompt's error message, one
	// that shares two generic words with it is noise even above the floor.
	minRelative = 0.5
	// minCoverage, minCoverageTerms and minCoverageEvidence are the
	// coverage way through: a hit holding this share of the query's
	// attainable BM25F, on at least this many query words, with at least
	// this much evidence.
	minCoverage         = 0.75
	minCoverageTerms    = 3
	minCoverageEvidence = 1.0
)

// questionFloor is the share of the floor a prompt that asks for no work
// (intent.go) needs in a KB of up to idfCapDocs learnings. The floor was
// set when the silent prompts it kept out were mostly requests for work;
// with those held to twice the floor, a question or a symptom can be taken
// on a little less. Not above idfCapDocs: there every word's idf reaches
// the cap once the KB has few learnings that use it, everyday words of a
// request too, and the floor is what keeps them out. Chosen on the tuning
// part as the lowest of 1, 0.9, 0.85 and 0.8 at which the floor alone
// keeps false injection within 0.03 at every size up to idfCapDocs, on
// both paddings (scripts/gaterefit.py).
const questionFloor = 0.9

// idfCapDocs is the KB size whose largest idf caps every word's idf.
const idfCapDocs = 1000

// IDFCap is the idf cap recall searches with (index.Query.IDFCap).
var IDFCap = maxIDF(idfCapDocs)

// floorFor is the evidence a hit needs for a query of terms words.
func floorFor(terms int, minEv, perRootTerm float64) float64 {
	return math.Max(minEv, perRootTerm*math.Sqrt(float64(terms)))
}

// maxIDF is BM25's idf of a word found in one of docs learnings, with the
// Robertson–Spärck Jones form that index uses: ln(1 + (N − df + ½)/(df + ½)).
func maxIDF(docs int) float64 {
	if docs < 1 {
		return 0
	}
	return math.Log(1 + (float64(docs)-0.5)/1.5)
}

// evidence is a hit's BM25F score in units of the largest idf a word can
// score in a KB of docs learnings, capped as the search caps it.
func evidence(r index.Result, docs int) float64 {
	m := math.Min(maxIDF(docs), IDFCap)
	if m <= 0 {
		return 0
	}
	return r.Why.BM25 / m
}

// coverage is the share of the query's attainable BM25F a hit holds.
func coverage(r index.Result) float64 {
	if r.Why.QueryBM25 <= 0 {
		return 0
	}
	return r.Why.BM25 / r.Why.QueryBM25
}

// clears reports whether a hit of evidence e clears floor, directly or by
// coverage.
func clears(r index.Result, e, floor float64) bool {
	if e >= floor {
		return true
	}
	return e >= minCoverageEvidence && r.Why.MatchedTerms >= minCoverageTerms && coverage(r) >= minCoverage
}

// aboveFloor keeps the results of a query of terms words that clear the
// floor, with their evidence, best first (see rankKept).
func aboveFloor(results []index.Result, docs, terms int) ([]index.Result, []float64) {
	return rankKept(filterFloor(results, docs, floorFor(terms, minEvidence, minEvidencePerRootTerm), minRelative))
}

// throughGate keeps the results of a prompt's query that the gate lets
// through, with their evidence, best first (see rankKept). A request for
// work (intent.go) keeps only what clears requestFloor times the floor. Any
// other prompt gets learnings only when the gate (gate.go) admits the hit
// with the best BM25F, or that hit holds a code span the prompt quotes
// (codespan.go): then that hit and the others that clear the prompt's floor
// (promptFloor). A task the MCP recall tool is asked about (task) is not
// vetoed: the agent asked, and the veto was calibrated on prompts typed to
// an agent. gate is the level whose thresholds apply.
func throughGate(results []index.Result, docs int, query string, request, task bool, gate Gate) ([]index.Result, []float64) {
	terms := len(index.Terms(query))
	if request {
		floor := floorFor(terms, minEvidence, minEvidencePerRootTerm)
		return rankKept(filterPassing(results, docs, func(r index.Result, e float64) bool {
			return r.Why.BM25 > 0 && e >= requestFloor*floor
		}, minRelative))
	}
	top := -1
	for i, r := range results {
		if r.Why.BM25 > 0 && (top < 0 || r.Why.BM25 > results[top].Why.BM25) {
			top = i
		}
	}
	if top < 0 {
		return nil, nil
	}
	if f := hitFeatures(results, top, docs, query); !quotesCode(results[top], query, terms) && !(task && f.Clears > 0) && !gate.admits(f) {
		return nil, nil
	}
	floor := promptFloor(terms, docs)
	return rankKept(filterPassing(results, docs, func(r index.Result, e float64) bool {
		return r.Why.BM25 > 0 && (clears(r, e, floor) || r.ID == results[top].ID)
	}, minRelative))
}

// promptFloor is the floor of a prompt of terms words that asks for no
// work, in a KB of docs learnings: questionFloor of it up to idfCapDocs.
func promptFloor(terms, docs int) float64 {
	floor := floorFor(terms, minEvidence, minEvidencePerRootTerm)
	if docs <= idfCapDocs {
		floor *= questionFloor
	}
	return floor
}

// rankKept orders the hits that passed by evidence × the index's
// confidence, scope, recency and freshness factors.
//
// Not by the index's Score: that fuses the trigram, vector and graph
// signals too, while what let a hit through is its lexical evidence; the
// same factors applied to the evidence stay the modest adjustments they
// were meant to be, so a learning of this project that shares two words
// with the prompt is not "the top hit" over the one that matches its error
// message.
func rankKept(kept []index.Result, ev []float64) ([]index.Result, []float64) {
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
	return filterPassing(results, docs, func(r index.Result, e float64) bool { return clears(r, e, floor) }, minRel)
}

// filterPassing keeps the results that pass with at least minRel times the
// best passing one's evidence.
func filterPassing(results []index.Result, docs int, pass func(r index.Result, e float64) bool, minRel float64) ([]index.Result, []float64) {
	best := 0.0
	for _, r := range results {
		if e := evidence(r, docs); pass(r, e) {
			best = math.Max(best, e)
		}
	}
	if best == 0 {
		return nil, nil
	}
	var kept []index.Result
	var ev []float64
	for _, r := range results {
		e := evidence(r, docs)
		if pass(r, e) && e >= minRel*best {
			kept = append(kept, r)
			ev = append(ev, e)
		}
	}
	return kept, ev
}
