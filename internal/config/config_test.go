package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func setHome(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	for _, k := range []string{"REFLECT_STATE_DIR", "REFLECT_LEARNINGS_DIR", "REFLECT_DISABLE", "REFLECT_WRITER",
		"REFLECT_RECALL_MAX", "REFLECT_DRAIN_TIMEOUT", "REFLECT_DRAIN_DAILY_USD", "REFLECT_DRAIN_MAX_PER_RUN"} {
		t.Setenv(k, "")
	}
	return home
}

func TestDefaults(t *testing.T) {
	home := setHome(t)
	c, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	if c.StateDir != filepath.Join(home, ".reflect") || c.LearningsDir != filepath.Join(home, ".learnings") {
		t.Errorf("dirs = %s, %s", c.StateDir, c.LearningsDir)
	}
	if c.Recall.Max != 3 || c.Recall.Chars != 1500 || c.Drain.MaxPerRun != 3 || c.Drain.DailyMax != 20 ||
		c.Drain.Timeout != 300*time.Second || c.Drain.MaxAttempts != 3 || c.Index.Embedder != "hash" || c.Disabled {
		t.Errorf("defaults = %+v", c)
	}
	if c.DocumentsDir() != filepath.Join(home, ".learnings", "documents") || c.IndexDir() != filepath.Join(home, ".learnings", "index") {
		t.Errorf("derived dirs %s %s", c.DocumentsDir(), c.IndexDir())
	}
}

// config.toml sets values; environment variables win over it.
func TestFileThenEnv(t *testing.T) {
	home := setHome(t)
	state := filepath.Join(home, "st")
	t.Setenv("REFLECT_STATE_DIR", state)
	if err := os.MkdirAll(state, 0o700); err != nil {
		t.Fatal(err)
	}
	toml := "[paths]\nlearnings_dir = \"~/kb\"\n[recall]\nmax = 5\nchars = 900\n[drain]\nwriter = \"builtin\"\ntimeout = \"90s\"\ndaily_usd = 1.5\n"
	if err := os.WriteFile(filepath.Join(state, "config.toml"), []byte(toml), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("REFLECT_RECALL_MAX", "2")
	t.Setenv("REFLECT_DISABLE", "1")
	c, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	if c.LearningsDir != filepath.Join(home, "kb") {
		t.Errorf("learnings dir %s", c.LearningsDir)
	}
	if c.Recall.Max != 2 || c.Recall.Chars != 900 || c.Drain.Writer != "builtin" || c.Drain.Timeout != 90*time.Second || c.Drain.DailyUSD != 1.5 || !c.Disabled {
		t.Errorf("config = %+v", c)
	}
	if c.Origin["recall.max"] != "env REFLECT_RECALL_MAX" || c.Origin["recall.chars"] != "config.toml" {
		t.Errorf("origin = %v", c.Origin)
	}
}

func TestBadValues(t *testing.T) {
	for _, tc := range []struct{ env, value, want string }{
		{"REFLECT_RECALL_MAX", "three", "REFLECT_RECALL_MAX"},
		{"REFLECT_DRAIN_TIMEOUT", "soon", "REFLECT_DRAIN_TIMEOUT"},
		{"REFLECT_DRAIN_DAILY_USD", "-1", "REFLECT_DRAIN_DAILY_USD"},
	} {
		setHome(t)
		t.Setenv(tc.env, tc.value)
		if _, err := Load(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s=%s: err = %v", tc.env, tc.value, err)
		}
	}
	home := setHome(t)
	if err := os.MkdirAll(filepath.Join(home, ".reflect"), 0o700); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(home, ".reflect", "config.toml")
	if err := os.WriteFile(bad, []byte("[recall\nmax = 2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(); err == nil || !strings.Contains(err.Error(), bad) {
		t.Errorf("broken config.toml: err = %v, want it to name the file", err)
	}
}
