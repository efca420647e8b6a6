//go:build !linux

package fsutil

import (
	"errors"
	"fmt"
	"os"
	"sync"
)

// flusher syncs each staged file in the background, on syncWorkers
// goroutines, while the next ones are written.
type flusher struct {
	work chan *os.File
	wg   sync.WaitGroup
	mu   sync.Mutex
	err  error
}

// syncWorkers is how many files a Stager syncs at once: concurrent syncs
// on one file system share its journal commits, where one after another
// each waits for a commit of its own; and syncing while the next files
// are written hides the wait.
const syncWorkers = 32

func (fl *flusher) create(path string, data []byte, perm os.FileMode) (string, error) {
	tmp, err := createTemp(path)
	if err != nil {
		return "", err
	}
	name := tmp.Name()
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(perm)
	}
	if err != nil {
		_ = tmp.Close()
		_ = os.Remove(name)
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	fl.start()
	fl.work <- tmp
	return name, nil
}

func (fl *flusher) start() {
	if fl.work != nil {
		return
	}
	fl.work = make(chan *os.File, syncWorkers)
	for range syncWorkers {
		fl.wg.Add(1)
		go func() {
			defer fl.wg.Done()
			for f := range fl.work {
				err := f.Sync()
				if cerr := f.Close(); err == nil {
					err = cerr
				}
				if err != nil {
					fl.mu.Lock()
					fl.err = errors.Join(fl.err, fmt.Errorf("write %s: %w", f.Name(), err))
					fl.mu.Unlock()
				}
			}
		}()
	}
}

// flush is the end of the background syncs: their error, if any.
func (fl *flusher) flush() error {
	if fl.work != nil {
		close(fl.work)
		fl.wg.Wait()
		fl.work = nil
	}
	err := fl.err
	fl.err = nil
	return err
}

func (fl *flusher) release() { _ = fl.flush() }
