//go:build windows

package fsutil

import (
	"errors"
	"os"
)

// errIsLink marks the refusal openNoFollow makes itself.
var errIsLink = errors.New("is a symlink")

// openNoFollow refuses a symlink or junction (a reparse point, which Lstat
// reports as ModeSymlink or ModeIrregular) at path, opens it, and checks
// that what was opened is still what Lstat saw, so a link swapped in
// between the check and the open is refused too. Windows has no
// O_NOFOLLOW for os.OpenFile.
func openNoFollow(path string, flag int, perm os.FileMode) (*os.File, error) {
	before, err := os.Lstat(path)
	switch {
	case err == nil && isLink(before):
		return nil, errIsLink
	case err != nil && !errors.Is(err, os.ErrNotExist):
		return nil, err
	}
	f, err := os.OpenFile(path, flag, perm)
	if err != nil {
		return nil, err
	}
	after, lerr := os.Lstat(path)
	opened, serr := f.Stat()
	if lerr != nil || serr != nil || isLink(after) || !os.SameFile(after, opened) {
		f.Close()
		return nil, errIsLink
	}
	return f, nil
}

func isLink(fi os.FileInfo) bool {
	return fi.Mode()&(os.ModeSymlink|os.ModeIrregular) != 0
}

// isSymlinkErr reports whether err is openNoFollow's own refusal.
func isSymlinkErr(err error) bool { return errors.Is(err, errIsLink) }
