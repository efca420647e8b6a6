package vector

import (
	"math"
	"runtime"
	"slices"
	"sync"

	"github.com/viterin/vek"
	"github.com/viterin/vek/vek32"
)

// Hit is a search result: a document key and its score, the dot product of
// the query and the stored vector (the cosine when both are unit vectors).
type Hit struct {
	Key   uint64
	Score float32
}

// parallelMinFloats is the scan size (rows × dim) from which Search splits
// the rows across goroutines: below it (about 4,000 vectors of 256) one
// core finishes before a second would have started. Above it the scan is
// bound by memory bandwidth, which a second core roughly doubles.
const parallelMinFloats = 1 << 20

// Search returns the k rows with the highest dot product with q, best
// first; equal scores rank the smaller key first, so the result does not
// depend on row order or on how the scan was split. When filter is not nil
// only rows whose key it accepts are considered; it is called only for rows
// that would enter the current top k, and may be called from several
// goroutines at once. Search returns nil when len(q) != Dim(), k <= 0, or q
// has a NaN or infinite component.
//
// The result is the exact scan's: every row is scored. From codesMinRows
// rows, with codes that match the file and no filter, the rows are scored
// by their int8 codes first and only the best candidates from their
// floats (searchCodes), which returns the same hits when it can prove
// them the same and otherwise leaves it to the scan of the floats. It
// allocates nothing per row.
func (f *File) Search(q []float32, k int, filter func(key uint64) bool) []Hit {
	if f.count == 0 || k <= 0 || len(q) != f.hdr.Dim || !finite(q) {
		return nil
	}
	k = min(k, f.count)
	// Rescoring reads each candidate on its own: when they are a good part
	// of the file (a very large k), one pass over the floats is cheaper.
	if f.q != nil && filter == nil && f.count >= codesMinRows && rescoreFor(k) <= f.count/8 {
		if hits, ok := f.searchCodes(q, k); ok {
			return hits
		}
	}
	workers := min(runtime.GOMAXPROCS(0), f.count*f.hdr.Dim/parallelMinFloats)
	t, _ := splitScan(workers, f.count, k, func(lo, hi int, t *topK) int {
		f.scan(q, lo, hi, filter, t)
		return 0
	})
	return t.sorted()
}

// splitScan runs scan over rows [0, count) in workers contiguous parts at
// once (one part on the calling goroutine when workers ≤ 1), each into its
// own top k, and merges them. It returns the merged top k and the sum of
// what the parts returned (a count of damaged rows, say).
func splitScan(workers, count, k int, scan func(lo, hi int, t *topK) int) (topK, int) {
	t := newTopK(k)
	if workers <= 1 {
		return t, scan(0, count, &t)
	}
	parts := make([]topK, workers)
	sums := make([]int, workers)
	var wg sync.WaitGroup
	for w := range parts {
		lo, hi := w*count/workers, (w+1)*count/workers
		parts[w] = newTopK(k)
		wg.Add(1)
		go func() {
			defer wg.Done()
			sums[w] = scan(lo, hi, &parts[w])
		}()
	}
	wg.Wait()
	sum := 0
	for w, p := range parts {
		sum += sums[w]
		for _, h := range p.h {
			t.push(h)
		}
	}
	return t, sum
}

// scanBlockBytes is how much of the mapping a pass over the rows reads
// before it hands the pages back (dropScanned).
const scanBlockBytes = 1 << 20

// scan scores rows [lo, hi) into t.
func (f *File) scan(q []float32, lo, hi int, filter func(uint64) bool, t *topK) {
	f.inBlocks(lo, hi, func(lo, hi int) { f.scanRows(q, lo, hi, filter, t) })
}

// inBlocks calls fn for rows [lo, hi) a block at a time, and the pages of
// each block leave the process's resident set once fn is done with them:
// a pass over 100,000 vectors (100 MB) costs a megabyte of RSS instead of
// the whole file. They stay in the page cache for the next reader
// (docs/benchmarks.md "Scale").
func (f *File) inBlocks(lo, hi int, fn func(lo, hi int)) {
	block := max(1, scanBlockBytes/(f.stride*4))
	for b := lo; b < hi; b += block {
		end := min(b+block, hi)
		fn(b, end)
		f.dropScanned(b, end)
	}
}

// dropScanned hands back the whole pages of rows [lo, hi) (madvise
// MADV_DONTNEED on the read-only shared mapping: the next access reads
// them again from the page cache, so nothing is lost). A page shared with
// a neighbouring block is kept, so concurrent scans of adjacent ranges
// drop only what each has read.
func (f *File) dropScanned(lo, hi int) {
	rowBytes := f.stride * 4
	start := f.rowsOff + lo*rowBytes
	end := f.rowsOff + hi*rowBytes
	start = (start + pageSize - 1) &^ (pageSize - 1)
	end &^= pageSize - 1
	if end > start {
		dropPages(f.data[start:end])
	}
}

// scanRows scores rows [lo, hi) into t.
func (f *File) scanRows(q []float32, lo, hi int, filter func(uint64) bool, t *topK) {
	dim, stride, fl := f.hdr.Dim, f.stride, f.floats
	q = q[:dim:dim]
	thr := t.threshold()
	for i := lo; i < hi; i++ {
		off := i*stride + keyFloats
		row := fl[off : off+dim : off+dim]
		var s float32
		if simd {
			s = vek32.Dot(q, row)
		} else {
			s = dot(q, row)
		}
		// Most rows stop here; the negated comparison also drops NaN.
		if !(s >= thr) {
			continue
		}
		key := f.Key(i)
		if filter != nil && !filter(key) {
			continue
		}
		if t.push(Hit{Key: key, Score: s}) {
			thr = t.threshold()
		}
	}
}

