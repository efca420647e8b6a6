package drain

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gofrs/flock"

	"github.com/reflectkb/reflect/internal/config"
	"github.com/reflectkb/reflect/queue"
)

// These tests run real drainer processes: this test binary, re-executed
// with helperEnv set, runs one drain (the way `reflect drain` does) and
// prints its report as JSON.
const (
	helperEnv      = "REFLECT_DRAIN_TEST_HELPER"
	helperStartEnv = "REFLECT_DRAIN_TEST_START" // unix ns to sleep until, so processes start together
	helperInfoEnv  = "REFLECT_DRAIN_TEST_INFO"  // file to record pid, session and stdio in
)

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) == "drain" {
		os.Exit(helperDrain())
	}
	os.Exit(runIsolated(m))
}

// runIsolated runs the tests with HOME and both reflect directories in a
// temp dir and reflect's settings cleared, set once for the process: a
// writer the tests start never sees the real home, and no setting of the
// caller's leaks into a detached drain. The tests load their configuration
// from drainEnv.env instead.
func runIsolated(m *testing.M) int {
	home, err := os.MkdirTemp("", "drain-test-home-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(home)
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "REFLECT_") {
			os.Unsetenv(k)
		}
	}
	for k, v := range map[string]string{"HOME": home, "REFLECT_STATE_DIR": filepath.Join(home, "state"),
		"REFLECT_LEARNINGS_DIR": filepath.Join(home, "learnings")} {
		if err := os.Setenv(k, v); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	return m.Run()
}

// helperDrain is the body of a drainer process.
func helperDrain() int {
	if s := os.Getenv(helperStartEnv); s != "" {
		if ns, err := strconv.ParseInt(s, 10, 64); err == nil {
			time.Sleep(time.Until(time.Unix(0, ns)))
		}
	}
	if path := os.Getenv(helperInfoEnv); path != "" {
		sid := sessionOf(os.Getpid())
		stdin, _ := os.Readlink("/proc/self/fd/0")
		stdout, _ := os.Readlink("/proc/self/fd/1")
		info, _ := json.Marshal(map[string]any{"pid": os.Getpid(), "sid": sid, "stdin": stdin, "stdout": stdout, "args": os.Args[1:]})
		if err := os.WriteFile(path, info, 0o600); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	c, err := config.Load(os.LookupEnv)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	rep, err := Run(context.Background(), withConfig(c, Options{}))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := json.NewEncoder(os.Stdout).Encode(rep); err != nil {
		return 1
	}
	return 0
}

// drainProc is a drainer process.
type drainProc struct {
	cmd            *exec.Cmd
	stdout, stderr bytes.Buffer
}

// startDrain starts a drainer process on e with only the environment a
// drain needs (HOME and both directories in e, system PATH) plus env.
func startDrain(t *testing.T, e *drainEnv, start time.Time, env ...string) *drainProc {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	p := &drainProc{cmd: exec.Command(exe, "-test.run=^$")}
	p.cmd.Env = append([]string{
		helperEnv + "=drain",
		"HOME=" + e.home,
		"PATH=/usr/bin:/bin",
		"TMPDIR=" + os.TempDir(),
		"REFLECT_STATE_DIR=" + e.state,
		"REFLECT_LEARNINGS_DIR=" + e.kb,
	}, env...)
	if !start.IsZero() {
		p.cmd.Env = append(p.cmd.Env, helperStartEnv+"="+strconv.FormatInt(start.UnixNano(), 10))
	}
	p.cmd.Stdout, p.cmd.Stderr = &p.stdout, &p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if p.cmd.ProcessState == nil {
			p.cmd.Process.Kill()
			p.cmd.Wait()
		}
	})
	return p
}

// report waits for the drainer and returns its report.
func (p *drainProc) report(t *testing.T) *Report {
	t.Helper()
	if err := p.cmd.Wait(); err != nil {
		t.Fatalf("drainer %d: %v\nstderr: %s", p.cmd.Process.Pid, err, p.stderr.String())
	}
	var rep Report
	if err := json.Unmarshal(p.stdout.Bytes(), &rep); err != nil {
		t.Fatalf("drainer %d printed %q: %v\nstderr: %s", p.cmd.Process.Pid, p.stdout.String(), err, p.stderr.String())
	}
	return &rep
}

// sessionWriter is a command writer that records the session it was asked
// about in $FAKE_OUT/calls, sleeps $WRITER_SLEEP seconds, and prints
// $ANSWERS/<session>.json. With $WRITER_PID set it writes its pid there
// and becomes a sleep that never answers: a hung writer of one process,
// like a stuck `claude -p`.
const sessionWriter = `sid=$(grep -o '"session_id":"[^"]*"' "$REFLECT_CONDENSED_JSON" | head -n 1 | cut -d'"' -f4)
echo "$sid" >> "$FAKE_OUT/calls"
if [ -n "$WRITER_PID" ]; then echo $$ > "$WRITER_PID"; exec sleep 60; fi
sleep "${WRITER_SLEEP:-0}"
cat "$ANSWERS/$sid.json"
`

