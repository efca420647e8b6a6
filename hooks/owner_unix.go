//go:build unix

package hooks

import (
	"io/fs"
	"os"
	"syscall"
)

// foreignOwner reports the owner of fi when it is not this process's user:
// an agent writes its transcripts as the user who runs it.
func foreignOwner(fi fs.FileInfo) (uid int, foreign bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), int(st.Uid) != os.Geteuid()
}
