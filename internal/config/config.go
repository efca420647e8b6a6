// Package config resolves reflect's directories and settings from the
// environment and $REFLECT_STATE_DIR/config.toml. Environment variables win
// over the file; the file wins over defaults. It never creates anything.
//
// It is the one package that reads the environment (ARCHITECTURE §2), and
// only through the LookupFunc its caller passes: the program's edge passes
// os.LookupEnv, tests pass a map (MapLookup), which lets them run in
// parallel. The exceptions run the program as it runs: a child process
// (the hooks' and the drainer's process tests, given an explicit
// environment) or a whole command that reads the process environment (the
// web view's, security's and cmd/reflect's, which set it with t.Setenv and
// so run serially). Other packages get settings as their own options from
// the command layer, never by importing this package.
package config

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
)

// Config is every setting reflect reads. Zero values are never used: Load
// fills defaults.
type Config struct {
	StateDir     string // machine-local state: queue, logs, session files
	LearningsDir string // portable knowledge base: documents/ and index/
	File         string // path of config.toml (may not exist)
	Disabled     bool   // REFLECT_DISABLE=1: hooks are no-ops
	// Agents are the agents' own configuration directories.
	Agents AgentDirs

	Drain  Drain
	Index  Index
	Recall Recall
	Sync   Sync

	// Origin says where each non-default setting came from ("env REFLECT_X",
	// "config.toml"), for `reflect doctor`.
	Origin map[string]string

	// Unknown lists the keys of config.toml that reflect does not read
	// (a misspelt key is otherwise silently ignored).
	Unknown []string
}

// Drain holds the drainer's budgets and writer choice.
type Drain struct {
	Writer      string        `toml:"writer"`
	Command     string        `toml:"command"`
	MaxPerRun   int           `toml:"max_per_run"`
	DailyMax    int           `toml:"daily_max"`
	DailyUSD    float64       `toml:"daily_usd"`
	Timeout     time.Duration `toml:"-"`
	TimeoutText string        `toml:"timeout"`
	MaxAttempts int           `toml:"max_attempts"`
	// Review says whether what the writer drafts awaits 'reflect review'
	// before the hooks inject it; nil (unset) means yes for an LLM writer
	// and no for the builtin one (see ReviewOn).
	Review *bool `toml:"review"`
}

// ReviewOn is drain.review's effective value for the configured writer:
// as set, else on unless the writer is the builtin one (or none, which
// runs the builtin writer).
func (d Drain) ReviewOn() bool {
	if d.Review != nil {
		return *d.Review
	}
	switch strings.ToLower(strings.TrimSpace(d.Writer)) {
	case "", "builtin":
		return false
	}
	return true
}

// Index holds retrieval settings.
type Index struct {
	// Embedder is the vector signal's provider: hash (local, the
	// default), ollama or openai; "none" turns the vector signal off.
	Embedder string `toml:"embedder"`
	// EmbedderModel, EmbedderURL, EmbedderDim and EmbedderKeyEnv configure
	// a remote embedder (and Dim the hash one); empty takes the defaults.
	EmbedderModel  string `toml:"embedder_model"`
	EmbedderURL    string `toml:"embedder_url"`
	EmbedderDim    int    `toml:"embedder_dim"`
	EmbedderKeyEnv string `toml:"embedder_api_key_env"`
	// HalfLifeDays is the recency half-life of ranking (default 180).
	HalfLifeDays int `toml:"half_life_days"`
	// VectorWeight is the vector signal's fusion weight (0: the embedder's
	// default).
	VectorWeight float64 `toml:"vector_weight"`
	// EmbedderKey is the openai key, read from the variable
	// EmbedderKeyEnv names (DefaultAPIKeyEnv when empty). It is held in
	// memory only: never read from nor written to config.toml.
	EmbedderKey string `toml:"-"`
}

// DefaultDailyUSD is drain.daily_usd when nothing sets it: a chosen LLM
// writer spends at most this much a UTC day unless the user sets another
// cap, or 0 ("none") for none.
const DefaultDailyUSD = 1.00

// DefaultAPIKeyEnv is the variable the openai embedder's key is read from
// when index.embedder_api_key_env is not set. It must equal
// embed.DefaultAPIKeyEnv, which names it in errors (a test in cmd/reflect
// checks the two agree; this package may not import the index's).
const DefaultAPIKeyEnv = "OPENAI_API_KEY"

// LookupFunc reads one environment variable, as os.LookupEnv does.
type LookupFunc func(key string) (string, bool)

