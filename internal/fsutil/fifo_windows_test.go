//go:build windows

package fsutil

import "errors"

// mkfifo: Windows has no named pipes in the file system.
func mkfifo(string) error { return errors.ErrUnsupported }
