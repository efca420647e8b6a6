//go:build unix

package testfs

import "syscall"

// Mkfifo makes a named pipe (FIFO) at path, mode 0600.
func Mkfifo(path string) error { return syscall.Mkfifo(path, 0o600) }