// MapLookup is a LookupFunc over a fixed set of variables, for tests and
// for child processes given an explicit environment.
func MapLookup(env map[string]string) LookupFunc {
	return func(key string) (string, bool) {
		v, ok := env[key]
		return v, ok
	}
}

// getenv is os.Getenv over lookup: unset and empty are the same.
func (lookup LookupFunc) getenv(key string) string {
	v, _ := lookup(key)
	return v
}

// AgentDirs are where the agents keep their own configuration, as the
// environment says: $HOME, and the variables that relocate each agent's
// directory (empty: not relocated): $CLAUDE_CONFIG_DIR, $CODEX_HOME,
// $GEMINI_CLI_HOME (a replacement $HOME for Gemini CLI), $XDG_CONFIG_HOME
// (OpenCode's parent) and $COPILOT_HOME. agents.Dirs has the same fields.
type AgentDirs struct {
	Home       string
	Claude     string
	Codex      string
	GeminiHome string
	XDGConfig  string
	Copilot    string
}

// ResolveAgentDirs reads the agents' directories from the environment. It
// does not read config.toml, so installing works even when that file is
// broken.
func ResolveAgentDirs(lookup LookupFunc) AgentDirs {
	return AgentDirs{
		Home:       home(lookup),
		Claude:     lookup.getenv("CLAUDE_CONFIG_DIR"),
		Codex:      lookup.getenv("CODEX_HOME"),
		GeminiHome: lookup.getenv("GEMINI_CLI_HOME"),
		XDGConfig:  lookup.getenv("XDG_CONFIG_HOME"),
		Copilot:    lookup.getenv("COPILOT_HOME"),
	}
}

// home is $HOME, or the system's idea of it where HOME is unset.
func home(lookup LookupFunc) string {
	if h := lookup.getenv("HOME"); h != "" {
		return h
	}
	h, _ := os.UserHomeDir()
	return h
}

// Sync holds `reflect sync`'s automatic mode.
type Sync struct {
	// Auto makes the drainer sync after it writes learnings, and
	// SessionStart sync at most every PullInterval; both in a detached
	// background process.
	Auto bool `toml:"auto"`
	// PullInterval is how often SessionStart may start a background sync.
	PullInterval     time.Duration `toml:"-"`
	PullIntervalText string        `toml:"pull_interval"`
}

// Recall holds the budgets of injected context and how readily a prompt
// gets any.
type Recall struct {
	Max   int `toml:"max"`
	Chars int `toml:"chars"`
	// Gate is how readily a prompt gets learnings, one of GateLevels:
	// the false injection the user accepts for more recall.
	Gate string `toml:"gate"`
}

// GateLevels are recall.gate's values, strictest first (recall.Gates; a
// test in cmd/reflect keeps the two lists equal).
var GateLevels = []string{"strict", "balanced", "eager"}

// errGateLevel says what recall.gate takes.
var errGateLevel = errors.New("want strict, balanced or eager")

// gateLevel is v as one of GateLevels, in any case and spacing, and
// whether it is one.
func gateLevel(v string) (string, bool) {
	v = strings.ToLower(strings.TrimSpace(v))
	return v, slices.Contains(GateLevels, v)
}

type fileConfig struct {
	Paths struct {
		LearningsDir string `toml:"learnings_dir"`
	} `toml:"paths"`
	Drain  Drain  `toml:"drain"`
	Index  Index  `toml:"index"`
	Recall Recall `toml:"recall"`
	Sync   Sync   `toml:"sync"`
}

