package vector

import "unsafe"

// sparseQuery is a quantized query as the column kernels take it: only
// its nonzero codes, which are all that an int8 dot product needs.
type sparseQuery struct {
	dims []int    // the dimensions whose code is not zero, ascending
	vals []int32  // their codes
	off  []int64  // dims[k]·codesBlockRows: where their columns are in a block
	qw   []uint32 // per dimension k, qw[2k] = (code, 0) and qw[2k+1] = (0, code) as int16 pairs (dot8ColsAVX2)
}

// newSparseQuery lists the nonzero codes of qc (in -127..127).
func newSparseQuery(qc []int8) *sparseQuery {
	sq := &sparseQuery{}
	for j, x := range qc {
		if x == 0 {
			continue
		}
		w := uint32(uint16(int16(x)))
		sq.dims = append(sq.dims, j)
		sq.vals = append(sq.vals, int32(x))
		sq.off = append(sq.off, int64(j)*codesBlockRows)
		sq.qw = append(sq.qw, w, w<<16)
	}
	return sq
}

// dot8Cols sets out[r] to the int8 dot product of the query with row r of
// a block whose columns are cols (column j at cols[j·codesBlockRows:],
// codesBlockRows bytes): the sum over the query's nonzero dimensions j of
// code·cols[j][r], the int8 dot product of the query and the row, since the other
// dimensions add zeros. It panics unless cols holds the columns the query
// reads. With AVX2 the block's 64 sums stay in registers (dot8ColsAVX2),
// and the same columns of the block ahead bytes further on are
// prefetched (0: none).
func dot8Cols(cols []byte, ahead int, sq *sparseQuery, out *[codesBlockRows]int32) {
	n := len(sq.off)
	if n > 0 && int(sq.off[n-1])+codesBlockRows > len(cols) {
		panic("vector: dot8Cols: the block holds fewer columns than the query reads")
	}
	if !hasDot8SIMD || n == 0 {
		dot8ColsGo(cols, sq, out)
		return
	}
	pf := uintptr(unsafe.Pointer(&cols[0])) + uintptr(ahead)
	dot8ColsAVX2(&cols[0], pf, &sq.off[0], &sq.qw[0], n, &out[0])
}

// dot8ColsGo is the portable dot8Cols.
func dot8ColsGo(cols []byte, sq *sparseQuery, out *[codesBlockRows]int32) {
	*out = [codesBlockRows]int32{}
	for k, o := range sq.off {
		c := (*[codesBlockRows]byte)(cols[o : o+codesBlockRows])
		v := sq.vals[k]
		for r, x := range c {
			out[r] += v * int32(int8(x))
		}
	}
}
