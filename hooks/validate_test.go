package hooks_test

import (
	"encoding/json"
	"github.com/reflectkb/reflect/internal/testfs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reflectkb/reflect/hooks"
)

// A transcript_path the agent did not write for this user (a system file,
// a symlink to one, a FIFO, another extension) is refused at enqueue:
// nothing is queued and the file is never hashed or read (issue 27).
func TestEnqueueRefusesNonTranscripts(t *testing.T) {
	t.Parallel()
	e := newHookEnv(t)
	dir := t.TempDir()
	secretFile := filepath.Join(dir, "id_rsa")
	if err := os.WriteFile(secretFile, []byte("-----BEGIN OPENSSH PRIVATE KEY-----\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "session.jsonl")
	if err := os.Symlink(secretFile, link); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo.jsonl")
	if err := testfs.Mkfifo(fifo); err != nil {
		t.Fatal(err)
	}
	paths := map[string]string{
		"not a transcript's extension": secretFile,
		"symlink":                      link,
		"FIFO":                         fifo,
		"directory":                    dir + "/sub.json",
	}
	if err := os.Mkdir(dir+"/sub.json", 0o700); err != nil {
		t.Fatal(err)
	}
	// /etc/shadow and /etc/passwd are owned by root; under root the
	// extension check refuses them anyway.
	for _, sys := range []string{"/etc/shadow", "/etc/passwd"} {
		if _, err := os.Lstat(sys); err == nil {
			paths[sys] = sys
		}
	}
	// Another user's transcript-shaped file (only root can make one).
	if os.Geteuid() == 0 {
		other := filepath.Join(dir, "other.jsonl")
		if err := os.WriteFile(other, []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(other, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		paths["another user's file"] = other
	}
	// A system file of the right extension: owned by root, and in a
	// system directory for a hook run as root.
	if m, _ := filepath.Glob("/usr/share/*/*.json"); len(m) > 0 {
		paths["system .json"] = m[0]
	}
	for what, path := range paths {
		for _, agent := range []string{"claude", "codex"} {
			cfg := e.withState(t)
			run(t, cfg, "stop", agent, e.fixture(t, agent, "stop", map[string]any{"transcript_path": path}))
			if recs := pending(t, cfg.StateDir); len(recs) != 0 {
				t.Errorf("%s (%s, %s) queued: %+v", what, path, agent, recs)
			}
			ev := lastEvent(t, cfg.StateDir)
			if !ev.Error || !strings.Contains(ev.Detail, "refused") {
				t.Errorf("%s (%s, %s): last event %+v, want a refusal", what, path, agent, ev)
			}
		}
	}
	// A real transcript of each client's shape still queues.
	for _, name := range []string{"8f14e45f-ceea-467f-a8e0-2c1d1b1e6a01.jsonl", "session-2026-11-25T18-22-6cfe662c.json", "events.jsonl"} {
		cfg := e.withState(t)
		run(t, cfg, "stop", "claude", e.fixture(t, "claude", "stop", map[string]any{"transcript_path": e.transcript(t, name)}))
		if recs := pending(t, cfg.StateDir); len(recs) != 1 {
			t.Errorf("%s: queued %+v, want it", name, recs)
		}
	}
}

// A token sent as session_id never reaches disk: not last-event.json, not
// the queue, not a file name. Real ids pass unchanged (issue 27).
func TestSessionIDTokenNeverWritten(t *testing.T) {
	t.Parallel()
	e := newHookEnv(t)
	const token = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"
	for _, id := range []string{token, "password=hunter2x", strings.Repeat("a", 300), "../../etc/x"} {
		cfg := e.withState(t)
		transcript := e.transcript(t, "t.jsonl")
		run(t, cfg, "stop", "claude", e.fixture(t, "claude", "stop", map[string]any{"session_id": id, "transcript_path": transcript}))
		run(t, cfg, "post-tool", "claude", e.fixture(t, "claude", "post-tool-use-failure", map[string]any{"session_id": id}))
		ev := lastEvent(t, cfg.StateDir)
		if ev.SessionID == id || !strings.HasPrefix(ev.SessionID, "sid-") {
			t.Errorf("last event session id %q for %.40q", ev.SessionID, id)
		}
		recs := pending(t, cfg.StateDir)
		if len(recs) != 1 || recs[0].SessionID != ev.SessionID {
			t.Errorf("queued %+v, want one record under %s", recs, ev.SessionID)
		}
		for _, p := range treeOf(t, cfg.StateDir) {
			if strings.Contains(p, "ghp_") || strings.Contains(p, "hunter2x") {
				t.Errorf("file name %s holds the id", p)
			}
			data, err := os.ReadFile(filepath.Join(cfg.StateDir, p))
			if err == nil && (strings.Contains(string(data), token) || strings.Contains(string(data), "hunter2x")) {
				t.Errorf("%s holds the id", p)
			}
		}
	}
	for _, id := range []string{"8f14e45f-ceea-467f-a8e0-2c1d1b1e6a01", "ses_dec014aa0ffeSFFF719s2JwSzV"} {
		cfg := e.withState(t)
		run(t, cfg, "stop", "claude", e.fixture(t, "claude", "stop", map[string]any{"session_id": id, "transcript_path": e.transcript(t, "t.jsonl")}))
		if ev := lastEvent(t, cfg.StateDir); ev.SessionID != id {
			t.Errorf("real id %q became %q", id, ev.SessionID)
		}
	}
}

// The OpenCode plugin sends only the messages after those it sent before
// (and the last one again), in parts under the payload cap: the copy keeps
// its first first_message lines and takes the rest from the payload; a
// part with more to come is saved, not queued; a gap and left-out
// messages are logged (issue 27: sessions over 8 MB were never captured
// and every idle resent the whole session).
func TestOpenCodeIncrementalParts(t *testing.T) {
	t.Parallel()
	e := newHookEnv(t)
	cfg := e.withState(t)
	msg := func(id, text string) map[string]any {
		return map[string]any{"info": map[string]any{"id": id, "role": "user"}, "parts": []any{map[string]any{"type": "text", "text": text}}}
	}
	stop := func(first int, more bool, skipped int, ms ...map[string]any) {
		t.Helper()
		list := make([]any, len(ms))
		for i, m := range ms {
			list[i] = m
		}
		run(t, cfg, "stop", "opencode", e.fixture(t, "opencode", "stop", map[string]any{
			"messages": list, "first_message": first, "more": more, "skipped": skipped}))
	}
	copyLines := func() []string {
		t.Helper()
		dir := filepath.Join(cfg.StateDir, "transcripts", "opencode")
		entries, err := os.ReadDir(dir)
		if err != nil || len(entries) != 1 {
			t.Fatalf("copies: %v %v", entries, err)
		}
		data, err := os.ReadFile(filepath.Join(dir, entries[0].Name()))
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			var m struct {
				Info  struct{ ID string }     `json:"info"`
				Parts []struct{ Text string } `json:"parts"`
			}
			if err := json.Unmarshal([]byte(l), &m); err != nil {
				t.Fatalf("copy line %q: %v", l, err)
			}
			ids = append(ids, m.Info.ID+"="+m.Parts[0].Text)
		}
		return ids
	}
	// A large session in two parts: the first is saved, not queued.
	stop(0, true, 0, msg("m0", "a"), msg("m1", "b"))
	if recs := pending(t, cfg.StateDir); len(recs) != 0 {
		t.Errorf("a part with more to come was queued: %+v", recs)
	}
	stop(2, false, 1, msg("m2", "c"), msg("m3", "d"))
	if recs := pending(t, cfg.StateDir); len(recs) != 1 {
		t.Errorf("the last part did not queue the session: %+v", recs)
	}
	if got := strings.Join(copyLines(), " "); got != "m0=a m1=b m2=c m3=d" {
		t.Errorf("copy after two parts: %s", got)
	}
	// The next idle resends the last message (grown) and a new one.
	stop(3, false, 0, msg("m3", "d, finished"), msg("m4", "e"))
	if got := strings.Join(copyLines(), " "); got != "m0=a m1=b m2=c m3=d, finished m4=e" {
		t.Errorf("copy after an increment: %s", got)
	}
	log := hookLog(t, cfg.StateDir)
	if !strings.Contains(log, "1 messages over the plugin's size cap were left out") {
		t.Errorf("hooks.log does not say a message was left out:\n%s", log)
	}
	// A plugin that sent more than the copy holds: the gap is logged.
	stop(9, false, 0, msg("m9", "j"))
	if got := strings.Join(copyLines(), " "); got != "m0=a m1=b m2=c m3=d, finished m4=e m9=j" {
		t.Errorf("copy after a gap: %s", got)
	}
	if log := hookLog(t, cfg.StateDir); !strings.Contains(log, "the 4 between are missing") {
		t.Errorf("hooks.log does not report the gap:\n%s", log)
	}
}

// A stop whose deadline passes before its enqueue keeps the capture in
// spill/ for later, but never one enqueue would refuse.
func TestDeadlineSpillRefusesNonTranscripts(t *testing.T) {
	e := newHookEnv(t)
	dir := t.TempDir()
	target := filepath.Join(dir, "id_rsa")
	if err := os.WriteFile(target, []byte("secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "t.jsonl")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]int{link: 0, e.transcript(t, "t.jsonl"): 1} {
		cfg := e.withState(t)
		run(t, cfg, "stop", "claude", e.fixture(t, "claude", "stop", map[string]any{"transcript_path": path}),
			func(o *hooks.Options) { o.Deadline = time.Nanosecond })
		waitHandlers(t)
		spilled, _ := filepath.Glob(filepath.Join(cfg.StateDir, "spill", "*"))
		if len(spilled)+len(pending(t, cfg.StateDir)) != want {
			t.Errorf("%s: spilled %v, pending %v; want %d kept", path, spilled, pending(t, cfg.StateDir), want)
		}
	}
}
