//go:build !amd64

package vector

// hasDot8SIMD is false where there is no assembly kernel.
const hasDot8SIMD = false

// dot8Rows sets out[r] to the dot product of q with row r, the len(q)
// bytes at rows[r·stride:] read as int8, for every r < len(out); qa is
// ignored. It panics unless rows holds len(out) rows.
func dot8Rows(qa, q []int8, rows []byte, stride int, out []int32) {
	checkRows(qa, q, rows, stride, out)
	dot8RowsGo(q, rows, stride, out)
}
