package config

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// setHome gives a test its own home directory and an environment that
// holds only HOME: Load reads nothing else of the process's.
func setHome(t *testing.T) (string, map[string]string) {
	t.Helper()
	home := t.TempDir()
	return home, map[string]string{"HOME": home}
}

func TestDefaults(t *testing.T) {
	t.Parallel()
	home, env := setHome(t)
	c, err := Load(MapLookup(env))
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
	t.Parallel()
	home, env := setHome(t)
	state := filepath.Join(home, "st")
	env["REFLECT_STATE_DIR"] = state
	if err := os.MkdirAll(state, 0o700); err != nil {
		t.Fatal(err)
	}
	toml := "[paths]\nlearnings_dir = \"~/kb\"\n[recall]\nmax = 5\nchars = 900\n[drain]\nwriter = \"builtin\"\ntimeout = \"90s\"\ndaily_usd = 1.5\n"
	if err := os.WriteFile(filepath.Join(state, "config.toml"), []byte(toml), 0o600); err != nil {
		t.Fatal(err)
	}
	env["REFLECT_RECALL_MAX"] = "2"
	env["REFLECT_DISABLE"] = "1"
	c, err := Load(MapLookup(env))
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

// TestDailyUSDCap: a chosen LLM writer is capped at DefaultDailyUSD a day
// unless told otherwise (on the old code the default was no cap), and 0 or
// "none" in config.toml or the environment still sets no cap.
func TestDailyUSDCap(t *testing.T) {
	t.Parallel()
	_, env := setHome(t)
	c, err := Load(MapLookup(env))
	if err != nil {
		t.Fatal(err)
	}
	if c.Drain.DailyUSD != DefaultDailyUSD || DefaultDailyUSD <= 0 {
		t.Errorf("default daily_usd = %v, want the positive DefaultDailyUSD %v", c.Drain.DailyUSD, DefaultDailyUSD)
	}
	if s, _ := c.Get("drain.daily_usd"); s.Source != "default" || s.Value != "1" {
		t.Errorf("Get(drain.daily_usd) = %+v, want 1 from the default", s)
	}
	for _, v := range []string{"0", "none", "NONE"} {
		_, env := setHome(t)
		env["REFLECT_DRAIN_DAILY_USD"] = v
		if c, err := Load(MapLookup(env)); err != nil || c.Drain.DailyUSD != 0 {
			t.Errorf("REFLECT_DRAIN_DAILY_USD=%s: daily_usd %v, %v; want 0 (no cap)", v, c.Drain.DailyUSD, err)
		}
	}
	for _, v := range []string{"0", "none"} {
		home, env := setHome(t)
		path := filepath.Join(home, ".reflect", "config.toml")
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := Set(path, "drain.daily_usd", v); err != nil {
			t.Fatalf("Set daily_usd %s: %v", v, err)
		}
		c, err := Load(MapLookup(env))
		if err != nil || c.Drain.DailyUSD != 0 || c.Origin["drain.daily_usd"] != "config.toml" {
			t.Errorf("daily_usd = %s in config.toml: %v from %q, %v; want 0 (no cap) from config.toml", v, c.Drain.DailyUSD, c.Origin["drain.daily_usd"], err)
		}
	}
}

func TestBadValues(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ env, value, want string }{
		{"REFLECT_RECALL_MAX", "three", "REFLECT_RECALL_MAX"},
		{"REFLECT_DRAIN_TIMEOUT", "soon", "REFLECT_DRAIN_TIMEOUT"},
		{"REFLECT_DRAIN_DAILY_USD", "-1", "REFLECT_DRAIN_DAILY_USD"},
	} {
		_, env := setHome(t)
		env[tc.env] = tc.value
		if _, err := Load(MapLookup(env)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s=%s: err = %v", tc.env, tc.value, err)
		}
	}
	home, env := setHome(t)
	if err := os.MkdirAll(filepath.Join(home, ".reflect"), 0o700); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(home, ".reflect", "config.toml")
	if err := os.WriteFile(bad, []byte("[recall\nmax = 2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(MapLookup(env)); err == nil || !strings.Contains(err.Error(), bad) {
		t.Errorf("broken config.toml: err = %v, want it to name the file", err)
	}
}

// The openai key is read from the variable index.embedder_api_key_env
// names, OPENAI_API_KEY by default, trimmed; config.toml cannot hold it.
func TestEmbedderKey(t *testing.T) {
	t.Parallel()
	home, env := setHome(t)
	env["OPENAI_API_KEY"] = " sk-default\n"
	c, err := Load(MapLookup(env))
	if err != nil {
		t.Fatal(err)
	}
	if c.Index.EmbedderKey != "sk-default" {
		t.Errorf("EmbedderKey = %q, want the trimmed OPENAI_API_KEY", c.Index.EmbedderKey)
	}
	state := filepath.Join(home, ".reflect")
	if err := os.MkdirAll(state, 0o700); err != nil {
		t.Fatal(err)
	}
	toml := "[index]\nembedder_api_key_env = \"MY_KEY\"\nembedder_key = \"sk-file\"\n"
	if err := os.WriteFile(filepath.Join(state, "config.toml"), []byte(toml), 0o600); err != nil {
		t.Fatal(err)
	}
	env["MY_KEY"] = "sk-mine"
	if c, err = Load(MapLookup(env)); err != nil {
		t.Fatal(err)
	}
	if c.Index.EmbedderKey != "sk-mine" || strings.Join(c.Unknown, ",") != "index.embedder_key" {
		t.Errorf("EmbedderKey = %q, Unknown = %q; want sk-mine from MY_KEY and the file's key ignored", c.Index.EmbedderKey, c.Unknown)
	}
}

// The agents' directories come from HOME, CLAUDE_CONFIG_DIR and
// CODEX_HOME, and need no readable config.toml.
func TestAgentDirs(t *testing.T) {
	t.Parallel()
	env := map[string]string{"HOME": "/h", "CLAUDE_CONFIG_DIR": "/c", "CODEX_HOME": "/x"}
	if got := ResolveAgentDirs(MapLookup(env)); got != (AgentDirs{Home: "/h", Claude: "/c", Codex: "/x"}) {
		t.Errorf("ResolveAgentDirs = %+v", got)
	}
	home, env := setHome(t)
	if err := os.MkdirAll(filepath.Join(home, ".reflect"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".reflect", "config.toml"), []byte("[broken"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := ResolveAgentDirs(MapLookup(env)); got != (AgentDirs{Home: home}) {
		t.Errorf("ResolveAgentDirs = %+v, want only Home %s", got, home)
	}
}

// drain.review follows the writer until set: on for an LLM writer, off
// for the builtin one (or none chosen); config.toml and the environment
// set it either way, and Get names where the value came from.
func TestDrainReview(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		writer, file, env string
		want              bool
		source            string
	}{
		{"", "", "", false, "default (true for an LLM writer)"},
		{"builtin", "", "", false, "default (true for an LLM writer)"},
		{"claude", "", "", true, "default (true for an LLM writer)"},
		{"codex", "false", "", false, "config.toml"},
		{"builtin", "true", "", true, "config.toml"},
		{"builtin", "false", "1", true, "env REFLECT_DRAIN_REVIEW"},
		{"claude", "", "false", false, "env REFLECT_DRAIN_REVIEW"},
	} {
		home, env := setHome(t)
		env["REFLECT_WRITER"], env["REFLECT_DRAIN_REVIEW"] = tc.writer, tc.env
		if tc.file != "" {
			path := filepath.Join(home, ".reflect", "config.toml")
			if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := Set(path, "drain.review", tc.file); err != nil {
				t.Fatal(err)
			}
		}
		c, err := Load(MapLookup(env))
		if err != nil {
			t.Fatal(err)
		}
		s, err := c.Get("drain.review")
		if err != nil || c.Drain.ReviewOn() != tc.want || s.Value != strconv.FormatBool(tc.want) || s.Source != tc.source {
			t.Errorf("%+v: ReviewOn %v, Get %+v (%v); want %v from %q", tc, c.Drain.ReviewOn(), s, err, tc.want, tc.source)
		}
	}
	_, env := setHome(t)
	env["REFLECT_DRAIN_REVIEW"] = "maybe"
	if _, err := Load(MapLookup(env)); err == nil || !strings.Contains(err.Error(), "REFLECT_DRAIN_REVIEW") {
		t.Errorf("REFLECT_DRAIN_REVIEW=maybe: %v, want an error naming it", err)
	}
}

// TestRecallGate: recall.gate is strict by default, set by config.toml or
// REFLECT_RECALL_GATE (which wins) in any case, and a level that does not
// exist is an error that names where it came from and the levels, rather
// than a gate silently left strict.
func TestRecallGate(t *testing.T) {
	t.Parallel()
	_, env := setHome(t)
	if c, err := Load(MapLookup(env)); err != nil || c.Recall.Gate != "strict" {
		t.Fatalf("default recall.gate = %q, %v; want strict", c.Recall.Gate, err)
	}
	home, env := setHome(t)
	path := filepath.Join(home, ".reflect", "config.toml")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := Set(path, "recall.gate", "Balanced"); err != nil {
		t.Fatal(err)
	}
	c, err := Load(MapLookup(env))
	if err != nil || c.Recall.Gate != "balanced" || c.Origin["recall.gate"] != "config.toml" {
		t.Errorf("recall.gate set to Balanced: %q from %q, %v; want balanced from config.toml", c.Recall.Gate, c.Origin["recall.gate"], err)
	}
	if s, err := c.Get("recall.gate"); err != nil || s.Value != "balanced" {
		t.Errorf("Get(recall.gate) = %+v, %v", s, err)
	}
	env["REFLECT_RECALL_GATE"] = "EAGER"
	if c, err := Load(MapLookup(env)); err != nil || c.Recall.Gate != "eager" || c.Origin["recall.gate"] != "env REFLECT_RECALL_GATE" {
		t.Errorf("REFLECT_RECALL_GATE=EAGER: %q, %v; want eager from the environment", c.Recall.Gate, err)
	}
	env["REFLECT_RECALL_GATE"] = "loud"
	if _, err := Load(MapLookup(env)); err == nil || !strings.Contains(err.Error(), `REFLECT_RECALL_GATE="loud"`) || !strings.Contains(err.Error(), "strict, balanced or eager") {
		t.Errorf("REFLECT_RECALL_GATE=loud: err = %v", err)
	}
	delete(env, "REFLECT_RECALL_GATE")
	if err := os.WriteFile(path, []byte("[recall]\ngate = \"loud\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(MapLookup(env)); err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "strict, balanced or eager") {
		t.Errorf("gate = \"loud\" in config.toml: err = %v, want it to name the file and the levels", err)
	}
	if err := Set(path, "recall.gate", "loud"); err == nil || !strings.Contains(err.Error(), "not a gate level") {
		t.Errorf("Set(recall.gate, loud) = %v", err)
	}
}
