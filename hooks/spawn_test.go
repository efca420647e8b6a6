package hooks_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/reflectkb/reflect/hooks"
	"github.com/reflectkb/reflect/internal/config"
)

// spawnLog points spawned `reflect` commands at a log file and returns a
// function that waits for n of them and returns their command lines.
func spawnLog(t *testing.T) func(n int) []string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "spawned.log")
	t.Setenv(spawnLogEnv, path)
	return func(n int) []string { return waitLines(path, n) }
}

// waitLines waits up to 10 s for path to hold n lines and returns them.
func waitLines(path string, n int) []string {
	var lines []string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		data, _ := os.ReadFile(path)
		lines = nil
		if text := strings.TrimSpace(string(data)); text != "" {
			lines = strings.Split(text, "\n")
		}
		if len(lines) >= n {
			break
		}
	}
	return lines
}

// recordSpawns replaces Options.Spawn with a recorder that fails with err.
func recordSpawns(calls *[]string, err error) func(*hooks.Options) {
	return func(o *hooks.Options) {
		o.Spawn = func(args ...string) error {
			*calls = append(*calls, strings.Join(args, " "))
			return err
		}
	}
}

// SessionStart starts a background drain when transcripts wait in the
// queue, at most once every ten minutes, and says so in the last event;
// with an empty queue it starts nothing.
func TestSessionStartStartsDrain(t *testing.T) {
	t.Parallel()
	e := newHookEnv(t)
	e.gitRepo(t, "fix/oauth-state-cookie", "cookie: set SameSite on the OAuth state cookie")
	start := func(at time.Time, spawnErr error) ([]string, string) {
		t.Helper()
		var spawned []string
		run(t, e.cfg, "session-start", "codex", e.fixture(t, "codex", "session-start", nil),
			recordSpawns(&spawned, spawnErr), func(o *hooks.Options) { o.Now = func() time.Time { return at } })
		return spawned, lastEvent(t, e.state).Detail
	}
	still := "still relevant: " + e.ids["samesite"]

	// The session start's briefing adds the project's two other learnings.
	if spawned, detail := start(t0, nil); len(spawned) != 0 || detail != "recalled 3" {
		t.Errorf("empty queue: started %q, detail %q", spawned, detail)
	}
	run(t, e.cfg, "stop", "claude", e.fixture(t, "claude", "stop", map[string]any{"transcript_path": e.transcript(t, "t.jsonl")}))
	if n := len(pending(t, e.state)); n != 1 {
		t.Fatalf("queue holds %d records", n)
	}
	// The debounce compares the hook's clock with the drain-started stamp's
	// mtime, so these hooks run at wall-clock times.
	now := time.Now()
	if spawned, detail := start(now, nil); !slices.Equal(spawned, []string{"drain"}) || detail != still+"; draining in the background" {
		t.Errorf("queued transcript: started %q, detail %q", spawned, detail)
	}
	if spawned, detail := start(now.Add(time.Minute), nil); len(spawned) != 0 || detail != still {
		t.Errorf("a minute later: started %q, detail %q", spawned, detail)
	}
	if spawned, detail := start(now.Add(11*time.Minute), errors.New("fork failed")); !slices.Equal(spawned, []string{"drain"}) || detail != still {
		t.Errorf("a failed start: started %q, detail %q", spawned, detail)
	}
	if log := hookLog(t, e.state); !strings.Contains(log, "start drain: fork failed") {
		t.Errorf("hooks.log:\n%s", log)
	}
}

// With sync.auto, SessionStart starts `reflect sync --background` in a
// synced learnings directory at most once per sync.pull_interval; without
// it, or before 'reflect sync init', it starts nothing.
func TestSessionStartStartsSync(t *testing.T) {
	t.Parallel()
	e := newHookEnv(t)
	start := func(at time.Time) []string {
		t.Helper()
		var spawned []string
		run(t, e.cfg, "session-start", "claude", e.fixture(t, "claude", "session-start", nil),
			recordSpawns(&spawned, nil), func(o *hooks.Options) { o.Now = func() time.Time { return at } })
		return spawned
	}
	now := time.Now()
	if got := start(now); len(got) != 0 {
		t.Errorf("sync.auto off: started %q", got)
	}
	e.cfg.Sync = config.Sync{Auto: true, PullInterval: 15 * time.Minute}
	if got := start(now); len(got) != 0 {
		t.Errorf("not a git repository: started %q", got)
	}
	if err := os.Mkdir(filepath.Join(e.kb, ".git"), 0o700); err != nil {
		t.Fatal(err)
	}
	if got := start(now); !slices.Equal(got, []string{"sync --background"}) {
		t.Errorf("synced KB: started %q, want one background sync", got)
	}
	if !strings.Contains(lastEvent(t, e.state).Detail, "syncing in the background") {
		t.Errorf("last event: %+v", lastEvent(t, e.state))
	}
	if got := start(now.Add(time.Minute)); len(got) != 0 {
		t.Errorf("a minute later: started %q", got)
	}
	if got := start(now.Add(16 * time.Minute)); !slices.Equal(got, []string{"sync --background"}) {
		t.Errorf("after the interval: started %q", got)
	}
}
