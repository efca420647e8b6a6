// Package proc starts reflect's background work: a detached copy of the
// running binary that outlives the hook or command that started it.
package proc

import (
	"os"
	"os/exec"
	"strings"
)

// SpawnDetached starts `reflect ARGS...` detached (detached(): a session of
// its own on Unix, no console on Windows) with no inherited pipes, and does
// not wait for it: an agent must not wait for background work, and the
// child must outlive its parent.
func SpawnDetached(args ...string) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	devnull, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer devnull.Close()
	cmd := exec.Command(exe, args...)
	cmd.Env = withoutGOMAXPROCS(os.Environ())
	cmd.Stdin, cmd.Stdout, cmd.Stderr = devnull, devnull, devnull
	cmd.SysProcAttr = detached()
	if err := cmd.Start(); err != nil {
		return err
	}
	return cmd.Process.Release()
}

// withoutGOMAXPROCS drops GOMAXPROCS from env. The hooks that start drains
// and reindexes run with GOMAXPROCS=1 (reflect install writes it, to start
// fewer threads in a process that lives milliseconds); the background work
// they start embeds and indexes on every core.
func withoutGOMAXPROCS(env []string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, "GOMAXPROCS=") {
			out = append(out, kv)
		}
	}
	return out
}
