package index

import (
	"math/bits"
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
// about 45,000 of its 125,000 entries this way (docs/benchmarks.md).
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
		pr.touched = markOffsets(ps[i].entries, idf(ps[i].term), pr.bound, pr.want, pr.touched)
	}
	for _, off := range pr.touched {
		pr.want[off] = pr.bound[off]+rest+pruneMargin >= theta
	}
	return pr.want
}

// markOffsets adds v to the bound of every learning with an entry in a
// chunk's postings (after the count), marks it in seen and lists it in
// touched the first time; it reads only what an entry's offset needs. The
// entries are parsed as scoreEntries parses them, so on damaged data both
// stop at the same entry.
func markOffsets(data []byte, v float64, bound []float64, seen []bool, touched []int) []int {
	off := -1
	i := 0
	for i < len(data) {
		h, next, ok := readUvarint(data, i)
		if !ok || h&entryMask == 0 || h>>entryShift >= 1<<chunkShift {
			return touched
		}
		off += int(h>>entryShift) + 1
		if off >= 1<<chunkShift {
			return touched
		}
		if !seen[off] {
			seen[off] = true
			touched = append(touched, off)
		}
		bound[off] += v
		if i, ok = skipTFs(data, next, h); !ok {
			return touched
		}
	}
	return touched
}

// readUvarint reads a uvarint at data[i:] as scoreEntries does (at most
// six bytes), returning the value and where the next one starts; ok is
// false at the end of the data or on damage.
func readUvarint(data []byte, i int) (x uint64, next int, ok bool) {
	if i >= len(data) {
		return 0, i, false
	}
	b := data[i]
	i++
	x, shift := uint64(b&0x7f), uint(7)
	for b >= 0x80 {
		if i >= len(data) || shift > 35 {
			return 0, i, false
		}
		b = data[i]
		i++
		x |= uint64(b&0x7f) << shift
		shift += 7
	}
	return x, i, true
}

// skipTFs returns where an entry whose header is h ends, its term
// frequencies (one uvarint per field in its mask, unless the ones bit is
// set) starting at data[i:]; ok is false on damage.
func skipTFs(data []byte, i int, h uint64) (int, bool) {
	if h&entryOnes != 0 {
		return i, true
	}
	for n := bits.OnesCount64(h & entryMask); n > 0; n-- {
		if i < len(data) && data[i] < 0x80 {
			i++
			continue
		}
		var ok bool
		if _, i, ok = readUvarint(data, i); !ok {
			return i, false
		}
	}
	return i, true
}
