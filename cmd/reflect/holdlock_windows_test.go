//go:build windows

package main

import (
	"os"

	"golang.org/x/sys/windows"
)

// tryLockExclusive locks f exclusively without waiting, on the range
// gofrs/flock locks for reflect's lock files on Windows (the first byte);
// closing f releases it.
func tryLockExclusive(f *os.File) error {
	return windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY,
		0, 1, 0, new(windows.Overlapped))
}
