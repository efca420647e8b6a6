package vector

import (
	"encoding/binary"
	"math"
	"runtime"
	"slices"
	"unsafe"

	"github.com/viterin/vek/vek32"
)

// codesMinRows is the file size from which Search scans the codes instead
// of the floats. The codes cost a fixed 0.6 ms or so (quantizing the query,
// reading a few hundred candidates at scattered places in the file) and
// save three quarters of the bytes scanned: on real 256-dimension rows,
// one core, a search for 100 hits took 0.7 ms through the codes and 0.4 ms
// over the floats at 4,000 rows, 1.3 ms either way at 8,000, 1.8 against
// 2.5 ms at 16,000 and 2.7 against 4.6 ms at 32,000 (docs/benchmarks.md).
const codesMinRows = 8192

// rescoreFor is how many candidates the code scan keeps for exact
// rescoring when k hits are asked for (a variable for tests). On 100,000
// real learnings, 799 queries at k = 10 and 100, this many proved 1,597
// of the 1,598 results (docs/benchmarks.md); each costs a pread.
var rescoreFor = func(k int) int { return max(4*k, 256) }

// boundSlack is the relative rounding error allowed for on top of the
// quantization error: float32 sums of a few thousand products, computed in
// different orders by the two scans, differ by far less (about n·2⁻²⁴).
const boundSlack = 1e-4

// searchCodes is Search over the codes: an int8 dot product with the
// quantized query gives each row an upper bound of its exact score (the
// quantization errors of row and query bound the difference, quantize);
// the rescoreFor(k) rows with the highest bounds are rescored exactly from
// their floats. If the k-th exact score beats every bound left out, those
// k are the exact scan's result, ties included; otherwise (1 result in
// 1,600 on real learnings, or a NaN in damaged codes) it reports false and
// Search scans the floats. Only the floats of the candidates are read.
func (f *File) searchCodes(q []float32, k int) ([]Hit, bool) {
	dim := f.hdr.Dim
	qc, b := quantizeQuery(q)
	sq := newSparseQuery(qc)
	c := min(rescoreFor(k), f.count)
	workers := min(runtime.GOMAXPROCS(0), f.count*dim/(4*parallelMinFloats))
	// The workers split the blocks, so that none reads another's.
	cand, nan := splitScan(workers, codesBlocks(f.count), c, func(lo, hi int, t *topK) int {
		return f.scanCodes(sq, b, lo*codesBlockRows, min(hi*codesBlockRows, f.count), t)
	})
	// A NaN bound is damage the scan cannot rank around; the heap is full
	// unless rows were skipped, and then some were not bounded.
	if nan > 0 || len(cand.h) < c {
		return nil, false
	}
	left := cand.threshold() // no row left out has a higher bound
	rows := make([]int, len(cand.h))
	for i, h := range cand.h {
		rows[i] = int(h.Key)
	}
	slices.Sort(rows) // in file order: fewer, nearer page faults
	// Each candidate is read with pread, not through the mapping: a fault
	// there maps the 64 KB around the row too (fault-around), so 400
	// candidates held up to 25 MB of the file resident until dropped.
	stride := f.stride
	buf := make([]float32, stride)
	raw := unsafe.Slice((*byte)(unsafe.Pointer(&buf[0])), 4*stride)
	t := newTopK(k)
	for _, i := range rows {
		row, key := buf[keyFloats:], uint64(0)
		if _, err := f.fd.ReadAt(raw, int64(f.rowsOff)+int64(i)*int64(4*stride)); err == nil {
			key = binary.LittleEndian.Uint64(raw)
		} else {
			row, key = f.Vector(i), f.Key(i)
		}
		var s float32
		if simd {
			s = vek32.Dot(q, row)
		} else {
			s = dot(q, row)
		}
		if s >= t.threshold() { // as scanRows: NaN never enters
			t.push(Hit{Key: key, Score: s})
		}
	}
	// A row left out scores at most left; strictly below the k-th score, it
	// cannot enter, not even on a tie broken by key.
	if len(t.h) < k || !(left < t.threshold()) {
		return nil, false
	}
	return t.sorted(), true
}

// bound turns a row's int8 dot product with the query into an upper bound
// of its exact score: for the row v ≈ d·c (error ≤ e, ‖d·c‖ ≤ m) and the
// query q ≈ dq·cq (error ≤ eq),
//
//	q·v = dq·d·(cq·c) + q·(v − d·c) + (q − dq·cq)·(d·c)
//	    ≤ dq·d·(cq·c) + ‖q‖·e + eq·m,
//
// with a little slack for rounding: a = ‖q‖·(1+slack), b = eq + slack·‖q‖.
type bound struct {
	dq, a, b float32
}

