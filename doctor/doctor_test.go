package doctor

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reflectkb/reflect/agents"
	"github.com/reflectkb/reflect/index"
	"github.com/reflectkb/reflect/internal/config"
	"github.com/reflectkb/reflect/internal/testfs"
	"github.com/reflectkb/reflect/store"
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
	t.Setenv("PATH", t.TempDir()) // no claude or codex: the writer check stays quiet
	c := &config.Config{StateDir: filepath.Join(home, "state"), LearningsDir: filepath.Join(home, "kb"),
		File: filepath.Join(home, "state", "config.toml"), Origin: map[string]string{}, Agents: config.AgentDirs{Home: home}}
	c.Drain.Writer = "builtin"

	installed, err := os.ReadFile(filepath.Join("..", "agents", "testdata", "claude", "missing.installed.json"))
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

	// Entries written by an older reflect (before GOMAXPROCS=1) or by a
	// binary that has moved: doctor says to reinstall.
	prev := installBinary
	installBinary = "/opt/reflect/bin/reflect" // the path in the installed fixture
	defer func() { installBinary = prev }()
	r = Run(context.Background(), c)
	if ch := checkNamed(r, "claude hooks"); ch == nil || ch.Status != OK {
		t.Errorf("claude hooks check of a current install = %+v", ch)
	}
	old := strings.ReplaceAll(string(installed), "GOMAXPROCS=1 ", "")
	if err := os.WriteFile(settings, []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	r = Run(context.Background(), c)
	if ch := checkNamed(r, "claude hooks"); ch == nil || ch.Status != Warn ||
		!strings.Contains(ch.Detail, "9 written by another reflect") || ch.Fix != "run 'reflect install claude' to update them" {
		t.Errorf("claude hooks check of an older install = %+v", ch)
	}
	if got, _ := os.ReadFile(settings); string(got) != old {
		t.Error("doctor changed settings.json")
	}

	os.Remove(settings)
	r = Run(context.Background(), c)
	if ch := checkNamed(r, "claude hooks"); ch == nil || !strings.Contains(ch.Detail, "not installed") {
		t.Errorf("claude hooks check without settings = %+v", ch)
	}
}

