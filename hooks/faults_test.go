package hooks_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gofrs/flock"

	"github.com/reflectkb/reflect/hooks"
	"github.com/reflectkb/reflect/queue"
)

// Symlinks planted at every state file a hook writes are not written
// through (on main, last-event.json's target was truncated and overwritten
// and hooks.log, the queue and the ledger were appended through), and the
// hooks still exit quietly.
func TestHooksDoNotWriteThroughSymlinks(t *testing.T) {
	t.Parallel()
	e := newHookEnv(t)
	cfg := e.withState(t)
	victim := filepath.Join(t.TempDir(), "victim")
	const precious = "precious\n"
	if err := os.WriteFile(victim, []byte(precious), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(cfg.StateDir, "logs"), 0o700); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"last-event.json", "logs/hooks.log", "pending_reflections.jsonl", "processed.jsonl", "malformed.jsonl"} {
		if err := os.Symlink(victim, filepath.Join(cfg.StateDir, name)); err != nil {
			t.Fatal(err)
		}
	}
	elsewhere := t.TempDir()
	if err := os.Symlink(elsewhere, filepath.Join(cfg.StateDir, "armed")); err != nil {
		t.Fatal(err)
	}
	transcript := e.transcript(t, "s.jsonl")
	for _, f := range []struct{ event, fixture string }{
		{"prompt", "user-prompt-submit"},
		{"post-tool", "post-tool-use-failure"},
		{"stop", "stop"},
		{"session-end", "session-end"},
	} {
		run(t, cfg, f.event, "claude", e.fixture(t, "claude", f.fixture, map[string]any{"transcript_path": transcript}))
	}
	if got, _ := os.ReadFile(victim); string(got) != precious {
		t.Errorf("a hook wrote through a planted symlink: the target now holds %q", got)
	}
	if entries, _ := os.ReadDir(elsewhere); len(entries) != 0 {
		t.Errorf("a watcher was armed through a symlinked armed/: %v", entries)
	}
}

// The deadline runs from the process start and covers reading stdin: an
// agent that never finishes writing the payload (or a payload of megabytes
// arriving slowly) made the hook wait for it forever on main, the clock
// starting only once stdin was read.
func TestDeadlineCoversReadingThePayload(t *testing.T) {
	t.Parallel()
	e := newHookEnv(t)
	// A real pipe, as from an agent, left open after half a payload.
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	defer pw.Close()
	if _, err := pw.Write([]byte(`{"session_id":"s1","prompt":"why is the sqlite`)); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	done := make(chan struct{})
	go func() {
		hooks.Run(context.Background(), hooks.Options{Event: "prompt", Agent: "claude", In: pr, Out: &out,
			Config: e.cfg, Deadline: 200 * time.Millisecond,
			Spawn: func(...string) error { return nil }})
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("the hook waited for its payload past its deadline")
	}
	if out.Len() != 0 {
		t.Errorf("printed %q", out.String())
	}
	if ev := lastEvent(t, e.state); !ev.Error || !strings.Contains(ev.Detail, "gave up reading the payload") {
		t.Errorf("last event = %+v, want an error saying it gave up reading", ev)
	}

	// A deadline that started long before Run (the process was slow to
	// get here) has already passed: the hook gives up at once.
	out.Reset()
	hooks.Run(context.Background(), hooks.Options{Event: "prompt", Agent: "claude",
		In: bytes.NewReader(e.fixture(t, "claude", "user-prompt-submit", nil)), Out: &out,
		Config: e.cfg, Deadline: time.Second, Start: time.Now().Add(-time.Hour),
		Spawn: func(...string) error { return nil }})
	if out.Len() != 0 {
		t.Errorf("printed %q past the deadline", out.String())
	}
	if ev := lastEvent(t, e.state); !ev.Error {
		t.Errorf("last event = %+v, want an error", ev)
	}
}

// A prompt of megabytes and a 100 KB working directory do not break the
// hook (recall's test checks the prompt is clipped before the search).
func TestHugePromptAndCwdAreBounded(t *testing.T) {
	t.Parallel()
	e := newHookEnv(t)
	huge := "why is the sqlite database locked " + strings.Repeat("padding words here ", 300_000)
	in := e.fixture(t, "claude", "user-prompt-submit", map[string]any{"prompt": huge, "cwd": "/" + strings.Repeat("d/", 50_000)})
	run(t, e.cfg, "prompt", "claude", in)
	if ev := lastEvent(t, e.state); ev.Error {
		t.Errorf("last event = %+v", ev)
	}
}

// An enqueueing hook whose deadline passes before Enqueue finished (here
// the queue is locked throughout) keeps its capture: on main the process
// exited with it, and under load 1 in 5 Stop hooks queued nothing.
func TestDeadlineKeepsTheCapture(t *testing.T) {
	e := newHookEnv(t)
	transcript := e.transcript(t, "t.jsonl")
	in := e.fixture(t, "codex", "stop", map[string]any{"transcript_path": transcript})
	lock := flock.New(filepath.Join(e.state, "queue.lock"))
	if err := lock.Lock(); err != nil {
		t.Fatal(err)
	}
	run(t, e.cfg, "stop", "codex", in, func(o *hooks.Options) { o.Deadline = 100 * time.Millisecond })
	if ev := lastEvent(t, e.state); !ev.Error || !strings.Contains(ev.Detail, "gave up") {
		t.Fatalf("last event = %+v, want the deadline", ev)
	}
	if log := hookLog(t, e.state); !strings.Contains(log, "kept the capture in spill/") {
		t.Errorf("hooks.log:\n%s", log)
	}
	if err := lock.Unlock(); err != nil {
		t.Fatal(err)
	}
	waitHandlers(t)
	q, err := queue.Open(e.state)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := q.Claim(time.Now().Add(time.Hour), 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1 || recs[0].TranscriptPath != transcript {
		t.Errorf("queue after the deadline = %+v, want the one capture", recs)
	}
}
