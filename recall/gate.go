package recall

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/reflectkb/reflect/index"
)

// The injection gate for prompts: the relevance floor (floor.go) and two
// calibrated classifiers beside it, one on each side of it, for the hit with
// the best BM25F. Each reads that hit's features (see Features) and
// estimates the probability that it is what the prompt is about (logistic
// regression). Over the floor, the veto (vetoWeights) keeps the prompt
// silent when that probability is under the veto threshold, unless the
// prompt repeats maxPhraseRun words of the hit's title, key insight,
// symptoms or questions in order; under it, the rescue (rescueWeights)
// injects the hit all the same when the probability reaches the rescue
// threshold. Both thresholds are the Gate's, a level the user chooses. Only
// that hit is judged: the others that clear the floor follow it in or stay
// out with it.
//
// Why a veto: a prompt about another problem of the same tool clears the
// floor as easily as one about the learning's ("SyntaxError: Unexpected end
// of JSON input" against a learning on Jest's "SyntaxError: Unexpected
// token 'export'"); on such prompts the floor alone let one in six through.
// What tells them apart is how the hit stands against the rest of the KB
// and whether the prompt repeats its words in order.
//
// Why a rescue: BM25F in units of the largest idf drifts with the KB's size
// below idfCapDocs (a word in one learning of 40 scores 3.3, of 1,000 6.5),
// so a match that clears the floor in a new user's KB of 40 falls under it
// at 1,000 — where every signal still ranks it first.
//
// The features: the evidence over its floor; how the hit stands against the
// rest of the KB (its lead over the runner-up and over the mean of the top
// hits: the query-performance predictors NQC and WIG); how much of the query
// it holds and where (title, key insight, tags; identifiers the prompt
// names); and the longest run of the prompt's words found in order in its
// title, key insight, symptoms or questions (the questions a learning
// answers are written in the words users type, so a prompt put the same way
// repeats them).

// Features are what the gate knows of one hit.
type Features struct {
	// FloorRatio is log(evidence / floor): the old relevance floor's
	// verdict, as a margin (0 at the floor).
	FloorRatio float64 `json:"floor_ratio"`
	// Coverage is the share of the query's attainable BM25F the hit holds.
	Coverage float64 `json:"coverage"`
	// Matched is the share of the query's words the hit contains.
	Matched float64 `json:"matched"`
	// Lead is 1 − runner-up BM25F / this hit's: 0 when another hit is as
	// strong, 1 when no other matches at all.
	Lead float64 `json:"lead"`
	// WIG is 1 − mean BM25F of the top hits / this hit's.
	WIG float64 `json:"wig"`
	// Fields is the share of the query's words found in the hit's title,
	// key insight or tags.
	Fields float64 `json:"fields"`
	// Identifiers is the share of the query's code-like tokens (paths,
	// flags, error codes) the hit contains; 0 when the query has none.
	Identifiers float64 `json:"identifiers"`
	// Size is log10 of the KB's size over 3, within [1/3, 1]: lead and
	// WIG mean little in a KB of ten, where one match is often the only
	// one, and they are weighed by it.
	Size float64 `json:"size"`
	// Clears is 1 when the hit clears the relevance floor of a prompt that
	// asks for no work (floor.go), else 0: it picks the classifier.
	Clears float64 `json:"clears"`
	// Phrase is the longest run of the query's words found in order in the
	// hit's title, key insight, symptoms or questions (phraseRun), over
	// maxPhraseRun.
	Phrase float64 `json:"phrase"`
	// Questions is 1 when the hit has the questions it answers, else 0: a
	// prompt finds a run of its words in more text then, so the same run
	// says a little less.
	Questions float64 `json:"questions"`
	// Probability is the gate's estimate that the hit is the one asked
	// for, by the classifier of its side of the floor (the veto over it,
	// the rescue under it).
	Probability float64 `json:"probability"`
}

// wigDepth is how many of the best hits WIG averages over.
const wigDepth = 5

// gateFeatures computes the gate's features for every result with lexical
// evidence (others get zero Features) in a KB of docs learnings, for query.
func gateFeatures(results []index.Result, docs int, query string) []Features {
	out := make([]Features, len(results))
	for i := range results {
		out[i] = hitFeatures(results, i, docs, query)
	}
	return out
}

// hitFeatures computes the gate's features of results[i] (zero Features
// when it has no lexical evidence).
func hitFeatures(results []index.Result, i, docs int, query string) Features {
	r := results[i]
	if r.Why.BM25 <= 0 {
		return Features{}
	}
	terms := index.Terms(query)
	var bm []float64
	for _, x := range results {
		if x.Why.BM25 > 0 {
			bm = append(bm, x.Why.BM25)
		}
	}
	sort.Sort(sort.Reverse(sort.Float64Slice(bm)))
	mean := 0.0
	k := min(wigDepth, len(bm))
	for _, b := range bm[:k] {
		mean += b
	}
	mean /= float64(k)
	var f Features
	f.FloorRatio = math.Log(math.Max(evidence(r, docs), 1e-3) / floorFor(len(terms), minEvidence, minEvidencePerRootTerm))
	f.Coverage = coverage(r)
	if len(terms) > 0 {
		f.Matched = math.Min(1, float64(r.Why.MatchedTerms)/float64(len(terms)))
	}
	other := 0.0 // the best BM25F of another hit
	if len(bm) > 1 {
		other = bm[0]
		if r.Why.BM25 >= bm[0] {
			other = bm[1]
		}
	}
	f.Lead = math.Max(0, 1-other/r.Why.BM25)
	f.WIG = 1 - mean/r.Why.BM25
	queryStems := index.Stems(strings.Join(terms, " "))
	slices.Sort(queryStems)
	if queryStems = slices.Compact(queryStems); len(queryStems) > 0 {
		have := map[string]bool{}
		for _, s := range index.Stems(r.Title + " " + r.KeyInsight + " " + strings.Join(r.Tags, " ")) {
			have[s] = true
		}
		n := 0
		for _, s := range queryStems {
			if have[s] {
				n++
			}
		}
		f.Fields = float64(n) / float64(len(queryStems))
	}
	f.Identifiers = r.Why.Identifiers
	f.Size = math.Min(1, math.Log10(math.Max(10, float64(docs)))/3)
	if clears(r, evidence(r, docs), promptFloor(len(terms), docs)) {
		f.Clears = 1
	}
	fields, questions := index.QuotableFields(r)
	f.Phrase = float64(phraseRun(query, fields)) / maxPhraseRun
	if questions {
		f.Questions = 1
	}
	f.Probability = gateProbability(f)
	return f
}

