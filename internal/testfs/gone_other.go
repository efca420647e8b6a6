//go:build !unix

package testfs

import "testing"

// WaitGone skips the test: whether a killed child is gone is checked with
// kill(2) and /proc, which only Unix has.
func WaitGone(t testing.TB, pid int) {
	t.Helper()
	t.Skipf("checking that process %d is gone needs Unix (kill(2), /proc)", pid)
}
