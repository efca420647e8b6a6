//go:build !unix

package testfs

import "errors"

// Mkfifo reports errors.ErrUnsupported: there are no named pipes in the
// file system here.
func Mkfifo(string) error { return errors.ErrUnsupported }