// topics are distinct lessons, so that no two sessions' learnings are
// near-duplicates of each other.
var topics = [][2]string{
	{"Postgres pool exhaustion needs pgbouncer", "Put pgbouncer in transaction mode in front of Postgres when workers exceed max_connections."},
	{"Vite dev server must bind 0.0.0.0 inside Docker", "Start vite with --host so the container port mapping reaches it."},
	{"Terraform state lock stuck after a cancelled CI job", "Run terraform force-unlock with the lock id from the error once no apply is running."},
	{"Kafka consumer rebalances when max.poll.interval.ms is exceeded", "Lower max.poll.records or raise max.poll.interval.ms for slow handlers."},
	{"Gradle daemon OOM fixed by raising org.gradle.jvmargs", "Set -Xmx2g in gradle.properties; the default heap is too small for kapt."},
	{"pytest fixtures leak state through module-level globals", "Reset the registry in an autouse fixture instead of at import time."},
	{"Nginx strips underscores from header names by default", "Enable underscores_in_headers on or rename X_API_KEY to X-Api-Key."},
	{"Rust borrow checker rejects self-referential structs", "Store indices into a Vec instead of references, or use Pin with ouroboros."},
}

// writerSetup writes the command writer and one answer per session
// (session i gets topic i and, when two, a second learning of its own),
// and returns the environment that selects it.
func writerSetup(t *testing.T, sessions []string, twoEach bool) (env []string, out string) {
	t.Helper()
	dir := t.TempDir()
	out = filepath.Join(dir, "out")
	answers := filepath.Join(dir, "answers")
	for _, d := range []string{out, answers} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	for i, s := range sessions {
		ls := []map[string]any{{"title": topics[i][0], "key_insight": topics[i][1], "confidence": "high", "tags": []string{"t" + strconv.Itoa(i)}}}
		if twoEach {
			ls = append(ls, map[string]any{
				"title":       fmt.Sprintf("Session %s ran the quarterly zebra audit", s),
				"key_insight": fmt.Sprintf("The %s audit needs the walrus token rotated first.", s), "confidence": "low",
			})
		}
		data, _ := json.Marshal(map[string]any{"learnings": ls})
		if err := os.WriteFile(filepath.Join(answers, s+".json"), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	script := filepath.Join(dir, "writer.sh")
	writeScript(t, script, sessionWriter)
	return []string{
		"REFLECT_WRITER=command", "REFLECT_WRITER_COMMAND=" + script,
		"FAKE_OUT=" + out, "ANSWERS=" + answers,
	}, out
}

// setenvAll applies KEY=VALUE pairs for in-process drains: reflect's
// settings to the environment e's configuration is loaded from, the rest
// (what the writer script reads) to the writers' environment.
func setenvAll(e *drainEnv, env []string) {
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "REFLECT_") {
			e.setenv(k, v)
		} else {
			e.setWriterEnv(k, v)
		}
	}
}

