package index

import (
	"errors"
	"syscall"

	"github.com/mattn/go-sqlite3"
)

// NoSpace reports whether err is an update that failed because the disk is
// full (or the quota reached, or the file system read-only). Such an update
// is rolled back whole, so the catalog as it stands is consistent: read
// paths (search, list, status, prompt recall) answer from it instead of
// failing, and say that new documents wait for space.
func NoSpace(err error) bool {
	if err == nil {
		return false
	}
	var se sqlite3.Error
	if errors.As(err, &se) {
		switch se.Code {
		case sqlite3.ErrFull, sqlite3.ErrReadonly:
			return true
		case sqlite3.ErrIoErr:
			return errors.Is(se.SystemErrno, syscall.ENOSPC) || errors.Is(se.SystemErrno, syscall.EDQUOT)
		}
	}
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) || errors.Is(err, syscall.EROFS)
}
