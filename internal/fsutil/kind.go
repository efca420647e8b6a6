package fsutil

import "io/fs"

// Kind names the type of a file that is not a regular one, with its
// article, for the messages that refuse it ("a symlink", "a FIFO", …):
// one wording for every reader that checks a file's type before it opens
// it, so a user meets the same words wherever reflect refuses a file.
func Kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "a symlink"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m.IsRegular():
		return "a regular file"
	}
	return "a special file"
}
