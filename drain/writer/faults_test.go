package writer

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reflectkb/reflect/internal/testfs"
)

func scriptFile(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "writer.sh")
	if err := testfs.WriteExecutable(path, []byte("#!/bin/sh\n"+fakeHelp+body+"\n")); err != nil {
		t.Fatal(err)
	}
	return path
}

// A writer that prints without end is killed at the output cap: on main
// its output was read to EOF (300 MB took 21 s) or, endless, until the
// timeout.
func TestWriterKilledAtOutputCap(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	_, err := writerProc{path: scriptFile(t, "exec yes reflect")}.run(ctx)
	if err == nil || !strings.Contains(err.Error(), "printed more than") {
		t.Fatalf("run = %v, want the output cap", err)
	}
	if ctx.Err() != nil {
		t.Fatal("the writer ran until the timeout instead of being killed at the cap")
	}
}

// A writer that exits 0 with its answer but leaves a daemon holding stdout
// open succeeded: on main the entry was failed after WaitDelay, and
// retried (paid) again. The daemon is killed.
func TestWriterLeavingDaemonSucceeds(t *testing.T) {
	t.Parallel()
	pidFile := filepath.Join(t.TempDir(), "daemon.pid")
	script := scriptFile(t, `sleep 300 &
echo $! > `+pidFile+`
echo '{"learnings":[]}'`)
	out, err := writerProc{path: script}.run(context.Background())
	if err != nil {
		t.Fatalf("run = %v, want the writer's answer", err)
	}
	if strings.TrimSpace(string(out)) != `{"learnings":[]}` {
		t.Errorf("output %q", out)
	}
	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid := strings.TrimSpace(string(data))
	deadline := time.Now().Add(30 * time.Second)
	for {
		stat, err := os.ReadFile("/proc/" + pid + "/stat")
		if err != nil || strings.Contains(string(stat), ") Z ") {
			break // gone, or a zombie waiting for its reaper
		}
		if time.Now().After(deadline) {
			t.Fatalf("the daemon %s left by the writer is still running", pid)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
