package fsutil

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// flusher writes each staged file without syncing it and, at Publish,
// syncs the file system of each directory once (syncfs): one flush for
// every file, where a sync per file costs a device flush per file on a
// file system without a journal, and a journal commit on one with. The
// files are written through bare system calls: an os.File would also
// register each with the runtime's poller, in vain for a regular file.
type flusher struct {
	// dirs holds a descriptor of each directory files were staged in,
	// opened before the first of them was written: syncfs reports a
	// write-back error of the file system only when it happened after the
	// descriptor it is given was opened.
	dirs map[string]int
}

func (fl *flusher) create(path string, data []byte, perm os.FileMode) (string, error) {
	dir := filepath.Dir(path)
	if _, ok := fl.dirs[dir]; !ok {
		if err := EnsureDir(dir); err != nil {
			return "", err
		}
		fd, err := ignoringEINTR(func() (int, error) {
			return syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
		})
		if err != nil {
			return "", fmt.Errorf("write %s: %w", path, &os.PathError{Op: "open", Path: dir, Err: err})
		}
		if fl.dirs == nil {
			fl.dirs = map[string]int{}
		}
		fl.dirs[dir] = fd
	}
	prefix := filepath.Join(dir, "."+filepath.Base(path)+".tmp-")
	for try := 0; ; try++ {
		name := prefix + strconv.FormatUint(uint64(rand.Uint32()), 10)
		fd, err := ignoringEINTR(func() (int, error) {
			return syscall.Open(name, syscall.O_WRONLY|syscall.O_CREAT|syscall.O_EXCL|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o600)
		})
		if errors.Is(err, syscall.EEXIST) && try < 10000 {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("write %s: %w", path, &os.PathError{Op: "open", Path: name, Err: err})
		}
		err = writeFD(fd, data)
		if err == nil {
			_, err = ignoringEINTR(func() (int, error) { return 0, syscall.Fchmod(fd, uint32(perm.Perm())) })
		}
		if cerr := syscall.Close(fd); err == nil {
			err = cerr
		}
		if err != nil {
			_ = syscall.Unlink(name)
			return "", fmt.Errorf("write %s: %w", path, err)
		}
		return name, nil
	}
}

// writeFD writes all of data to fd.
func writeFD(fd int, data []byte) error {
	for len(data) > 0 {
		n, err := ignoringEINTR(func() (int, error) { return syscall.Write(fd, data) })
		if err != nil {
			return err
		}
		if n == 0 {
			return syscall.EIO
		}
		data = data[n:]
	}
	return nil
}

func ignoringEINTR(f func() (int, error)) (int, error) {
	for {
		n, err := f()
		if err != syscall.EINTR {
			return n, err
		}
	}
}

// flush syncs the file system of each directory staged in, so every
// file staged is on disk (with its write-back errors, if any, reported).
func (fl *flusher) flush() error {
	var errs []error
	for dir, fd := range fl.dirs {
		if _, err := ignoringEINTR(func() (int, error) { return 0, unix.Syncfs(fd) }); err != nil {
			errs = append(errs, fmt.Errorf("sync the file system of %s: %w", dir, err))
		}
	}
	fl.release()
	return errors.Join(errs...)
}

func (fl *flusher) release() {
	for _, fd := range fl.dirs {
		_ = syscall.Close(fd)
	}
	fl.dirs = nil
}
