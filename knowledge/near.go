package knowledge

import (
	"math"
	"slices"

	"github.com/reflectkb/reflect/index"
)

// nearSet answers NearDuplicate for many learnings at once, in memory:
// Import compares a whole batch with every indexed learning and with the
// batch's earlier rules, where a search per rule made a large import
// slow. Its answer is the learning of greatest share (Jaccard of title
// and key-insight terms) at or above NearDuplicateShare, among all of
// them rather than among a search's best hits.
//
// To look at few candidates it filters by prefix (the all-pairs set
// similarity join): with terms ordered rarest first, two term sets
// sharing at least that much have a term in common among the first
// len-minOverlap(len)+1 of each, so only those terms are posted.
type nearSet struct {
	rank  map[string]int
	items []nearItem
	post  map[int][]int
	// seen marks the candidates of the current query (by query number),
	// so each is compared once.
	seen  []int
	query int
}

// nearItem is one learning a later one may repeat.
type nearItem struct {
	id, title      string
	scope, project string
	// fromBatch marks a learning of the batch being imported, file its
	// source.file.
	fromBatch bool
	file      string
	terms     []int // ranks, ascending
}

// newNearSet orders the terms of texts (all the texts the set will see)
// rarest first.
func newNearSet(texts []string) *nearSet {
	df := map[string]int{}
	for _, t := range texts {
		for _, term := range index.Terms(t) {
			df[term]++
		}
	}
	terms := make([]string, 0, len(df))
	for t := range df {
		terms = append(terms, t)
	}
	slices.SortFunc(terms, func(a, b string) int {
		if df[a] != df[b] {
			return df[a] - df[b]
		}
		if a < b {
			return -1
		}
		return 1
	})
	rank := make(map[string]int, len(terms))
	for i, t := range terms {
		rank[t] = i
	}
	return &nearSet{rank: rank, post: map[int][]int{}}
}

// termsOf is the ranked term set of a learning's title and key insight.
// A term the set was not told of goes last, keeping one order for all.
func (ns *nearSet) termsOf(title, insight string) []int {
	var out []int
	for _, t := range index.Terms(title + " " + insight) {
		r, ok := ns.rank[t]
		if !ok {
			r = len(ns.rank)
			ns.rank[t] = r
		}
		out = append(out, r)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// minOverlap is how many terms a set of n terms must share with another
// for their share to reach NearDuplicateShare.
func minOverlap(n int) int {
	return max(1, int(math.Ceil(NearDuplicateShare*float64(n)-1e-9)))
}

// add makes it a candidate of later queries.
func (ns *nearSet) add(it nearItem) {
	if len(it.terms) == 0 {
		return
	}
	i := len(ns.items)
	ns.items = append(ns.items, it)
	ns.seen = append(ns.seen, 0)
	for _, t := range it.terms[:len(it.terms)-minOverlap(len(it.terms))+1] {
		ns.post[t] = append(ns.post[t], i)
	}
}

// best returns the candidate with the greatest share of terms with the
// query, at least NearDuplicateShare, among those accept allows.
func (ns *nearSet) best(terms []int, accept func(*nearItem) bool) (*nearItem, float64) {
	if len(terms) == 0 {
		return nil, 0
	}
	ns.query++
	var (
		found *nearItem
		share float64
	)
	for _, t := range terms[:len(terms)-minOverlap(len(terms))+1] {
		for _, i := range ns.post[t] {
			if ns.seen[i] == ns.query {
				continue
			}
			ns.seen[i] = ns.query
			it := &ns.items[i]
			if !accept(it) {
				continue
			}
			inter := overlap(terms, it.terms)
			sim := float64(inter) / float64(len(terms)+len(it.terms)-inter)
			if sim >= NearDuplicateShare && sim > share {
				found, share = it, sim
			}
		}
	}
	return found, share
}

// overlap counts the ranks two ascending sets share.
func overlap(a, b []int) int {
	n := 0
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i] == b[j]:
			n++
			i++
			j++
		case a[i] < b[j]:
			i++
		default:
			j++
		}
	}
	return n
}
