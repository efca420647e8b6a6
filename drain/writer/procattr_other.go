//go:build unix && !linux

package writer

import "syscall"

// writerProcAttr puts the writer in its own process group. Only Linux has
// Pdeathsig: elsewhere a writer whose drainer was killed with -9 runs on
// until it exits by itself.
func writerProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
