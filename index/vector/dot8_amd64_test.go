//go:build amd64

package vector

import "testing"

// setDot8SIMD switches the assembly kernel on or off for the rest of t.
func setDot8SIMD(t *testing.T, on bool) {
	old := hasDot8SIMD
	hasDot8SIMD = on
	t.Cleanup(func() { hasDot8SIMD = old })
}
