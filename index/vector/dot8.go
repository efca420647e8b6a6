package vector

import "unsafe"

// dot8 returns the dot product of q and b as int32, where qa = |q| and
// every component is in -127..127; len(b) must be at least len(q). It is
// one row's dot8Rows (the scan scores rows in blocks; dot8 is for single
// rows and tests).
func dot8(qa, q, b []int8) int32 {
	var out [1]int32
	dot8Rows(qa, q, unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(b))), len(b)), len(q), out[:])
	return out[0]
}

// dot8Go is the portable int8 dot product (dot8Rows' fallback, and what
// its assembly is tested against): four independent int32 accumulators, and
// fixed-size sub-slices so the compiler drops the bounds checks. len(b)
// must be at least len(a).
func dot8Go(a, b []int8) int32 {
	var s0, s1, s2, s3 int32
	n := len(a)
	b = b[:n]
	i := 0
	for ; i+4 <= n; i += 4 {
		x := a[i : i+4 : i+4]
		y := b[i : i+4 : i+4]
		s0 += int32(x[0]) * int32(y[0])
		s1 += int32(x[1]) * int32(y[1])
		s2 += int32(x[2]) * int32(y[2])
		s3 += int32(x[3]) * int32(y[3])
	}
	for ; i < n; i++ {
		s0 += int32(a[i]) * int32(b[i])
	}
	return (s0 + s1) + (s2 + s3)
}

// dot8RowsGo is the portable dot8Rows: out[r] = dot8Go(q, row r), where
// row r is the len(q) bytes at rows[r·stride:] read as int8.
func dot8RowsGo(q []int8, rows []byte, stride int, out []int32) {
	n := len(q)
	for r := range out {
		b := rows[r*stride : r*stride+n]
		out[r] = dot8Go(q, unsafe.Slice((*int8)(unsafe.Pointer(unsafe.SliceData(b))), n))
	}
}

// checkRows panics unless qa holds len(q) bytes and rows holds len(out)
// rows of len(q) bytes at stride ≥ len(q) apart, so that the assembly
// kernels read only those.
func checkRows(qa, q []int8, rows []byte, stride int, out []int32) {
	if len(out) > 0 && (len(qa) < len(q) || stride < len(q) || len(rows) < (len(out)-1)*stride+len(q)) {
		panic("vector: dot8Rows: rows shorter than count × stride")
	}
}
