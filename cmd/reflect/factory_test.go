package main

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/reflectkb/reflect/index"
	"github.com/reflectkb/reflect/index/embed"
	"github.com/reflectkb/reflect/internal/config"
	"github.com/reflectkb/reflect/queue"
	"github.com/reflectkb/reflect/recall"
)

// A change that reached the disk but not the index (another process's
// update outlasted the wait) is reported on stderr and is not a failure;
// any other error stays an error and prints nothing.
func TestNotIndexedYet(t *testing.T) {
	t.Parallel()
	var stderr bytes.Buffer
	f := &Factory{IO: &Streams{Err: &stderr}}
	busy := fmt.Errorf("%w (index/update.lock held for over 1m0s)", index.ErrBusy)
	if err := f.notIndexedYet(busy, "saved /kb/documents/lrn-x.md, not indexed yet"); err != nil {
		t.Fatalf("notIndexedYet(ErrBusy) = %v, want nil", err)
	}
	want := "reflect: saved /kb/documents/lrn-x.md, not indexed yet: another process is updating the index " +
		"(index/update.lock held for over 1m0s); the next search or 'reflect reindex' catches up\n"
	if got := stderr.String(); got != want {
		t.Errorf("stderr = %q\nwant     %q", got, want)
	}

	stderr.Reset()
	other := errors.New("disk full")
	if err := f.notIndexedYet(other, "saved x"); err != other {
		t.Errorf("notIndexedYet(other) = %v, want it back", err)
	}
	if stderr.Len() != 0 {
		t.Errorf("stderr for another error: %q", stderr.String())
	}
}

// The exit codes are documented (README, docs/cli.md): 0 success, 1
// failure, 2 usage, and 75 when another process held a lock too long, the
// one status a script should retry on, however deeply the error is wrapped.
func TestExitCode(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		err  error
		want int
	}{
		{"success", nil, 0},
		{"failure", errors.New("boom"), 1},
		{"usage", usagef("unknown flag %q", "--x"), 2},
		{"index busy", fmt.Errorf("reindex: %w", fmt.Errorf("%w (index/update.lock held for over 1m0s)", index.ErrBusy)), exitBusy},
		{"queue locked", fmt.Errorf("drop: %w", queue.ErrLocked), exitBusy},
		{"not found is not busy", fmt.Errorf("x: %w", queue.ErrNotFound), 1},
	} {
		if got := exitCode(c.err); got != c.want {
			t.Errorf("%s: exitCode(%v) = %d, want %d", c.name, c.err, got, c.want)
		}
	}
	if exitBusy != 75 {
		t.Errorf("exitBusy = %d, want 75 (EX_TEMPFAIL), as documented", exitBusy)
	}
}

// internal/config reads the openai key from the variable embed names in
// its errors when none is configured; the two packages may not import each
// other, so this test keeps the one default in step.
func TestAPIKeyEnvDefaultsAgree(t *testing.T) {
	t.Parallel()
	if config.DefaultAPIKeyEnv != embed.DefaultAPIKeyEnv {
		t.Fatalf("config reads the key from %s, embed names %s", config.DefaultAPIKeyEnv, embed.DefaultAPIKeyEnv)
	}
}

// The key config read reaches the openai embedder through index.Settings;
// without one the error names the variable to set.
func TestOpenAIKeyReachesTheEmbedder(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	env := map[string]string{"HOME": home, "REFLECT_EMBEDDER": "openai", "REFLECT_STATE_DIR": filepath.Join(home, "st")}
	c, err := config.Load(config.MapLookup(env))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := index.SettingsOptions(index.Settings(c.Index), false); err == nil || !strings.Contains(err.Error(), "OPENAI_API_KEY is not set") {
		t.Fatalf("without a key: %v", err)
	}
	env["OPENAI_API_KEY"] = "sk-test"
	if c, err = config.Load(config.MapLookup(env)); err != nil {
		t.Fatal(err)
	}
	if _, err := index.SettingsOptions(index.Settings(c.Index), false); err != nil {
		t.Fatalf("with a key: %v", err)
	}
}

// The defaults config states for the index (so that 'config list' shows
// them) are the index's own.
func TestConfigIndexDefaultsAgree(t *testing.T) {
	t.Parallel()
	c, err := config.Load(config.MapLookup(map[string]string{"HOME": t.TempDir(), "REFLECT_STATE_DIR": t.TempDir()}))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := time.Duration(c.Index.HalfLifeDays)*24*time.Hour, index.DefaultHalfLife; got != want {
		t.Errorf("config's half_life_days default is %v, the index's %v", got, want)
	}
}

// The levels config accepts for recall.gate are the recall gate's.
func TestConfigGateLevelsAgree(t *testing.T) {
	t.Parallel()
	var gates []string
	for _, g := range recall.Gates {
		gates = append(gates, string(g))
	}
	if !slices.Equal(gates, config.GateLevels) {
		t.Errorf("config.GateLevels = %v, recall.Gates = %v", config.GateLevels, gates)
	}
	for _, level := range config.GateLevels {
		if _, err := recall.ParseGate(level); err != nil {
			t.Errorf("recall.ParseGate(%q): %v", level, err)
		}
	}
}

// `reflect recall` runs at the gate level the configuration sets
// (recall.gate), as the prompt hook does.
func TestRecallCommandUsesConfiguredGate(t *testing.T) {
	t.Parallel()
	for level, want := range map[string]recall.Gate{"strict": recall.GateStrict, "balanced": recall.GateBalanced} {
		c := &config.Config{Recall: config.Recall{Gate: level}}
		if got := recallRequest(c, &RecallOptions{Prompt: "p"}).Gate; got != want {
			t.Errorf("recall.gate %s: the command's request has gate %q, want %q", level, got, want)
		}
	}
}
