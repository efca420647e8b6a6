//go:build unix

package proc

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// When its context ends, a command started InOwnGroup is killed with
// every process it started: a grandchild left running would hold the
// command's pipes and outlive the timeout.
func TestInOwnGroupKillsTheWholeGroup(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, "sh", "-c", "sleep 60 & echo $! > "+pidFile+"; wait")
	InOwnGroup(cmd)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var grandchild int
	for deadline := time.Now().Add(10 * time.Second); grandchild == 0; {
		if data, err := os.ReadFile(pidFile); err == nil && strings.HasSuffix(string(data), "\n") {
			grandchild, _ = strconv.Atoi(strings.TrimSpace(string(data)))
		} else if time.Now().After(deadline) {
			t.Fatal("the command did not start its grandchild")
		} else {
			time.Sleep(10 * time.Millisecond)
		}
	}
	cancel()
	_ = cmd.Wait()
	for deadline := time.Now().Add(10 * time.Second); ; {
		if !running(grandchild) {
			break
		}
		if time.Now().After(deadline) {
			_ = syscall.Kill(grandchild, syscall.SIGKILL)
			t.Fatal("the grandchild outlived its group's kill")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// running reports whether pid is a live process (a zombie, killed but not
// yet reaped by an init that does not reap, counts as gone).
func running(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true // no /proc (macOS): kill(0) is all there is
	}
	i := strings.LastIndexByte(string(stat), ')')
	return i < 0 || !strings.HasPrefix(string(stat[i+1:]), " Z")
}
