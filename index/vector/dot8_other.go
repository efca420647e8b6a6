//go:build !amd64

package vector

// hasDot8SIMD is false where there is no assembly kernel.
const hasDot8SIMD = false

// dot8ColsAVX2 is never called here (hasDot8SIMD).
func dot8ColsAVX2(cols *byte, pf uintptr, off *int64, qw *uint32, n int, out *int32) {
	panic("vector: no AVX2")
}