// quantizeQuery returns q's codes qc and the bound for q.
func quantizeQuery(q []float32) (qc []int8, b bound) {
	qc = make([]int8, len(q))
	dq, eq, _ := quantize(q, qc)
	var qn float64
	for _, x := range q {
		qn += float64(x) * float64(x)
	}
	qn = math.Sqrt(qn)
	return qc, bound{dq: dq, a: float32(qn * (1 + boundSlack)), b: float32(float64(eq) + boundSlack*qn)}
}

// upper is the bound for a row with scale d, error bound e and norm bound
// m whose codes have the int8 dot product dot with the query's.
func (b bound) upper(dot int32, d, e, m float32) float32 {
	return float32(dot)*(b.dq*d) + b.a*e + b.b*m
}

// scanCodes offers rows [lo, hi) to t by their bound (the Hit's key is the
// row index), a block of codesBlockRows rows at a time, handing back the
// pages of the blocks as it goes, and returns how many rows had a NaN
// bound. The int8 dots of a block's rows come from the columns of the
// query's nonzero dimensions only (dot8Cols), then each row's bound from
// its scale and error bounds, read in place in the mapping. Padding rows
// past the file's count are never offered (hi is at most the count).
//
// The blocks are taken in runs that start in one scanBlockBytes-aligned
// stretch of the file, and a run's drop reaches the end of that stretch:
// the drops then fall on whole aligned megabytes. Where the page cache
// holds the file in 2 MB folios the kernel maps them whole (PMD) into a
// mapping it aligned; a drop that ends short of such a boundary left them
// mapped (20 MB of the 26.8 MB codes of 100,000 rows stayed resident after
// a scan on Linux 6.18), while aligned drops hand them back as small
// folios are.
func (f *File) scanCodes(sq *sparseQuery, b bound, lo, hi int, t *topK) int {
	cs := f.q
	bb := codesBlockBytes(cs.dim)
	nan := 0
	thr := t.threshold()
	var dots [codesBlockRows]int32
	var touched byte
	blo, bhi := lo/codesBlockRows, (hi+codesBlockRows-1)/codesBlockRows
	from := int(codesBlockOff(blo, cs.dim)) // where the next drop starts
	for k := blo; k < bhi; {
		kend, end := codesBlock(k, bhi, bb)
		for ; k < kend; k++ {
			block := cs.block(k)
			ahead := 0
			if k+prefetchBlocks < bhi {
				ahead = prefetchBlocks * bb
				// A prefetch into a page not yet mapped is dropped: a load
				// of the block's first and last bytes faults its pages in
				// (fault-around maps the 64 KB around each). They are
				// this scan's blocks, dropped with their run.
				nb := cs.block(k + prefetchBlocks)
				touched += nb[0] + nb[len(nb)-1]
			}
			dot8Cols(block[codesBlockRows*4*codesRowFloats:], ahead, sq, &dots)
			fl := (*[codesBlockRows * codesRowFloats]float32)(unsafe.Pointer(&block[0]))
			base := k * codesBlockRows
			for r := max(lo-base, 0); r < min(hi-base, codesBlockRows); r++ {
				ub := b.upper(dots[r], fl[3*r], fl[3*r+1], fl[3*r+2])
				if !(ub >= thr) {
					if ub != ub {
						nan++
					}
					continue
				}
				if t.push(Hit{Key: uint64(base + r), Score: ub}) {
					thr = t.threshold()
				}
			}
		}
		cs.dropBytes(from, end)
		from = end
	}
	runtime.KeepAlive(touched)
	return nan
}

// prefetchBlocks is how many blocks ahead of the one it scores the scan
// prefetches the query's columns (dot8ColsAVX2), after mapping that
// block's pages (scanCodes). A scan of 100,000 rows for a query of 60
// nonzero codes took 6.7 ms of CPU without prefetching, about 5 ms two
// blocks ahead, 4.8 ms two blocks ahead with the pages mapped first and
// 4.3 ms four blocks ahead (BenchmarkSearch100kx256CodesSparse, medians
// of 7 on a busy 2-core VM; base 6.5 ms).
const prefetchBlocks = 4

// codesBlock returns the end bhi of the run of blocks (here "rows" of
// stride bytes) that starts at blo, before hi, and the end of the bytes
// its drop reaches: the rows that start before the next multiple of
// scanBlockBytes of the file and that multiple; or hi and the start of row
// hi, whose page may be another scan's, when the run reaches hi.
func codesBlock(blo, hi, stride int) (bhi, end int) {
	end = ((codesHeader+blo*stride)/scanBlockBytes + 1) * scanBlockBytes
	bhi = (end - codesHeader + stride - 1) / stride // the first row starting at or past end
	if bhi >= hi {
		return hi, codesHeader + hi*stride
	}
	return bhi, end
}
