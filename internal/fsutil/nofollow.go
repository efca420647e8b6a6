package fsutil

import (
	"fmt"
	"os"
)

// OpenNoFollow opens path with flag (os.O_RDWR|os.O_CREATE, ...) and perm,
// but not through a symlink at its last component, and without blocking
// on a FIFO. A symlink there gives an error wrapping ErrNotRegular: every
// file reflect opens this way is one it creates itself, so a link in its
// place was planted, and writing through it would write wherever it points.
// Directories higher up the path are followed (the user may have linked
// the state directory elsewhere).
//
// The caller still checks the type of what it opened (f.Stat) when a
// device or directory must be refused too, as OpenPrivate does.
func OpenNoFollow(path string, flag int, perm os.FileMode) (*os.File, error) {
	f, err := openNoFollow(path, flag, perm)
	if err != nil {
		if isSymlinkErr(err) {
			return nil, fmt.Errorf("open %s: is a symlink: %w", path, ErrNotRegular)
		}
		return nil, err
	}
	return f, nil
}