// Load resolves the configuration from the environment lookup reads
// (os.LookupEnv at the program's edge) and config.toml. A config.toml that
// cannot be parsed is an error that names the file, so the user can fix it.
func Load(lookup LookupFunc) (*Config, error) {
	c := &Config{
		Drain: Drain{MaxPerRun: 3, DailyMax: 20, DailyUSD: DefaultDailyUSD, Timeout: 300 * time.Second, MaxAttempts: 3},
		// The index's own default (index.DefaultHalfLife), stated here
		// so that 'config list' shows what is in force; cmd/reflect's
		// TestConfigIndexDefaultsAgree keeps the two in step.
		Index:  Index{Embedder: "hash", HalfLifeDays: 180},
		Recall: Recall{Max: 3, Chars: 1500, Gate: "strict"},
		Sync:   Sync{PullInterval: 15 * time.Minute},
		Origin: map[string]string{},
	}
	c.Agents = ResolveAgentDirs(lookup)
	home := c.Agents.Home
	c.StateDir = filepath.Join(home, ".reflect")
	if v := lookup.getenv("REFLECT_STATE_DIR"); v != "" {
		c.StateDir = v
		c.Origin["state_dir"] = "env REFLECT_STATE_DIR"
	}
	c.StateDir = expandHome(c.StateDir, home)
	c.LearningsDir = filepath.Join(home, ".learnings")
	c.File = filepath.Join(c.StateDir, "config.toml")

	var fc fileConfig
	if md, err := toml.DecodeFile(c.File, &fc); err != nil {
		var pe *fs.PathError
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case errors.As(err, &pe):
			// The file cannot be opened: name it once, not in the
			// message and again in the wrapped open error.
			return nil, fmt.Errorf("read %s: %v", c.File, pe.Err)
		default:
			return nil, fmt.Errorf("read %s: %s (fix or remove the file)", c.File, strings.TrimPrefix(err.Error(), "toml: "))
		}
	} else {
		c.applyFile(&fc, md)
		c.Unknown = unknownKeys(md.Undecoded())
	}
	if err := c.applyEnv(lookup); err != nil {
		return nil, err
	}
	if gate, ok := gateLevel(c.Recall.Gate); ok {
		c.Recall.Gate = gate
	} else if c.Origin["recall.gate"] == "config.toml" {
		return nil, fmt.Errorf("read %s: recall.gate = %q: %v", c.File, c.Recall.Gate, errGateLevel)
	} else {
		return nil, fmt.Errorf("REFLECT_RECALL_GATE=%q: %v", c.Recall.Gate, errGateLevel)
	}
	c.LearningsDir = expandHome(c.LearningsDir, home)
	c.Disabled = lookup.getenv("REFLECT_DISABLE") == "1"
	keyEnv := c.Index.EmbedderKeyEnv
	if keyEnv == "" {
		keyEnv = DefaultAPIKeyEnv
	}
	c.Index.EmbedderKey = strings.TrimSpace(lookup.getenv(keyEnv))
	return c, nil
}

func (c *Config) applyFile(fc *fileConfig, md toml.MetaData) {
	const src = "config.toml"
	setStr := func(key string, dst *string, v string) {
		if v != "" {
			*dst = v
			c.Origin[key] = src
		}
	}
	setInt := func(key string, dst *int, v int) {
		if v != 0 {
			*dst = v
			c.Origin[key] = src
		}
	}
	setStr("learnings_dir", &c.LearningsDir, fc.Paths.LearningsDir)
	setStr("drain.writer", &c.Drain.Writer, fc.Drain.Writer)
	setStr("drain.command", &c.Drain.Command, fc.Drain.Command)
	setInt("drain.max_per_run", &c.Drain.MaxPerRun, fc.Drain.MaxPerRun)
	setInt("drain.daily_max", &c.Drain.DailyMax, fc.Drain.DailyMax)
	setInt("drain.max_attempts", &c.Drain.MaxAttempts, fc.Drain.MaxAttempts)
	// daily_usd = 0 is "no cap", so its presence counts, not its value.
	if md.IsDefined("drain", "daily_usd") {
		c.Drain.DailyUSD = fc.Drain.DailyUSD
		c.Origin["drain.daily_usd"] = src
	}
	if d, err := parseDuration(fc.Drain.TimeoutText); err == nil && d > 0 {
		c.Drain.Timeout = d
		c.Origin["drain.timeout"] = src
	}
	if fc.Drain.Review != nil {
		c.Drain.Review = fc.Drain.Review
		c.Origin["drain.review"] = src
	}
	setStr("index.embedder", &c.Index.Embedder, fc.Index.Embedder)
	setStr("index.embedder_model", &c.Index.EmbedderModel, fc.Index.EmbedderModel)
	setStr("index.embedder_url", &c.Index.EmbedderURL, fc.Index.EmbedderURL)
	setInt("index.embedder_dim", &c.Index.EmbedderDim, fc.Index.EmbedderDim)
	setStr("index.embedder_api_key_env", &c.Index.EmbedderKeyEnv, fc.Index.EmbedderKeyEnv)
	setInt("index.half_life_days", &c.Index.HalfLifeDays, fc.Index.HalfLifeDays)
	if fc.Index.VectorWeight > 0 {
		c.Index.VectorWeight = fc.Index.VectorWeight
		c.Origin["index.vector_weight"] = src
	}
	setInt("recall.max", &c.Recall.Max, fc.Recall.Max)
	setInt("recall.chars", &c.Recall.Chars, fc.Recall.Chars)
	setStr("recall.gate", &c.Recall.Gate, fc.Recall.Gate)
	if fc.Sync.Auto {
		c.Sync.Auto = true
		c.Origin["sync.auto"] = src
	}
	if d, err := parseDuration(fc.Sync.PullIntervalText); err == nil && d > 0 {
		c.Sync.PullInterval = d
		c.Origin["sync.pull_interval"] = src
	}
}

