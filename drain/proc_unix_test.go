//go:build unix

package drain

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/reflectkb/reflect/internal/proc"
	"github.com/reflectkb/reflect/queue"
)

// The drainer process tests that rely on Unix behaviour: kill -9 and its
// wait status, a writer's process group, a detached drain's own session.

func alive(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(stat, ')')
	return i < 0 || !bytes.HasPrefix(stat[i+1:], []byte(" Z"))
}

// killDrainerInWrite starts a drainer whose writer sleeps a minute, waits
// until the writer runs, and SIGKILLs the drainer. It returns the
// writer's pid (the caller decides what to do with the orphan).
func killDrainerInWrite(t *testing.T, e *drainEnv, env []string) (writerPid int) {
	t.Helper()
	pidFile := filepath.Join(t.TempDir(), "writer.pid")
	p := startDrain(t, e, time.Time{}, append(env, "WRITER_PID="+pidFile)...)
	data := waitForFile(t, pidFile, 20*time.Second)
	writerPid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	// The orphaned writer is ours to clean up, whatever the test finds.
	t.Cleanup(func() {
		syscall.Kill(-writerPid, syscall.SIGKILL) // its group (Setpgid)
		syscall.Kill(writerPid, syscall.SIGKILL)
	})
	if lockFree(t, e.state) {
		t.Fatal("drain.lock is free while the drainer is inside Write")
	}
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	err = p.cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("drainer ended with %v, want killed by SIGKILL", err)
	}
	return writerPid
}

// kill -9 of a drainer inside Write: the entry stays pending, the lock is
// released by the kernel, and the next drain writes each learning once.
func TestProcKilledMidEntry(t *testing.T) {
	t.Parallel()
	e := newDrainEnv(t)
	env, out := writerSetup(t, []string{"sess-kill"}, true)
	rec := e.enqueueData(t, sessionTranscript(t, "sess-kill"), queue.HarnessClaude, "sess-kill")

	killDrainerInWrite(t, e, env)

	recs := e.pending(t)
	if len(recs) != 1 || recs[0].ID != rec.ID || recs[0].Attempts != 0 || recs[0].NotBefore != nil {
		t.Fatalf("queue after kill -9: %+v", recs)
	}
	if !lockFree(t, e.state) {
		t.Fatal("drain.lock is still held after the drainer died")
	}
	if docs := e.documents(t); len(docs) != 0 {
		t.Errorf("documents after a killed drain: %q", docs)
	}
	if led := e.processed(t); len(led) != 0 {
		t.Errorf("processed.jsonl after a killed drain: %+v", led)
	}

	// The next drain (a fast writer) takes the entry and writes it once.
	setenvAll(e, env)
	e.setWriterEnv("WRITER_SLEEP", "0")
	rep := e.run(t, Options{})
	if !rep.Ran || len(rep.Entries) != 1 || rep.Entries[0].ID != rec.ID || rep.Entries[0].Outcome != OutcomeWritten ||
		len(rep.Entries[0].Learnings) != 2 {
		t.Fatalf("drain after the kill: %+v", rep)
	}
	if docs := e.documents(t); !equalSets(docs, rep.Entries[0].Learnings) {
		t.Errorf("documents %q, want exactly one per learning %q", docs, rep.Entries[0].Learnings)
	}
	if len(e.pending(t)) != 0 {
		t.Errorf("queue: %+v", e.pending(t))
	}
	if led := e.processed(t); len(led) != 1 || led[0].Path != rec.TranscriptPath {
		t.Errorf("processed.jsonl: %+v", led)
	}
	if got := calls(t, out); len(got) != 2 {
		t.Errorf("writer calls %q, want the killed one and the one that wrote", got)
	}
	if _, err := os.Stat(filepath.Join(e.state, "drain.pid")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the dead drainer's drain.pid was not replaced and removed: %v", err)
	}
}

// Guards a fixed bug: when the drainer is killed (OOM killer, kill -9, a crash), its
// writer process lives on as an orphan with no timeout: writerProc.run
// puts it in its own process group and only kills it through the context,
// which dies with the drainer. A hung `claude -p` would then run, and
// possibly bill, forever. Suggested fix: SysProcAttr.Pdeathsig =
// syscall.SIGKILL in writerProc.run (drain/writer/writer.go), so the kernel kills the
// writer when the drainer dies.
func TestProcKilledDrainerTakesItsWriter(t *testing.T) {
	t.Parallel()
	e := newDrainEnv(t)
	env, _ := writerSetup(t, []string{"sess-orphan"}, false)
	e.enqueueData(t, sessionTranscript(t, "sess-orphan"), queue.HarnessClaude, "sess-orphan")
	pid := killDrainerInWrite(t, e, env)
	deadline := time.Now().Add(2 * time.Second)
	for alive(pid) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if alive(pid) {
		t.Errorf("writer %d still runs after its drainer was killed", pid)
	}
}

// `reflect drain --detach` (proc.SpawnDetached) starts a drainer in its
// own session with no terminal or inherited pipes; it drains on its own.
func TestProcSpawnDetachedDrains(t *testing.T) {
	e := newDrainEnv(t)
	env, out := writerSetup(t, []string{"sess-bg"}, false)
	// The detached drain inherits this process's environment.
	for k, v := range e.env {
		t.Setenv(k, v)
	}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	e.enqueueData(t, sessionTranscript(t, "sess-bg"), queue.HarnessClaude, "sess-bg")
	infoPath := filepath.Join(t.TempDir(), "info.json")
	t.Setenv(helperEnv, "drain")
	t.Setenv(helperInfoEnv, infoPath)
	t.Setenv(helperStartEnv, "")

	if err := proc.SpawnDetached("drain", "--writer", "command"); err != nil {
		t.Fatal(err)
	}
	var info struct {
		Pid, Sid      int
		Stdin, Stdout string
		Args          []string
	}
	if err := json.Unmarshal(waitForFile(t, infoPath, 10*time.Second), &info); err != nil {
		t.Fatal(err)
	}
	if info.Sid != info.Pid || info.Sid == sessionOf(os.Getpid()) {
		t.Errorf("detached drain: pid %d, session %d; want a session of its own", info.Pid, info.Sid)
	}
	if info.Stdin != os.DevNull || info.Stdout != os.DevNull {
		t.Errorf("detached drain stdio: stdin %s, stdout %s", info.Stdin, info.Stdout)
	}
	if strings.Join(info.Args, " ") != "drain --writer command" {
		t.Errorf("args %q", info.Args)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		last, err := LastRun(e.state)
		if err == nil && last != nil {
			if len(last.Entries) != 1 || last.Entries[0].Outcome != OutcomeWritten {
				t.Errorf("background drain: %+v", last)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the background drain did not finish")
		}
		time.Sleep(20 * time.Millisecond)
	}
	// last-drain.json is written before the lock is released and the
	// process exits; wait for it before the temp dirs are removed.
	for alive(info.Pid) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if len(e.pending(t)) != 0 || len(calls(t, out)) != 1 || len(e.documents(t)) != 1 {
		t.Errorf("queue %+v, calls %q, documents %q", e.pending(t), calls(t, out), e.documents(t))
	}
}
