package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSetKeepsOtherLinesAndLoads(t *testing.T) {
	t.Parallel()
	home, env := setHome(t)
	path := filepath.Join(home, ".reflect", "config.toml")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	orig := "# my settings\n[drain]\nwriter = \"codex\" # the cheap one\nmax_per_run = 5\n\n[recall]\nmax = 2\n"
	if err := os.WriteFile(path, []byte(orig), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, kv := range [][2]string{
		{"drain.writer", "claude"}, // replaced in place
		{"drain.daily_usd", "1.5"}, // added to its table
		{"index.embedder", "none"}, // a new table
		{"learnings_dir", "~/kb"},  // [paths]
		{"drain.timeout", "5m"},    // a duration, as text
		{"recall.chars", "900"},    // after a blank line
	} {
		if err := Set(path, kv[0], kv[1]); err != nil {
			t.Fatalf("Set(%s, %s): %v", kv[0], kv[1], err)
		}
	}
	data, _ := os.ReadFile(path)
	for _, want := range []string{"# my settings\n[drain]\nwriter = \"claude\"\nmax_per_run = 5\ndaily_usd = 1.5\ntimeout = \"5m\"\n", "[recall]\nmax = 2\nchars = 900\n", "[index]\nembedder = \"none\"\n", "[paths]\nlearnings_dir = \"~/kb\"\n"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("config.toml lacks %q:\n%s", want, data)
		}
	}
	c, err := Load(MapLookup(env))
	if err != nil {
		t.Fatal(err)
	}
	if c.Drain.Writer != "claude" || c.Drain.DailyUSD != 1.5 || c.Index.Embedder != "none" || c.Drain.MaxPerRun != 5 ||
		c.LearningsDir != filepath.Join(home, "kb") || c.Recall.Chars != 900 || c.Recall.Max != 2 || len(c.Unknown) != 0 {
		t.Errorf("loaded %+v", c)
	}
	s, err := c.Get("drain.writer")
	if err != nil || s.Value != "claude" || s.Source != "config.toml" {
		t.Errorf("Get(drain.writer) = %+v, %v", s, err)
	}
	env["REFLECT_WRITER"] = "builtin"
	c, _ = Load(MapLookup(env))
	if s, _ := c.Get("drain.writer"); s.Value != "builtin" || s.Source != "env REFLECT_WRITER" {
		t.Errorf("env: Get(drain.writer) = %+v", s)
	}
	if s, _ := c.Get("recall.max"); s.Source != "config.toml" {
		t.Errorf("Get(recall.max) = %+v", s)
	}
	if s, _ := c.Get("index.half_life_days"); s.Source != "default" {
		t.Errorf("Get(index.half_life_days) = %+v", s)
	}
}

func TestSetRefusesBadKeysAndValues(t *testing.T) {
	t.Parallel()
	home, env := setHome(t)
	path := filepath.Join(home, "config.toml")
	for _, tc := range []struct{ key, value, want string }{
		{"drain.writr", "x", "did you mean drain.writer?"},
		{"writer", "x", "did you mean drain.writer?"},
		{"recall.max", "many", "not a non-negative whole number"},
		{"drain.daily_usd", "-1", "not a non-negative number"},
		{"drain.timeout", "soon", "not a duration"},
		{"drain.command", "a\nb", "control characters"},
	} {
		err := Set(path, tc.key, tc.value)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Set(%s, %q) = %v, want %q", tc.key, tc.value, err, tc.want)
		}
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused Set wrote the file: %v", err)
	}
	c, _ := Load(MapLookup(env))
	if _, err := c.Get("nope"); !errors.Is(err, ErrUnknownKey) {
		t.Errorf("Get(nope) = %v", err)
	}
}

func TestUnknownKeysAreListed(t *testing.T) {
	t.Parallel()
	home, env := setHome(t)
	path := filepath.Join(home, ".reflect", "config.toml")
	_ = os.MkdirAll(filepath.Dir(path), 0o700)
	if err := os.WriteFile(path, []byte("[drain]\nwritr = \"claude\"\n[recal]\nmax = 2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := Load(MapLookup(env))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(c.Unknown, ",") != "drain.writr,recal.max" {
		t.Errorf("Unknown = %q", c.Unknown)
	}
}

// An unreadable config.toml is named once, with the reason.
func TestLoadErrorNamesTheFileOnce(t *testing.T) {
	t.Parallel()
	home, env := setHome(t)
	notDir := filepath.Join(home, "f")
	if err := os.WriteFile(notDir, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	env["REFLECT_STATE_DIR"] = notDir
	_, err := Load(MapLookup(env))
	if err == nil {
		t.Fatal("Load succeeded with a state dir that is a file")
	}
	path := filepath.Join(notDir, "config.toml")
	if msg := err.Error(); strings.Count(msg, path) != 1 || !strings.Contains(msg, "not a directory") {
		t.Errorf("error %q: want %s once and the reason", msg, path)
	}
}
