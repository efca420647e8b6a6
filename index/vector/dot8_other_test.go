//go:build !amd64

package vector

import "testing"

// setDot8SIMD: there is only the portable loop here.
func setDot8SIMD(t *testing.T, on bool) {}
