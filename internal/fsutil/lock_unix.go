//go:build unix

package fsutil

import (
	"os"
	"syscall"
)

// lockOpen takes an flock on f itself, exclusive or shared; closing f
// releases it. (gofrs/flock, used for the lock files elsewhere, opens a
// descriptor of its own; these locks must be on the descriptor that
// reads or writes, see lock_windows.go.)
func lockOpen(f *os.File, exclusive bool) error {
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	for {
		err := syscall.Flock(int(f.Fd()), how)
		if err != syscall.EINTR {
			return err
		}
	}
}
