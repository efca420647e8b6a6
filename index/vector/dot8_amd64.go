//go:build amd64

package vector

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

// hasDot8SIMD says whether dot8Rows may use dot8RowsAVX2.
var hasDot8SIMD = cpu.X86.HasAVX2

// dot8RowsAVX2 is in dot8_amd64.s: out[r] = the dot product of q[0:n]
// and the n bytes at b + r·stride, for r < count. n must be a multiple of
// 32, qa must be |q|, and q and the rows must lie in -127..127.
//
//go:noescape
func dot8RowsAVX2(qa, q, b *int8, n, stride, count int, out *int32)

// dot8Rows sets out[r] to the dot product of q with row r, the len(q)
// bytes at rows[r·stride:] read as int8, for every r < len(out): a block
// of rows in one call, which shares each load of the query between four
// rows (dot8RowsAVX2). qa is |q|; every component is in
// -127..127; rows must hold len(out) rows (it panics otherwise).
func dot8Rows(qa, q []int8, rows []byte, stride int, out []int32) {
	checkRows(qa, q, rows, stride, out)
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