// sessionTranscript is the Claude fixture as another session: its
// session id replaced, so the condensed JSON names session and the
// content differs from every other session's.
func sessionTranscript(t *testing.T, session string) []byte {
	t.Helper()
	data, err := os.ReadFile("../transcript/testdata/claude-session.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	return bytes.ReplaceAll(data, []byte("8f14e45f-ceea-467f-a8e0-2c1d1b1e6a01"), []byte(session))
}

func calls(t *testing.T, out string) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(out, "calls"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Fields(string(data))
}

// lockFree reports whether drain.lock can be taken now.
func lockFree(t *testing.T, state string) bool {
	t.Helper()
	l := flock.New(filepath.Join(state, "drain.lock"))
	ok, err := l.TryLock()
	if err != nil {
		t.Fatal(err)
	}
	if ok {
		l.Unlock()
	}
	return ok
}

func waitForFile(t *testing.T, path string, within time.Duration) []byte {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		if data, err := os.ReadFile(path); err == nil && len(bytes.TrimSpace(data)) > 0 {
			return data
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not appear within %s", path, within)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Ten drainers started at the same moment: one drains, the others report
// that another drain is running, and every entry is reflected once.
func TestProcTenDrainsAtOnce(t *testing.T) {
	t.Parallel()
	e := newDrainEnv(t)
	var sessions []string
	for i := 0; i < 5; i++ {
		sessions = append(sessions, fmt.Sprintf("sess-%d", i))
	}
	env, out := writerSetup(t, sessions, false)
	paths := map[string]bool{}
	for _, s := range sessions {
		paths[e.enqueueData(t, sessionTranscript(t, s), queue.HarnessClaude, s).TranscriptPath] = true
	}
	sleep := "1"
	if testing.Short() {
		sleep = "0.4"
	}
	env = append(env, "WRITER_SLEEP="+sleep, "REFLECT_DRAIN_MAX_PER_RUN=5")
	start := time.Now().Add(700 * time.Millisecond)
	var procs []*drainProc
	for i := 0; i < 10; i++ {
		procs = append(procs, startDrain(t, e, start, env...))
	}
	ran := 0
	for _, p := range procs {
		rep := p.report(t)
		switch {
		case rep.Ran:
			ran++
			if len(rep.Entries) != 5 || rep.Waiting != 0 {
				t.Errorf("the drain that ran: %+v", rep)
			}
			for _, en := range rep.Entries {
				if en.Outcome != OutcomeWritten || len(en.Learnings) != 1 {
					t.Errorf("entry %+v", en)
				}
			}
		case strings.HasPrefix(rep.Reason, ErrLocked.Error()):
			// "(pid N)" follows once the winner has written drain.pid,
			// which it does just after taking the lock: display only.
			if len(rep.Entries) != 0 {
				t.Errorf("a locked-out drain reports entries: %+v", rep)
			}
		default:
			t.Errorf("a drain neither ran nor found the lock taken: %+v", rep)
		}
	}
	if ran != 1 {
		t.Errorf("%d drains ran, want exactly 1", ran)
	}
	got := calls(t, out)
	seen := map[string]int{}
	for _, s := range got {
		seen[s]++
	}
	for _, s := range sessions {
		if seen[s] != 1 {
			t.Errorf("session %s reflected %d times (calls %q)", s, seen[s], got)
		}
	}
	if docs := e.documents(t); len(docs) != 5 {
		t.Errorf("documents %q, want 5", docs)
	}
	led := e.processed(t)
	for _, p := range led {
		if !paths[p.Path] {
			t.Errorf("ledger line for an unknown transcript: %+v", p)
		}
		delete(paths, p.Path)
	}
	if len(led) != 5 || len(paths) != 0 {
		t.Errorf("processed.jsonl has %d lines, missing %v", len(led), paths)
	}
	if n := len(e.costLines(t)); n != 5 {
		t.Errorf("drain-cost.jsonl has %d lines, want 5", n)
	}
	if len(e.pending(t)) != 0 {
		t.Errorf("queue: %+v", e.pending(t))
	}
}

// The daily cap holds however many drainers race for it.
func TestProcDailyCapUnderRace(t *testing.T) {
	t.Parallel()
	e := newDrainEnv(t)
	var sessions []string
	for i := 0; i < 8; i++ {
		sessions = append(sessions, fmt.Sprintf("cap-%d", i))
	}
	env, out := writerSetup(t, sessions, false)
	for _, s := range sessions {
		e.enqueueData(t, sessionTranscript(t, s), queue.HarnessClaude, s)
	}
	env = append(env, "WRITER_SLEEP=0.2", "REFLECT_DRAIN_DAILY_MAX=3", "REFLECT_DRAIN_MAX_PER_RUN=2")
	today := func() int {
		n := 0
		y, m, d := time.Now().UTC().Date()
		for _, c := range e.costLines(t) {
			if cy, cm, cd := c.TS.UTC().Date(); cy == y && cm == m && cd == d {
				n++
			}
		}
		return n
	}

	// Ten at once, their starts spread over 0.8 s so that some find the
	// lock taken and some come after a drain finished.
	base := time.Now().Add(500 * time.Millisecond)
	var procs []*drainProc
	for i := 0; i < 10; i++ {
		procs = append(procs, startDrain(t, e, base.Add(time.Duration(i)*80*time.Millisecond), env...))
	}
	for _, p := range procs {
		rep := p.report(t)
		if rep.Ran && len(rep.Entries) > 2 {
			t.Errorf("a drain reflected %d entries with max_per_run 2", len(rep.Entries))
		}
	}
	if n := today(); n > 3 {
		t.Fatalf("drain-cost.jsonl has %d lines for today after the race, daily_max is 3", n)
	}
	for i := 0; i < 10; i++ {
		rep := startDrain(t, e, time.Time{}, env...).report(t)
		if n := today(); n > 3 {
			t.Fatalf("drain-cost.jsonl has %d lines for today after sequential drain %d, daily_max is 3", n, i)
		}
		if i == 9 && (rep.Ran || rep.Reason != "daily budget reached: 3 of 3 entries reflected today") {
			t.Errorf("last drain: %+v", rep)
		}
	}
	if n := today(); n != 3 {
		t.Errorf("drain-cost.jsonl has %d lines for today, want 3", n)
	}
	if got := calls(t, out); len(got) != 3 {
		t.Errorf("writer ran %d times: %q", len(got), got)
	}
	if recs := e.pending(t); len(recs) != 5 {
		t.Errorf("%d entries left in the queue, want 5", len(recs))
	}
	if docs := e.documents(t); len(docs) != 3 {
		t.Errorf("documents %q, want 3", docs)
	}
}

// sessionOf is the session id of pid, from /proc/PID/stat (field 6); -1
// when unknown.
func sessionOf(pid int) int {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return -1
	}
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return -1
	}
	// After the command: state ppid pgrp session ...
	f := strings.Fields(string(stat[i+1:]))
	if len(f) < 4 {
		return -1
	}
	sid, err := strconv.Atoi(f[3])
	if err != nil {
		return -1
	}
	return sid
}
