package fsutil

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// flusher writes each staged file without syncing it and, at Publish,
// syncs the file system of each directory once (syncfs): one flush for
// every file, where a sync per file costs a device flush per file on a
// file system without a journal, and a journal commit on one with. A
// small batch (perFileSync files at most) syncs its files instead, as it
// would not gain much and syncfs also waits for whatever else is dirty
// on the file system. The files are written through bare system calls:
// an os.File would also register each with the runtime's poller, in vain
// for a regular file.
type flusher struct {
	// dirs holds a descriptor of each directory files were staged in,
	// opened before the first of them was written: syncfs reports a
	// write-back error of the file system only when it happened after the
	// descriptor it is given was opened.
	dirs map[string]int
	// fds are the staged files, kept open while there are at most
	// perFileSync of them; n counts them.
	fds []int
	n   int
}

// perFileSync is the most files a batch syncs one by one.
const perFileSync = 32

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
		if err != nil {
			_ = syscall.Close(fd)
			_ = syscall.Unlink(name)
			return "", fmt.Errorf("write %s: %w", path, err)
		}
		fl.keep(fd)
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

// keep holds fd open for flush while the batch is small, and closes
// every file once it is not.
func (fl *flusher) keep(fd int) {
	fl.n++
	fl.fds = append(fl.fds, fd)
	if fl.n > perFileSync {
		fl.closeFiles()
	}
}

func (fl *flusher) closeFiles() {
	for _, fd := range fl.fds {
		_ = syscall.Close(fd)
	}
	fl.fds = nil
}

// flush puts every staged file on disk (with its write-back errors, if
// any, reported): a small batch file by file, concurrently, a large one
// by syncing the file system of each directory staged in.
func (fl *flusher) flush() error {
	defer fl.release()
	if fl.n <= perFileSync {
		errs := make([]error, len(fl.fds))
		var wg sync.WaitGroup
		for i, fd := range fl.fds {
			wg.Go(func() {
				if _, err := ignoringEINTR(func() (int, error) { return 0, syscall.Fsync(fd) }); err != nil {
					errs[i] = fmt.Errorf("sync a staged file: %w", err)
				}
			})
		}
		wg.Wait()
		return errors.Join(errs...)
	}
	var errs []error
	for dir, fd := range fl.dirs {
		if _, err := ignoringEINTR(func() (int, error) { return 0, unix.Syncfs(fd) }); err != nil {
			errs = append(errs, fmt.Errorf("sync the file system of %s: %w", dir, err))
		}
	}
	return errors.Join(errs...)
}

func (fl *flusher) release() {
	fl.closeFiles()
	for _, fd := range fl.dirs {
		_ = syscall.Close(fd)
	}
	fl.dirs, fl.n = nil, 0
}
