package hooks_test

import (
	"os"
	"path/filepath"
	"testing"
)

// Symlinks planted at every state file a hook writes are not written
// through (on main, last-event.json's target was truncated and overwritten
// and hooks.log, the queue and the ledger were appended through), and the
// hooks still exit quietly.
func TestHooksDoNotWriteThroughSymlinks(t *testing.T) {
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