// simd says whether the scan uses vek32's AVX2+FMA dot product. It roughly
// halves the CPU time of a scan (docs/benchmarks.md), which brings it down
// to the cost of merely reading the rows from memory; dot is the portable
// fallback.
var simd = vek.Info().Acceleration

// dot is the scan's portable inner loop: eight independent accumulators keep
// the floating-point adders busy instead of waiting on one dependency
// chain, and the fixed-size sub-slices let the compiler drop the bounds
// checks inside the unrolled body. len(b) must be at least len(a).
func dot(a, b []float32) float32 {
	var s0, s1, s2, s3, s4, s5, s6, s7 float32
	n := len(a)
	b = b[:n]
	i := 0
	for ; i+8 <= n; i += 8 {
		x := a[i : i+8 : i+8]
		y := b[i : i+8 : i+8]
		s0 += x[0] * y[0]
		s1 += x[1] * y[1]
		s2 += x[2] * y[2]
		s3 += x[3] * y[3]
		s4 += x[4] * y[4]
		s5 += x[5] * y[5]
		s6 += x[6] * y[6]
		s7 += x[7] * y[7]
	}
	for ; i < n; i++ {
		s0 += a[i] * b[i]
	}
	return ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))
}

func finite(v []float32) bool {
	for _, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return false
		}
	}
	return true
}

// topK keeps the k best hits seen so far in a min-heap whose root is the
// worst of them, so a new hit is compared with one element and, if better,
// replaces it in O(log k).
type topK struct {
	h []Hit
	k int
}

func newTopK(k int) topK { return topK{h: make([]Hit, 0, k), k: k} }

// worse reports whether a ranks below b: a lower score, or the same score
// and a larger key (so ties break the same way however rows are visited).
func worse(a, b Hit) bool {
	return a.Score < b.Score || (a.Score == b.Score && a.Key > b.Key)
}

// threshold is the score a row must reach to be worth a push: -Inf until
// the heap is full, then the worst kept score.
func (t *topK) threshold() float32 {
	if len(t.h) < t.k {
		return float32(math.Inf(-1))
	}
	return t.h[0].Score
}

// push offers x and reports whether the heap changed.
func (t *topK) push(x Hit) bool {
	h := t.h
	if len(h) < t.k {
		h = append(h, x)
		i := len(h) - 1
		for i > 0 {
			p := (i - 1) / 2
			if !worse(h[i], h[p]) {
				break
			}
			h[i], h[p] = h[p], h[i]
			i = p
		}
		t.h = h
		return true
	}
	if !worse(h[0], x) {
		return false
	}
	h[0] = x
	i := 0
	for {
		c := 2*i + 1
		if c >= len(h) {
			break
		}
		if c+1 < len(h) && worse(h[c+1], h[c]) {
			c++
		}
		if !worse(h[c], h[i]) {
			break
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
	return true
}

// sorted returns the kept hits best first.
func (t *topK) sorted() []Hit {
	slices.SortFunc(t.h, func(a, b Hit) int {
		switch {
		case worse(b, a):
			return -1
		case worse(a, b):
			return 1
		}
		return 0
	})
	return t.h
}

// Score returns the dot product of q with the vector stored under each of
// keys, for files whose rows are in ascending key order (as the index
// writes them): each key is found by interpolation search, so scoring a few
// hundred candidates touches a few hundred rows, not the file. Keys that
// are not in the file are left out. Results are best first, ties by key.
func (f *File) Score(q []float32, keys []uint64) []Hit {
	if f.count == 0 || len(q) != f.hdr.Dim || !finite(q) {
		return nil
	}
	out := make([]Hit, 0, len(keys))
	for _, k := range keys {
		if i, ok := f.find(k); ok {
			out = append(out, Hit{Key: k, Score: dot(q, f.Vector(i))})
		}
	}
	slices.SortFunc(out, byScore)
	return out
}

// byScore orders hits best first, ties by key, so every ranking of the
// same scores is the same list.
func byScore(a, b Hit) int {
	switch {
	case a.Score > b.Score:
		return -1
	case a.Score < b.Score:
		return 1
	case a.Key < b.Key:
		return -1
	case a.Key > b.Key:
		return 1
	}
	return 0
}

// find locates key in a file sorted by key. Keys are the index's row
// numbers, nearly dense, so interpolation search lands on or next to the
// row at once: each probe reads a row in another page of the mapping, and
// binary search's dozen probes per key cost a page fault each.
func (f *File) find(key uint64) (int, bool) {
	lo, hi := 0, f.count-1
	for lo <= hi {
		kl, kh := f.Key(lo), f.Key(hi)
		if key < kl || key > kh {
			return 0, false
		}
		i := lo
		if kh > kl {
			i = lo + int(float64(key-kl)/float64(kh-kl)*float64(hi-lo))
		}
		switch k := f.Key(i); {
		case k == key:
			return i, true
		case k < key:
			lo = i + 1
		default:
			hi = i - 1
		}
	}
	return 0, false
}
