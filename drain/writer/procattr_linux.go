package writer

import "syscall"

// writerProcAttr puts the writer in its own process group (so a timeout
// kills its children too) and, with Pdeathsig, takes it along when the
// drainer is killed with -9 instead of leaving a headless agent running
// (and billing) with no timeout.
func writerProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
