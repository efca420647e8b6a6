//go:build windows

package fsutil

import (
	"math"
	"os"

	"golang.org/x/sys/windows"
)

// lockOpen locks all of f, exclusive or shared, on f's own handle; closing
// f releases it. Windows locks are mandatory and per handle: a lock taken
// on a second handle (as gofrs/flock takes it) would make this process's
// own reads and writes through f fail with a lock violation.
func lockOpen(f *os.File, exclusive bool) error {
	var flags uint32
	if exclusive {
		flags = windows.LOCKFILE_EXCLUSIVE_LOCK
	}
	return windows.LockFileEx(windows.Handle(f.Fd()), flags, 0, math.MaxUint32, math.MaxUint32, new(windows.Overlapped))
}
