package hooks_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/reflectkb/reflect/hooks"
	"github.com/reflectkb/reflect/queue"
)

// Enqueueing hooks skip a transcript that does not exist (yet), with a
// detail that says so, and queue nothing.
func TestEnqueueTranscriptNotFound(t *testing.T) {
	t.Parallel()
	e := newHookEnv(t)
	missing := filepath.Join(t.TempDir(), "never-written.jsonl")
	for _, f := range fixtureRuns {
		if f.event != "pre-compact" && f.event != "stop" && f.event != "session-end" {
			continue
		}
		if f.agent == "opencode" {
			// OpenCode's session comes in the payload, never as a path
			// (TestOpenCodeStop covers it).
			continue
		}
		cfg := e.withState(t)
		in := e.fixture(t, f.agent, f.fixture, map[string]any{"transcript_path": missing})
		if out := run(t, cfg, f.event, f.agent, in); out != "" {
			t.Errorf("%s/%s printed %q", f.agent, f.fixture, out)
		}
		ev := lastEvent(t, cfg.StateDir)
		if ev.Error || ev.Detail != "not queued: transcript not found" || ev.Counts.Queued != 0 {
			t.Errorf("%s/%s: last event %+v", f.agent, f.fixture, ev)
		}
		if recs := pending(t, cfg.StateDir); len(recs) != 0 {
			t.Errorf("%s/%s queued %+v", f.agent, f.fixture, recs)
		}
	}
}

// Stop fires after every turn: once a session is queued, later Stops and
// the SessionEnd say "already queued" and the queue keeps one record.
func TestEnqueueOncePerSession(t *testing.T) {
	t.Parallel()
	e := newHookEnv(t)
	transcript := e.transcript(t, "s.jsonl")
	edits := map[string]any{"transcript_path": transcript}
	run(t, e.cfg, "pre-compact", "claude", e.fixture(t, "claude", "pre-compact", edits))
	for _, event := range []string{"stop", "stop", "session-end"} {
		run(t, e.cfg, event, "claude", e.fixture(t, "claude", event, edits))
		ev := lastEvent(t, e.state)
		if ev.Detail != "not queued: already queued" || ev.Counts.Queued != 1 {
			t.Errorf("%s after pre-compact: last event %+v", event, ev)
		}
	}
	recs := pending(t, e.state)
	if len(recs) != 1 || recs[0].Trigger != queue.TriggerPreCompactAuto {
		t.Errorf("queue = %+v, want the one pre-compact record", recs)
	}
	// A manual /compact is recorded as such.
	cfg := e.withState(t)
	run(t, cfg, "pre-compact", "codex", e.fixture(t, "codex", "pre-compact", map[string]any{"transcript_path": transcript, "trigger": "manual"}))
	if recs := pending(t, cfg.StateDir); len(recs) != 1 || recs[0].Trigger != queue.TriggerPreCompactManual {
		t.Errorf("manual compact queued %+v", recs)
	}
}

// Queue records are at second precision in UTC (queue.Record.QueuedAt,
// ARCHITECTURE §3 "queued_at":"2026-11-22T10:42:00Z"), whatever the clock says.
func TestEnqueueQueuedAtSecondPrecision(t *testing.T) {
	t.Parallel()
	e := newHookEnv(t)
	transcript := e.transcript(t, "s.jsonl")
	now := time.Date(2026, 11, 22, 11, 42, 7, 123456789, time.FixedZone("CET", 3600))
	run(t, e.cfg, "stop", "codex", e.fixture(t, "codex", "stop", map[string]any{"transcript_path": transcript}),
		func(o *hooks.Options) { o.Now = func() time.Time { return now } })
	data, err := os.ReadFile(filepath.Join(e.state, "pending_reflections.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, []byte(`"queued_at":"2026-11-22T10:42:07Z"`)) {
		t.Errorf("queue line does not hold queued_at at second precision in UTC:\n%s", data)
	}
}

// Copilot CLI runs the Stop hook of a session's first turn while it is
// still creating the session's events.jsonl: the hook waits a little for
// it (within its deadline) rather than dropping the session.
func TestCopilotStopWaitsForItsTranscript(t *testing.T) {
	t.Parallel()
	// The transcript's writer below may be slow to run on a loaded
	// machine: the hook's wait is raised so that only its logic is tested.
	e := newHookEnv(t)
	cfg := e.withState(t)
	path := filepath.Join(t.TempDir(), "session-state", "s1", "events.jsonl")
	in := e.fixture(t, "copilot", "stop", map[string]any{"transcript_path": path})
	go func() {
		time.Sleep(100 * time.Millisecond)
		_ = os.MkdirAll(filepath.Dir(path), 0o700)
		tmp := filepath.Join(filepath.Dir(path), ".events.tmp")
		_ = os.WriteFile(tmp, []byte(`{"type":"session.start","data":{}}`+"\n"), 0o600)
		_ = os.Rename(tmp, path)
	}()
	run(t, cfg, "stop", "copilot", in, func(o *hooks.Options) { o.TranscriptWait = time.Minute })
	recs := pending(t, cfg.StateDir)
	if len(recs) != 1 || recs[0].TranscriptPath != path || recs[0].Harness != "copilot" {
		t.Fatalf("queued %+v, last event %+v", recs, lastEvent(t, cfg.StateDir))
	}
}