// The classifiers' intercepts and coefficients, in this order: FloorRatio,
// Coverage, Matched, Lead × Size, WIG × Size, Fields, Identifiers, Size,
// Phrase, Questions. Each is fitted on the tuning part of the userset
// (bench/userset, the prompts whose FNV-1a id hash is not 0 mod 3) at KB
// sizes 10, 100, 1,000 and 10,000, on both paddings, with and without the learnings'
// questions, on the hit with the best BM25F of each prompt whose hit is on
// its side of the floor, each size and class weighed alike, L2 0.01 on
// standardised features; the prompts that ask for work (intent.go) are left
// out, as they are held to twice the floor instead (scripts/gaterefit.py).
var (
	vetoWeights   = [...]float64{-6.160, 1.517, 2.408, 5.558, 3.575, 1.581, 0.613, 0.762, -1.714, 2.991, -0.437}
	rescueWeights = [...]float64{-2.107, 3.026, 0.375, 3.843, 4.446, -0.159, 2.471, 4.193, -1.389, 4.492, -0.831}
)

// Gate is how readily the gate lets a prompt have learnings: the false
// injection the user accepts for more recall (config recall.gate). Each
// level is the pair of thresholds, over the floor and under it, that
// recalls the most error, identifier and natural prompts of the userset's
// tuning part while false injection stays within the level's rate at every
// size (10 to 10,000 learnings), on both paddings, with and without
// questions, chosen together in steps of 0.02 (scripts/gaterefit.py
// --curve). What each buys on the held-out part is in docs/ranking.md.
type Gate string

// The gate's levels; the zero Gate is GateStrict.
const (
	// GateStrict holds false injection within 0.03, the issue 28 target.
	GateStrict Gate = "strict"
	// GateBalanced holds it within 0.05.
	GateBalanced Gate = "balanced"
	// GateEager holds it within 0.10.
	GateEager Gate = "eager"
)

// Gates lists the levels, strictest first.
var Gates = []Gate{GateStrict, GateBalanced, GateEager}

// gateThresholds are each level's thresholds: the probability under which
// a prompt whose best hit clears the floor gets nothing (veto), and the
// one at which the best hit, when it is under the floor, is injected all
// the same (rescue): where every signal agrees (a wide lead over the rest
// of the KB, the query's words in the title, the identifier it names, the
// user's question repeated), though the words it shares are not rare
// enough for the floor.
var gateThresholds = map[Gate]struct{ veto, rescue float64 }{
	GateStrict:   {veto: 0.30, rescue: 0.94},
	GateBalanced: {veto: 0.16, rescue: 0.94},
	GateEager:    {veto: 0.06, rescue: 0.90},
}

// ParseGate reads a level by its name; the empty string is GateStrict.
func ParseGate(s string) (Gate, error) {
	g := Gate(strings.ToLower(strings.TrimSpace(s)))
	if g == "" {
		return GateStrict, nil
	}
	if _, ok := gateThresholds[g]; !ok {
		return "", fmt.Errorf("%q is not a gate level; use strict, balanced or eager", s)
	}
	return g, nil
}

// thresholds are g's veto and rescue thresholds; an unknown or zero Gate
// is GateStrict.
func (g Gate) thresholds() (veto, rescue float64) {
	t, ok := gateThresholds[g]
	if !ok {
		t = gateThresholds[GateStrict]
	}
	return t.veto, t.rescue
}

// gateProbability is the estimate of the classifier on f's side of the
// floor.
func gateProbability(f Features) float64 {
	w := rescueWeights
	if f.Clears > 0 {
		w = vetoWeights
	}
	z := w[0] + w[1]*f.FloorRatio + w[2]*f.Coverage + w[3]*f.Matched + w[4]*f.Lead*f.Size + w[5]*f.WIG*f.Size +
		w[6]*f.Fields + w[7]*f.Identifiers + w[8]*f.Size + w[9]*f.Phrase + w[10]*f.Questions
	return 1 / (1 + math.Exp(-z))
}

// admits reports whether gate g lets a prompt whose best hit has features
// f have learnings.
func (g Gate) admits(f Features) bool {
	veto, rescue := g.thresholds()
	if f.Clears > 0 {
		return f.Phrase >= 1 || f.Probability >= veto
	}
	return f.Probability >= rescue
}
