//go:build !linux

package index

import "errors"

// dirWatch exists only on Linux (inotify); elsewhere a targeted update
// proves by listing documents/, which there never succeeds (dirprobe_other.go).
type dirWatch struct{}

func watchDir(dir string) (*dirWatch, error) {
	return nil, errors.New("no directory watch on this platform")
}

func (w *dirWatch) close() {}

func (w *dirWatch) changed() ([]string, bool) { return nil, false }
