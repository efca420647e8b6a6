package index

import (
	"encoding/binary"
	"sort"
)

// Exact top-k pruning for lexical scoring (MaxScore, Turtle & Flood 1995).
//
// A stem adds at most its idf to a learning's score (BM25F's saturation
// pseudo/(k1+pseudo) stays below 1), so once the top-k heap is full, a
// learning whose stems' idfs add up to less than the k-th best score
// cannot enter it. In each chunk the stems are taken rarest last: the
// longest run of common ones whose idfs together stay under that score is
// "non-essential", as a learning holding only those cannot enter; only the
// learnings holding an essential stem are candidates, and of those only
// the ones whose bound (their essential stems' idfs plus every
// non-essential one's) reaches the threshold are scored. The rest of the
// chunk's entries are read past without the divisions that are most of
// the cost of scoring. A recalling prompt at 100,000 learnings scores
// about 3,000 of its 125,000 entries this way (docs/benchmarks.md).
//
// Scores of the learnings that are scored are computed exactly as before,
// stem by stem in the order read, so the top k and every score are the
// same to the last bit; a learning is skipped only when its bound is below
// the threshold by more than any rounding of these sums (pruneMargin).

// pruneMargin is how far below the threshold a bound must be for its
// learning to be skipped: far above the rounding error of a sum of a few
// dozen idfs, far below any difference of scores a ranking can see.
const pruneMargin = 1e-9

// pruner holds one chunk's work arrays between chunks.
type pruner struct {
	bound   []float64 // per offset: the idfs of its essential stems
	want    []bool
	touched []int
	order   []int
}

// candidates returns which offsets of a chunk whose postings are ps need
// a score, or nil when every one does (the heap still has room).
func (pr *pruner) candidates(ps []postingChunk, idf func(string) float64, top *topK) []bool {
	theta, full := top.threshold()
	if !full {
		return nil
	}
	if pr.bound == nil {
		pr.bound = make([]float64, 1<<chunkShift)
		pr.want = make([]bool, 1<<chunkShift)
	}
	for _, off := range pr.touched {
		pr.bound[off] = 0
		pr.want[off] = false
	}
	pr.touched = pr.touched[:0]
	pr.order = pr.order[:0]
	for i := range ps {
		// The bound needs every idf positive: it is of a catalog whose
		// counts add up (a damaged one is scored in full).
		if !(idf(ps[i].term) > 0) {
			return nil
		}
		pr.order = append(pr.order, i)
	}
	sort.SliceStable(pr.order, func(a, b int) bool { return idf(ps[pr.order[a]].term) < idf(ps[pr.order[b]].term) })
	// The non-essential stems: the common ones whose idfs together stay
	// below the threshold.
	rest := 0.0
	essential := 0
	for essential < len(pr.order) {
		v := idf(ps[pr.order[essential]].term)
		if rest+v+pruneMargin >= theta {
			break
		}
		rest += v
		essential++
	}
	for _, i := range pr.order[essential:] {
		v := idf(ps[i].term)
		eachOffset(ps[i].entries, func(off int) {
			if !pr.want[off] {
				pr.want[off] = true
				pr.touched = append(pr.touched, off)
			}
			pr.bound[off] += v
		})
	}
	for _, off := range pr.touched {
		pr.want[off] = pr.bound[off]+rest+pruneMargin >= theta
	}
	return pr.want
}

// eachOffset calls fn with the offset in its chunk of every entry of a
// chunk's postings (after the count), reading only the entry headers.
// Damaged data ends it quietly, as it does eachEntry.
func eachOffset(data []byte, fn func(off int)) {
	off := -1
	i := 0
	for i < len(data) {
		h, k := uvarintAt(data, i)
		if k <= 0 || h&entryMask == 0 || h>>entryShift >= 1<<chunkShift {
			return
		}
		i += k
		off += int(h>>entryShift) + 1
		if off >= 1<<chunkShift {
			return
		}
		fn(off)
		if h&entryOnes != 0 {
			continue
		}
		for f := 0; f < numFields; f++ {
			if h&(1<<f) != 0 {
				_, k := uvarintAt(data, i)
				if k <= 0 {
					return
				}
				i += k
			}
		}
	}
}

// uvarintAt reads a uvarint at data[i:], with its length (0 or less on
// damage, as binary.Uvarint).
func uvarintAt(data []byte, i int) (uint64, int) {
	if i < len(data) && data[i] < 0x80 {
		return uint64(data[i]), 1
	}
	return binary.Uvarint(data[i:])
}
