//go:build unix

package main

import (
	"os"
	"syscall"
)

// tryLockExclusive takes an exclusive flock on f without waiting, as
// gofrs/flock does for reflect's lock files; closing f releases it.
func tryLockExclusive(f *os.File) error {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
}
