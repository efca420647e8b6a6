//go:build amd64

package vector

import "golang.org/x/sys/cpu"

// hasDot8SIMD says whether dot8Cols may use dot8ColsAVX2.
var hasDot8SIMD = cpu.X86.HasAVX2

// dot8ColsAVX2 is in dot8_amd64.s: out[r], for the codesBlockRows (64)
// rows r of a block, is the sum over k < n of the int16 code in qw[2k]
// times the int8 at cols + off[k] + r. n must be at least 1, and the
// codes in -127..127. The same columns of the block whose columns start
// at pf, and the 768 bytes before them, are prefetched (pf may be any
// address: a prefetch does not fault).
//
//go:noescape
func dot8ColsAVX2(cols *byte, pf uintptr, off *int64, qw *uint32, n int, out *int32)