// The vectors check names the embedder and the vector search the last
// reindex chose, and asks for a reindex only when learnings exist but no
// reindex has made that choice.
func TestVectorsCheck(t *testing.T) {
	home := t.TempDir()
	t.Setenv("PATH", t.TempDir())
	newConfig := func(embedder string) *config.Config {
		c := &config.Config{StateDir: filepath.Join(home, "state"), LearningsDir: filepath.Join(home, "kb"),
			File: filepath.Join(home, "state", "config.toml"), Origin: map[string]string{}, Agents: config.AgentDirs{Home: home}}
		c.Drain.Writer = "builtin"
		c.Index.Embedder = embedder
		return c
	}
	vectors := func(c *config.Config) *Check {
		t.Helper()
		r := Run(context.Background(), c)
		ch := checkNamed(r, "vectors")
		if ch == nil {
			t.Fatalf("no vectors check in %+v", r.Checks)
		}
		return ch
	}
	c := newConfig("")

	if ch := vectors(c); ch.Status != OK || ch.Detail != "hash: no vectors yet" {
		t.Errorf("empty KB: %+v", ch)
	}

	st := store.Open(c.DocumentsDir())
	for _, id := range []string{"lrn-a", "lrn-b"} {
		l := &store.Learning{ID: id, Title: "Title of " + id, Confidence: "high", Created: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
		if err := st.Write(l); err != nil {
			t.Fatal(err)
		}
	}
	// Run opens and refreshes the index, which embeds the learnings.
	r := Run(context.Background(), c)
	if ch := checkNamed(r, "vectors"); ch == nil || ch.Status != OK || ch.Detail != "hash, 2 vectors, searched by exact scan" {
		t.Errorf("after a refresh: %+v", ch)
	}
	if r.Vectors != 2 {
		t.Errorf("report vectors = %d, want 2", r.Vectors)
	}

	if ch := vectors(newConfig(index.NoEmbedder)); ch.Status != OK || !strings.HasPrefix(ch.Detail, "none: ") {
		t.Errorf("embedder none: %+v", ch)
	}
}

func TestThousands(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 50000: "50,000", 1234567: "1,234,567"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
}

// Doctor says, per reflect entry, whether Codex will run it: untrusted,
// trusted, or trusted for an older definition, with the fix.
func TestCodexTrustCheck(t *testing.T) {
	home := t.TempDir()
	t.Setenv("PATH", t.TempDir())
	c := &config.Config{StateDir: filepath.Join(home, "state"), LearningsDir: filepath.Join(home, "kb"),
		File: filepath.Join(home, "state", "config.toml"), Origin: map[string]string{}, Agents: config.AgentDirs{Home: home}}
	c.Drain.Writer = "builtin"
	prev := installBinary
	installBinary = "/opt/reflect/bin/reflect"
	defer func() { installBinary = prev }()

	hooksPath := filepath.Join(home, ".codex", "hooks.json")
	if _, err := agents.Install(agents.InstallOptions{Agent: "codex", Binary: installBinary, Dirs: agents.Dirs(c.Agents)}); err != nil {
		t.Fatal(err)
	}
	r := Run(context.Background(), c)
	for _, ev := range []string{"session-start", "prompt", "post-tool", "pre-compact", "stop", "session-end"} {
		ch := checkNamed(r, "codex "+ev)
		if ch == nil || ch.Status != Warn || !strings.Contains(ch.Detail, "not trusted") || !strings.Contains(ch.Fix, "/hooks") {
			t.Errorf("untrusted %s: %+v", ev, ch)
		}
	}

	trust, err := agents.CodexTrust(hooksPath)
	if err != nil {
		t.Fatal(err)
	}
	var cfg strings.Builder
	for _, h := range trust {
		hash := h.CurrentHash
		if h.Event == "Stop" {
			hash = "sha256:an-older-definition"
		}
		cfg.WriteString("[hooks.state.\"" + h.Key + "\"]\ntrusted_hash = \"" + hash + "\"\n")
	}
	if err := os.WriteFile(filepath.Join(home, ".codex", "config.toml"), []byte(cfg.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	r = Run(context.Background(), c)
	if ch := checkNamed(r, "codex session-start"); ch == nil || ch.Status != OK || ch.Detail != "SessionStart trusted: Codex runs it" {
		t.Errorf("trusted SessionStart: %+v", ch)
	}
	if ch := checkNamed(r, "codex stop"); ch == nil || ch.Status != Warn || !strings.Contains(ch.Detail, "older definition") {
		t.Errorf("Stop trusted for an older definition: %+v", ch)
	}
	if !r.Healthy() {
		t.Error("untrusted hooks made the report unhealthy; they are a warning")
	}
}

// A SQLite without FTS5 (a reflect built without -tags sqlite_fts5) cannot
// be fixed by a reindex: doctor must say to rebuild the binary, whether the
// error is index.ErrNoFTS5 from Open or SQLite's own from a later query.
func TestIndexFixForMissingFTS5(t *testing.T) {
	for _, err := range []error{
		fmt.Errorf("open index: %w", index.ErrNoFTS5),
		fmt.Errorf("search: no such module: fts5"),
	} {
		if fix := indexFix(err); !strings.Contains(fix, "go install -tags sqlite_fts5 github.com/reflectkb/reflect/cmd/reflect@latest") {
			t.Errorf("fix for %q = %q, want the rebuild command", err, fix)
		}
	}
	if fix := indexFix(fmt.Errorf("database disk image is malformed")); fix != "run 'reflect reindex --full'" {
		t.Errorf("fix for a damaged catalog = %q", fix)
	}
}

// Once the learnings directory is synced, doctor says how the last
// background sync ended (it runs detached: a failure is seen nowhere
// else), and lists the learnings a merge marked needs_review.
func TestSyncAndReviewChecks(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	t.Setenv("CODEX_HOME", "")
	t.Setenv("PATH", t.TempDir())
	c := &config.Config{StateDir: filepath.Join(home, "state"), LearningsDir: filepath.Join(home, "kb"),
		File: filepath.Join(home, "state", "config.toml"), Origin: map[string]string{}}
	c.Drain.Writer = "builtin"
	c.Index.Embedder = "hash"
	if ch := checkNamed(Run(context.Background(), c), "sync"); ch != nil {
		t.Errorf("not synced, yet a sync check: %+v", ch)
	}
	for _, d := range []string{filepath.Join(c.LearningsDir, ".git"), c.StateDir} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	last := `{"at":"2026-11-25T10:00:00Z","ok":false,"error":"cannot reach the remote: x\nyour changes are committed locally"}`
	if err := os.WriteFile(filepath.Join(c.StateDir, "last-sync.json"), []byte(last), 0o600); err != nil {
		t.Fatal(err)
	}
	r := Run(context.Background(), c)
	if ch := checkNamed(r, "sync"); ch == nil || ch.Status != Warn || !strings.Contains(ch.Detail, "cannot reach the remote: x") || ch.Fix == "" {
		t.Errorf("failed background sync: %+v", ch)
	}
	doc := "---\nid: lrn-a-000001\ntitle: A\nconfidence: high\ncreated: 2026-11-01T00:00:00Z\nneeds_review: true\n---\nbody\n"
	if err := os.MkdirAll(c.DocumentsDir(), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(c.DocumentsDir(), "lrn-a-000001.md"), []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	r = Run(context.Background(), c)
	if ch := checkNamed(r, "needs review"); ch == nil || ch.Status != Warn || !strings.Contains(ch.Detail, "lrn-a-000001") {
		t.Errorf("needs review: %+v", ch)
	}
	if len(r.NeedsReview) != 1 || r.NeedsReview[0] != "lrn-a-000001" {
		t.Errorf("NeedsReview = %v", r.NeedsReview)
	}
}

func TestGeminiHooksCheck(t *testing.T) {
	home := t.TempDir()
	t.Setenv("PATH", t.TempDir())
	c := &config.Config{StateDir: filepath.Join(home, "state"), LearningsDir: filepath.Join(home, "kb"),
		File: filepath.Join(home, "state", "config.toml"), Origin: map[string]string{},
		Agents: config.AgentDirs{Home: home}}
	c.Drain.Writer = "builtin"
	prev := installBinary
	installBinary = "/opt/reflect/bin/reflect"
	defer func() { installBinary = prev }()

	r := Run(context.Background(), c)
	if ch := checkNamed(r, "gemini hooks"); ch == nil || !strings.Contains(ch.Detail, "not installed") {
		t.Errorf("gemini hooks before install = %+v", ch)
	}
	if checkNamed(r, "gemini prompt") != nil {
		t.Error("a run check for hooks that are not installed")
	}
	res, err := agents.Install(agents.InstallOptions{Agent: "gemini", Binary: installBinary, Dirs: agents.Dirs(c.Agents)})
	if err != nil {
		t.Fatal(err)
	}
	r = Run(context.Background(), c)
	for _, ev := range []string{"session-start", "prompt", "post-tool", "stop", "session-end"} {
		if ch := checkNamed(r, "gemini "+ev); ch == nil || ch.Status != OK || !strings.HasSuffix(ch.Detail, " runs") {
			t.Errorf("installed %s: %+v", ev, ch)
		}
	}

	data, err := os.ReadFile(res.Path)
	if err != nil {
		t.Fatal(err)
	}
	off := strings.Replace(string(data), "{\n", "{\n  \"hooksConfig\": {\"disabled\": [\"reflect-prompt\"]},\n", 1)
	if err := os.WriteFile(res.Path, []byte(off), 0o600); err != nil {
		t.Fatal(err)
	}
	r = Run(context.Background(), c)
	if ch := checkNamed(r, "gemini prompt"); ch == nil || ch.Status != Warn ||
		!strings.Contains(ch.Detail, "BeforeAgent will not run") || !strings.Contains(ch.Fix, "/hooks enable") {
		t.Errorf("disabled prompt hook: %+v", ch)
	}
	if ch := checkNamed(r, "gemini stop"); ch == nil || ch.Status != OK {
		t.Errorf("stop hook next to a disabled one: %+v", ch)
	}
	if !r.Healthy() {
		t.Error("a disabled hook made the report unhealthy; it is a warning")
	}
}

// TestWriterAndSpend: with claude on PATH and no writer chosen doctor names
// the builtin writer and the command that opts in (on the old code it
// reported claude, which then ran unasked), and shows today's runs and
// spend in cents: a tenth of a cent is "0.1¢", not "$0.00".
func TestWriterAndSpend(t *testing.T) {
	home := t.TempDir()
	bin := t.TempDir()
	if err := testfs.WriteExecutable(filepath.Join(bin, "claude"), []byte("#!/bin/sh\nexit 1\n")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)
	c, err := config.Load(config.MapLookup(map[string]string{"HOME": home}))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(c.StateDir, 0o700); err != nil {
		t.Fatal(err)
	}
	line := fmt.Sprintf(`{"ts":%q,"entry":"q-1","writer":"claude","outcome":"written","learnings":1,"cost_usd":0.001,"duration_ms":5}`+"\n", time.Now().UTC().Format(time.RFC3339))
	if err := os.WriteFile(filepath.Join(c.StateDir, "drain-cost.jsonl"), []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
	r := Run(context.Background(), c)
	if ch := checkNamed(r, "writer"); ch == nil || r.Writer != "builtin" || !strings.Contains(ch.Detail, "no LLM") ||
		!strings.Contains(ch.Detail, "reflect config set drain.writer claude") {
		t.Errorf("writer check = %+v (writer %q), want builtin naming the opt-in command", ch, r.Writer)
	}
	ch := checkNamed(r, "spend today")
	if ch == nil || ch.Status != OK || !strings.Contains(ch.Detail, "1 writer run(s) of 20 a day") ||
		!strings.Contains(ch.Detail, "0.1¢ spent of $1.00 a day") {
		t.Errorf("spend check = %+v", ch)
	}
	if r.Today == nil || r.Today.Entries != 1 || r.Today.USD != 0.001 {
		t.Errorf("report today = %+v", r.Today)
	}

	c.Drain.Writer, c.Origin["drain.writer"] = "claude", "config.toml"
	r = Run(context.Background(), c)
	if ch := checkNamed(r, "writer"); ch == nil || r.Writer != "claude" || !strings.Contains(ch.Detail, "an LLM: each run spends") {
		t.Errorf("writer check with claude chosen = %+v", ch)
	}
	c.Drain.DailyUSD = 0.001
	r = Run(context.Background(), c)
	if ch := checkNamed(r, "spend today"); ch == nil || ch.Status != Warn || !strings.Contains(ch.Fix, "drain.daily_usd") {
		t.Errorf("spend check with the cap reached = %+v", ch)
	}
}
