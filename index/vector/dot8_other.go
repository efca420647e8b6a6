//go:build !amd64

package vector

// hasDot8SIMD is false where there is no assembly kernel.
const hasDot8SIMD = false

// dot8 returns the dot product of q and b as int32; len(b) must be at
// least len(q). qa (|q|, which the assembly kernels use) is ignored.
func dot8(qa, q, b []int8) int32 { return dot8Go(q, b) }
