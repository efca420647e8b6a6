package fsutil

import (
	"io/fs"
	"testing"
)

func TestKind(t *testing.T) {
	t.Parallel()
	for m, want := range map[fs.FileMode]string{
		fs.ModeSymlink | 0o777:                  "a symlink",
		fs.ModeDir | 0o755:                      "a directory",
		fs.ModeNamedPipe | 0o600:                "a FIFO",
		fs.ModeSocket | 0o600:                   "a socket",
		fs.ModeDevice | fs.ModeCharDevice | 0o6: "a character device",
		fs.ModeDevice | 0o600:                   "a device",
		0o644:                                   "a regular file",
		fs.ModeIrregular:                        "a special file",
	} {
		if got := Kind(m); got != want {
			t.Errorf("Kind(%v) = %q, want %q", m, got, want)
		}
	}
}
