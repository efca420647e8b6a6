//go:build amd64

package vector

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

// dot8AVX2 is in dot8_amd64.s. n must be a multiple of 32, qa, q and b
// must hold n bytes each, qa must be |q|, and q and b must lie in
// -127..127.
//
//go:noescape
func dot8AVX2(qa, q, b *int8, n int) int32

// hasDot8SIMD says whether dot8 may use dot8AVX2.
var hasDot8SIMD = cpu.X86.HasAVX2

// dot8 returns the dot product of q and b as int32, where qa = |q| (the
// query's, computed once per search) and every component is in
// -127..127 (quantize); len(qa) and len(b) must be at least len(q). The
// AVX2 kernel takes the largest multiple of 32 and the portable loop the
// rest.
func dot8(qa, q, b []int8) int32 {
	n := len(q)
	m := n &^ 31
	if !hasDot8SIMD || m == 0 {
		return dot8Go(q, b)
	}
	s := dot8AVX2(&qa[0], &q[0], &b[0], m)
	if m < n {
		s += dot8Go(q[m:], b[m:n])
	}
	return s
}

// dot8RowsAVX2 is in dot8_amd64.s: out[r] = dot8AVX2(qa, q, b + r·stride,
// n) for r < count, with dot8AVX2's conditions on n, qa, q and the rows.
//
//go:noescape
func dot8RowsAVX2(qa, q, b *int8, n, stride, count int, out *int32)

// dot8Rows sets out[r] to the dot product of q with row r, the len(q)
// bytes at rows[r·stride:] read as int8, for every r < len(out): dot8 over
// a block of rows in one call, which shares each load of the query
// between four rows (dot8RowsAVX2). qa is |q|; every component is in
// -127..127; rows must hold len(out) rows (it panics otherwise).
func dot8Rows(qa, q []int8, rows []byte, stride int, out []int32) {
	checkRows(q, rows, stride, out)
	n := len(q)
	m := n &^ 31
	if !hasDot8SIMD || m == 0 || len(out) == 0 {
		dot8RowsGo(q, rows, stride, out)
		return
	}
	dot8RowsAVX2(&qa[0], &q[0], (*int8)(unsafe.Pointer(&rows[0])), m, stride, len(out), &out[0])
	if m < n {
		for r := range out {
			b := rows[r*stride+m : r*stride+n]
			out[r] += dot8Go(q[m:], unsafe.Slice((*int8)(unsafe.Pointer(unsafe.SliceData(b))), n-m))
		}
	}
}
