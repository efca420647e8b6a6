//go:build unix

package proc

import (
	"errors"
	"os"
	"syscall"
)

// detached starts the child in a session of its own (setsid): no
// controlling terminal, and no SIGHUP when the agent's terminal closes.
func detached() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }

// groupAttr puts the child in a process group of its own, whose id is its
// pid (Setpgid).
func groupAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// KillGroup sends SIGKILL to the process group whose leader is pid (a
// child started with InOwnGroup): the negative pid signals every process
// in the group. A group that is already gone gives os.ErrProcessDone.
func KillGroup(pid int) error {
	err := syscall.Kill(-pid, syscall.SIGKILL)
	if errors.Is(err, syscall.ESRCH) {
		return os.ErrProcessDone
	}
	return err
}

// Exec replaces the running process with path, run as argv (argv[0] is
// the name it sees) in env. It returns only on failure.
func Exec(path string, argv, env []string) error { return syscall.Exec(path, argv, env) }
