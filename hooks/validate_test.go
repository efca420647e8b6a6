package hooks_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A transcript_path the agent did not write for this user (a system file,
// a symlink to one, a FIFO, another extension) is refused at enqueue:
// nothing is queued and the file is never hashed or read (issue 27).
func TestEnqueueRefusesNonTranscripts(t *testing.T) {
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
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
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
