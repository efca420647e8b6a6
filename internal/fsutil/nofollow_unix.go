//go:build unix

package fsutil

import (
	"errors"
	"os"
	"syscall"
)

// openNoFollow lets the kernel refuse the symlink (O_NOFOLLOW), so nothing
// can be swapped in between a check and the open.
func openNoFollow(path string, flag int, perm os.FileMode) (*os.File, error) {
	return os.OpenFile(path, flag|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, perm)
}

// isSymlinkErr reports whether err is O_NOFOLLOW meeting a symlink.
func isSymlinkErr(err error) bool { return errors.Is(err, syscall.ELOOP) }
