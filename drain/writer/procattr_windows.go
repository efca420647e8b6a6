//go:build windows

package writer

import (
	"syscall"

	"golang.org/x/sys/windows"
)

// writerProcAttr starts the writer in a process group of its own; a
// timeout kills it and its descendants (proc.KillGroup). Windows has no
// Pdeathsig: a writer whose drainer was killed runs on until it exits.
func writerProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: windows.CREATE_NEW_PROCESS_GROUP}
}
