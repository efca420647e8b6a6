//go:build windows

package proc

import (
	"os"
	"os/exec"
	"strconv"
	"syscall"

	"golang.org/x/sys/windows"
)

// detached starts the child without a console (DETACHED_PROCESS) in a
// process group of its own, so closing the agent's console or a Ctrl+C
// in it does not reach the background work.
func detached() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{
		CreationFlags: windows.DETACHED_PROCESS | windows.CREATE_NEW_PROCESS_GROUP,
		HideWindow:    true,
	}
}

// groupAttr starts the child in a new process group, so a Ctrl+C meant
// for reflect's console is not delivered to it too.
func groupAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: windows.CREATE_NEW_PROCESS_GROUP}
}

// KillGroup kills the process pid and its descendants with taskkill /T
// (Windows has no signal for a process group), and pid alone when taskkill
// fails. A process that is already gone gives os.ErrProcessDone.
func KillGroup(pid int) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return os.ErrProcessDone
	}
	tree := exec.Command("taskkill", "/T", "/F", "/PID", strconv.Itoa(pid))
	tree.SysProcAttr = &syscall.SysProcAttr{HideWindow: true}
	if tree.Run() == nil {
		return nil
	}
	return p.Kill()
}

// Exec runs path as argv in env with this process's stdin, stdout and
// stderr and exits with its status: Windows cannot replace a running
// process, so this one stays, waiting, as the child's parent. It returns
// only when path cannot be started.
func Exec(path string, argv, env []string) error {
	cmd := exec.Command(path, argv[1:]...)
	cmd.Env = env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		return err
	}
	_ = cmd.Wait()
	os.Exit(cmd.ProcessState.ExitCode())
	return nil
}
