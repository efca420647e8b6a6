package fsutil

import (
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
)

// ErrNotRegular is returned when a state file is a symlink, FIFO, device or
// directory: reflect's state files are only ever regular files it created,
// so anything else was put there by someone else and is not written through.
var ErrNotRegular = errors.New("not a regular file")

// OpenPrivate opens a state file for writing without following a symlink at
// its last component (OpenNoFollow) and without blocking on a FIFO,
// refuses anything but a regular file, and tightens a file that is group-
// or world-accessible to FilePerm. flag holds the access mode and extras,
// e.g. O_RDWR|O_APPEND; O_CREATE is added.
//
// A symlink planted at last-event.json or hooks.log would otherwise make
// every hook truncate or append to whatever it points at.
func OpenPrivate(path string, flag int) (*os.File, error) {
	f, err := OpenNoFollow(path, flag|os.O_CREATE, FilePerm)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("open %s: %s: %w", path, fi.Mode().Type(), ErrNotRegular)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		if err := f.Chmod(FilePerm); err != nil {
			f.Close()
			return nil, fmt.Errorf("open %s: mode %v is too open and cannot be tightened: %w", path, fi.Mode().Perm(), err)
		}
	}
	return f, nil
}

// write is the one place appends reach the kernel; tests replace it to
// simulate a full disk (ENOSPC) or a short write without filling one.
var write = func(f *os.File, b []byte) (int, error) { return f.Write(b) }

// AppendLine appends line, which must end in '\n', to the state file at
// path as a whole line or not at all:
//
//   - the file is opened with OpenPrivate (no symlink, no FIFO, mode 0600);
//   - if a crashed writer left it without a final newline, a '\n' is put
//     first, so the torn line stays a (bad) line of its own instead of
//     swallowing this one;
//   - the line goes out in one write(2) on an O_APPEND descriptor, and if
//     that write fails or is short (ENOSPC, EDQUOT, EFBIG), the file is
//     truncated back to its size before the append, so no reader ever sees
//     half a line.
//
// Callers that share the file with other appenders hold a lock: the
// truncate-back is only safe when no one appends between the write and it.
// Appenders without a lock still get one write(2) per line.
func AppendLine(path string, line []byte) error {
	f, err := OpenPrivate(path, os.O_APPEND|os.O_RDWR)
	if err != nil {
		return fmt.Errorf("append %s: %w", path, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("append %s: %w", path, err)
	}
	size := fi.Size()
	if size > 0 {
		last := make([]byte, 1)
		if _, err := f.ReadAt(last, size-1); err != nil {
			return fmt.Errorf("append %s: %w", path, err)
		}
		if last[0] != '\n' {
			line = append([]byte{'\n'}, line...)
		}
	}
	n, err := write(f, line)
	if err == nil && n < len(line) {
		err = fmt.Errorf("short write (%d of %d bytes)", n, len(line))
	}
	if err != nil {
		if n > 0 {
			// Truncating frees space, so it works on a full disk.
			_ = f.Truncate(size)
		}
		return fmt.Errorf("append %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("append %s: %w", path, err)
	}
	return nil
}

// ReadRegular reads at most max bytes of the file at path, and only if it
// is a regular file: a FIFO would block the reader forever and a device or
// a huge file would blow any time or memory bound. Symlinks are followed
// (a repository's .git may legitimately be one); the type check is made on
// the opened descriptor, so nothing can be swapped in between. A file
// larger than max is an error wrapping ErrTooLarge.
func ReadRegular(path string, max int64) ([]byte, error) {
	f, fi, err := OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi.Size() > max {
		return nil, fmt.Errorf("read %s: %d bytes: %w (limit %d)", path, fi.Size(), ErrTooLarge, max)
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if int64(len(data)) > max { // it grew since the stat
		return nil, fmt.Errorf("read %s: %w (limit %d)", path, ErrTooLarge, max)
	}
	return data, nil
}

// OpenRegular opens path for reading only if it is a regular file,
// without blocking on a FIFO (O_NONBLOCK; the type is checked on the
// descriptor, so nothing can be swapped in between). A missing file gives
// an error wrapping fs.ErrNotExist, as os.Open does.
func OpenRegular(path string) (*os.File, os.FileInfo, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, nil, fmt.Errorf("read %s: %s: %w", path, fi.Mode().Type(), ErrNotRegular)
	}
	return f, fi, nil
}

// ErrTooLarge is returned by ReadRegular for a file over its limit.
var ErrTooLarge = errors.New("file too large")
