//go:build !amd64

package vector

// hasDot8SIMD is false where there is no assembly kernel.
const hasDot8SIMD = false

// dot8 returns the dot product of q and b as int32; len(b) must be at
// least len(q). qa (|q|, which the assembly kernels use) is ignored.
func dot8(qa, q, b []int8) int32 { return dot8Go(q, b) }

// dot8Rows sets out[r] to the dot product of q with row r, the len(q)
// bytes at rows[r·stride:] read as int8, for every r < len(out); qa is
// ignored. It panics unless rows holds len(out) rows.
func dot8Rows(qa, q []int8, rows []byte, stride int, out []int32) {
	checkRows(q, rows, stride, out)
	dot8RowsGo(q, rows, stride, out)
}
