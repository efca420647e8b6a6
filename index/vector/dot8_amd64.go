//go:build amd64

package vector

import "golang.org/x/sys/cpu"

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