func (c *Config) applyEnv(lookup LookupFunc) error {
	str := func(env, key string, dst *string) {
		if v := lookup.getenv(env); v != "" {
			*dst = v
			c.Origin[key] = "env " + env
		}
	}
	num := func(env, key string, dst *int) error {
		v := lookup.getenv(env)
		if v == "" {
			return nil
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return fmt.Errorf("%s=%q: want a non-negative whole number", env, v)
		}
		*dst = n
		c.Origin[key] = "env " + env
		return nil
	}
	str("REFLECT_LEARNINGS_DIR", "learnings_dir", &c.LearningsDir)
	str("REFLECT_WRITER", "drain.writer", &c.Drain.Writer)
	str("REFLECT_WRITER_COMMAND", "drain.command", &c.Drain.Command)
	str("REFLECT_EMBEDDER", "index.embedder", &c.Index.Embedder)
	str("REFLECT_RECALL_GATE", "recall.gate", &c.Recall.Gate)
	for _, n := range []struct {
		env, key string
		dst      *int
	}{
		{"REFLECT_DRAIN_MAX_PER_RUN", "drain.max_per_run", &c.Drain.MaxPerRun},
		{"REFLECT_DRAIN_DAILY_MAX", "drain.daily_max", &c.Drain.DailyMax},
		{"REFLECT_DRAIN_MAX_ATTEMPTS", "drain.max_attempts", &c.Drain.MaxAttempts},
		{"REFLECT_RECALL_MAX", "recall.max", &c.Recall.Max},
		{"REFLECT_RECALL_CHARS", "recall.chars", &c.Recall.Chars},
		{"REFLECT_HALF_LIFE_DAYS", "index.half_life_days", &c.Index.HalfLifeDays},
	} {
		if err := num(n.env, n.key, n.dst); err != nil {
			return err
		}
	}
	if v := lookup.getenv("REFLECT_DRAIN_DAILY_USD"); v != "" {
		f, err := ParseUSD(v)
		if err != nil {
			return fmt.Errorf("REFLECT_DRAIN_DAILY_USD=%q is %v", v, err)
		}
		c.Drain.DailyUSD = f
		c.Origin["drain.daily_usd"] = "env REFLECT_DRAIN_DAILY_USD"
	}
	if v := lookup.getenv("REFLECT_DRAIN_REVIEW"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return fmt.Errorf("REFLECT_DRAIN_REVIEW=%q: want true or false", v)
		}
		c.Drain.Review = &b
		c.Origin["drain.review"] = "env REFLECT_DRAIN_REVIEW"
	}
	if v := lookup.getenv("REFLECT_DRAIN_TIMEOUT"); v != "" {
		d, err := parseDuration(v)
		if err != nil || d <= 0 {
			return fmt.Errorf("REFLECT_DRAIN_TIMEOUT=%q: want a duration such as 300s or 5m", v)
		}
		c.Drain.Timeout = d
		c.Origin["drain.timeout"] = "env REFLECT_DRAIN_TIMEOUT"
	}
	return nil
}

// ParseUSD reads a daily spend cap: a non-negative number of dollars, or
// "none" (the same as 0) for no cap.
func ParseUSD(v string) (float64, error) {
	v = strings.TrimSpace(v)
	if strings.EqualFold(v, "none") {
		return 0, nil
	}
	f, err := strconv.ParseFloat(strings.TrimPrefix(v, "$"), 64)
	if err != nil || f < 0 || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, errors.New(`not a non-negative number of dollars such as 1.50, or "none" (0) for no cap`)
	}
	return f, nil
}

// parseDuration accepts Go durations ("90s", "5m") and bare seconds ("300").
func parseDuration(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, errors.New("empty duration")
	}
	if n, err := strconv.Atoi(s); err == nil {
		return time.Duration(n) * time.Second, nil
	}
	return time.ParseDuration(s)
}

func expandHome(p, home string) string {
	if p == "~" {
		return home
	}
	if strings.HasPrefix(p, "~/") {
		return filepath.Join(home, p[2:])
	}
	return p
}

// DocumentsDir is where learning documents and sidecars live.
func (c *Config) DocumentsDir() string { return filepath.Join(c.LearningsDir, "documents") }

// IndexDir holds derived data that can always be rebuilt from DocumentsDir.
func (c *Config) IndexDir() string { return filepath.Join(c.LearningsDir, "index") }
