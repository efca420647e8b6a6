package doctor

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reflectkb/reflect/internal/config"
)

func checkNamed(r *Report, name string) *Check {
	for i := range r.Checks {
		if r.Checks[i].Name == name {
			return &r.Checks[i]
		}
	}
	return nil
}

// Doctor tells whether each agent has reflect's hooks, and warns about a
// settings file it cannot read, without ever changing it.
func TestHooksCheck(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	t.Setenv("CODEX_HOME", "")
	t.Setenv("PATH", t.TempDir()) // no claude or codex: the writer check stays quiet
	c := &config.Config{StateDir: filepath.Join(home, "state"), LearningsDir: filepath.Join(home, "kb"),
		File: filepath.Join(home, "state", "config.toml"), Origin: map[string]string{}}
	c.Drain.Writer = "builtin"

	installed, err := os.ReadFile(filepath.Join("..", "hooks", "testdata", "claude", "missing.installed.json"))
	if err != nil {
		t.Fatal(err)
	}
	settings := filepath.Join(home, ".claude", "settings.json")
	if err := os.MkdirAll(filepath.Dir(settings), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(settings, installed, 0o600); err != nil {
		t.Fatal(err)
	}
	codex := filepath.Join(home, ".codex", "hooks.json")
	if err := os.MkdirAll(filepath.Dir(codex), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(codex, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}

	r := Run(context.Background(), c)
	if ch := checkNamed(r, "claude hooks"); ch == nil || ch.Status != OK || !strings.Contains(ch.Detail, "hook entries in "+settings) {
		t.Errorf("claude hooks check = %+v", ch)
	}
	if ch := checkNamed(r, "codex hooks"); ch == nil || ch.Status != Warn || !strings.Contains(ch.Detail, "invalid JSON") {
		t.Errorf("codex hooks check = %+v", ch)
	}
	if got, _ := os.ReadFile(settings); string(got) != string(installed) {
		t.Error("doctor changed settings.json")
	}
	if _, err := os.Stat(settings + ".reflect-backup"); err == nil {
		t.Error("doctor wrote a backup")
	}
	if !r.Healthy() {
		t.Errorf("a warning made the report unhealthy: %+v", r.Checks)
	}

	os.Remove(settings)
	r = Run(context.Background(), c)
	if ch := checkNamed(r, "claude hooks"); ch == nil || !strings.Contains(ch.Detail, "not installed") {
		t.Errorf("claude hooks check without settings = %+v", ch)
	}
}
