package fsutil

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
)

// Stager writes many files so that, whatever happens, each is either its
// old content or its whole new one, with one flush for all of them where
// WriteAtomic flushes each: Stage writes each file's content beside it,
// and Publish puts them all in place once they are on disk. Use it from
// one goroutine; Publish or Discard it.
type Stager struct {
	staged []staged
	fl     flusher // how staged files are made durable (per platform)
}

type staged struct{ tmp, path string }

// Stage writes data to a temporary file beside path (TempPattern), which
// is not in place until Publish.
func (s *Stager) Stage(path string, data []byte, perm os.FileMode) error {
	tmp, err := s.fl.create(path, data, perm)
	if err != nil {
		return err
	}
	s.staged = append(s.staged, staged{tmp: tmp, path: path})
	return nil
}

// Publish waits until every staged file is on disk, renames each onto
// its path in the order staged, and syncs each directory once, so the
// files it reports in place survive a crash. It returns how many are in
// place, the first n staged: on an error the others are removed. A crash
// before the end leaves at most hidden temporary files behind.
func (s *Stager) Publish() (n int, err error) {
	files := s.staged
	s.staged = nil
	if err := s.fl.flush(); err != nil {
		discard(files)
		return 0, err
	}
	dirs := map[string]bool{}
	for i, f := range files {
		if err := os.Rename(f.tmp, f.path); err != nil {
			discard(files[i:])
			return i, errors.Join(fmt.Errorf("write %s: %w", f.path, err), syncDirs(dirs))
		}
		dirs[filepath.Dir(f.path)] = true
	}
	return len(files), syncDirs(dirs)
}

// Discard removes what was staged and not published.
func (s *Stager) Discard() {
	s.fl.release()
	discard(s.staged)
	s.staged = nil
}

func discard(files []staged) {
	for _, f := range files {
		_ = os.Remove(f.tmp)
	}
}

// syncDirs makes the renames into dirs durable. Windows has no way to
// sync a directory (NTFS journals the renames itself).
func syncDirs(dirs map[string]bool) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	var errs []error
	for dir := range dirs {
		d, err := os.Open(dir)
		if err == nil {
			err = d.Sync()
			_ = d.Close()
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("sync directory %s: %w", dir, err))
		}
	}
	return errors.Join(errs...)
}
