package hooks_test

// Tests of hooks.Run through its public surface, as `reflect hook` calls it:
// a payload on In, an answer on Out, files under a state directory and a
// knowledge base that live in temp dirs. Shared helpers for the other
// hooks_test files (golden, fuzz, scenario, process) live here too.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gofrs/flock"
	"github.com/reflectkb/reflect/hooks"
	"github.com/reflectkb/reflect/index"
	"github.com/reflectkb/reflect/internal/config"
	"github.com/reflectkb/reflect/knowledge"
	"github.com/reflectkb/reflect/queue"
	"github.com/reflectkb/reflect/statusline"
	"github.com/reflectkb/reflect/store"
)

// t0 is the fixed clock of every hook run in these tests.
var t0 = time.Date(2026, 11, 22, 10, 42, 0, 0, time.UTC)

// testDeadline replaces the 1.5 s default in tests that are not about the
// deadline: golden output must not depend on how loaded the machine is.
const testDeadline = 30 * time.Second

// Session ids of the fixtures.
const (
	claudeSID = "8f14e45f-ceea-467f-a8e0-2c1d1b1e6a01"
	codexSID  = "019aad50-a7e6-7422-b7a8-0b384290624f"
	geminiSID = "6cfe662c-a310-4e59-86a3-b1225a758524"
)

// Environment of the re-executed test binary (TestMain).
const (
	// asReflectEnv makes the test binary act as `reflect` (proc_test.go).
	asReflectEnv = "REFLECT_HOOKS_TEST_AS_REFLECT"
	// spawnLogEnv names a file where the fake `reflect` records commands
	// other than `hook` (what spawnDetached starts), one line each.
	spawnLogEnv = "REFLECT_HOOKS_TEST_SPAWN_LOG"
)

// TestMain lets the test binary stand in for `reflect`. Two callers need
// that: the process-level tests, which run it as `reflect hook EVENT
// --agent A`, and hooks' spawnDetached, which starts os.Executable() — this
// binary under `go test` — as `reflect reindex`. Without this dispatch that
// child would run the whole test suite, whose tests spawn children of their
// own: a fork bomb. Any first argument that is not a test flag is therefore
// a reflect subcommand, never a test run.
func TestMain(m *testing.M) {
	if os.Getenv(asReflectEnv) == "1" || (len(os.Args) > 1 && !strings.HasPrefix(os.Args[1], "-")) {
		os.Exit(fakeReflect(os.Args[1:]))
	}
	os.Exit(runIsolated(m))
}

// runIsolated runs the tests with HOME and both reflect directories in a
// temp dir, set once for the process rather than per test so that the
// tests can run in parallel: nothing can reach the real ~/.reflect or
// ~/.learnings, and the tests pass each hook its configuration
// (hookEnv.cfg) instead of reading it from the environment.
func runIsolated(m *testing.M) int {
	home, err := os.MkdirTemp("", "hooks-test-home-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(home)
	for k, v := range map[string]string{"HOME": home, "REFLECT_STATE_DIR": filepath.Join(home, "state"),
		"REFLECT_LEARNINGS_DIR": filepath.Join(home, "learnings"), "REFLECT_DISABLE": ""} {
		if err := os.Setenv(k, v); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	return m.Run()
}

// fakeReflect is the part of cmd/reflect's main that `reflect hook` runs:
// load the config (a broken one leaves it nil), run the hook on stdin and
// stdout, exit 0. Other subcommands are only recorded.
func fakeReflect(args []string) int {
	if len(args) == 0 || args[0] != "hook" {
		if path := os.Getenv(spawnLogEnv); path != "" {
			if f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600); err == nil {
				fmt.Fprintln(f, strings.Join(args, " "))
				f.Close()
			}
		}
		return 0
	}
	var event, agent string
	for i := 1; i < len(args); i++ {
		switch a := args[i]; {
		case a == "--agent" && i+1 < len(args):
			agent = args[i+1]
			i++
		case strings.HasPrefix(a, "--agent="):
			agent = strings.TrimPrefix(a, "--agent=")
		case event == "" && !strings.HasPrefix(a, "-"):
			event = a
		}
	}
	cfg, _ := config.Load(os.LookupEnv)
	hooks.Run(context.Background(), hooks.Options{
		Event: event, Agent: agent, In: os.Stdin, Out: os.Stdout, Config: cfg,
	})
	return 0
}

// seed is a learning of the test knowledge base.
type seed struct {
	key                        string // name in hookEnv.ids
	title, insight, confidence string
	category                   string
	tags, symptoms             []string
	project, body              string
	scopeGlobal                bool // scope global, no project
	createdDaysBeforeT0        int
}

// seeds are the learnings of the test KB: three about the auth-service
// project the fixtures come from, and unrelated ones so that the
// relevance floor sees a KB, not three documents.
var seeds = []seed{
	{
		key:        "samesite",
		title:      "OAuth state cookie must be SameSite=Lax",
		insight:    "A SameSite=Strict state cookie is dropped on the cross-site redirect back from the IdP, so the callback reports a state mismatch.",
		confidence: "high", category: "debugging",
		tags:     []string{"oauth", "cookies"},
		symptoms: []string{"state mismatch after callback"},
		project:  "auth-service",
		body: "## Problem\n\nLogin failed with \"state mismatch\" after the OAuth callback.\n\n" +
			"## Solution\n\nSet the state cookie with SameSite=Lax in callback/cookie.go.\n\n" +
			"## Context\n\nBrowsers drop Strict cookies on cross-site top-level redirects.\n",
		createdDaysBeforeT0: 30,
	},
	{
		key:        "insecure",
		title:      "curl against the local dev server needs --insecure",
		insight:    "curl exits 60 (SSL certificate problem: self-signed certificate) against https://localhost:8443; pass --insecure for local dev only, never in scripts that reach production.",
		confidence: "medium", category: "tooling",
		tags:     []string{"curl", "tls"},
		symptoms: []string{"curl: (60) SSL certificate problem: self-signed certificate"},
		project:  "auth-service",
		body: "## Problem\n\ncurl https://localhost:8443/callback failed with exit code 60.\n\n" +
			"## Solution\n\nThe dev certificate is self-signed: use curl --insecure locally.\n",
		createdDaysBeforeT0: 20,
	},
	{
		key:        "clock",
		title:      "Refresh token expiry tests need an injected clock",
		insight:    "TestRefresh failed with \"token expired\" because refresh token expiry was checked against time.Now; inject the clock into the token store so tests control it.",
		confidence: "high", category: "testing",
		tags:     []string{"oauth", "refresh-token", "testing"},
		symptoms: []string{"token expired in TestRefresh"},
		project:  "auth-service",
		body: "## Problem\n\nrefresh_test.go:31: token expired, only on CI.\n\n" +
			"## Solution\n\nPass a clock to the refresh token store; tests use a fixed one.\n",
		createdDaysBeforeT0: 10,
	},
	{
		key:        "postgres",
		title:      "CREATE INDEX CONCURRENTLY cannot run inside a migration transaction",
		insight:    "Postgres rejects CREATE INDEX CONCURRENTLY in a transaction block; mark the migration as non-transactional.",
		confidence: "high", category: "database",
		tags: []string{"postgres", "migrations"}, symptoms: []string{"cannot run inside a transaction block"},
		project:             "billing",
		body:                "## Problem\n\nThe migration 0042_add_index.sql failed on deploy.\n\n## Solution\n\nRun it outside the transaction.\n",
		createdDaysBeforeT0: 40,
	},
	{
		key:        "docker",
		title:      "Copy go.mod before the sources to keep the Docker layer cache",
		insight:    "COPY . before go mod download invalidates the module cache layer on every source change; copy go.mod and go.sum first.",
		confidence: "medium", category: "build",
		tags: []string{"docker", "go"}, symptoms: []string{"docker build downloads modules every time"},
		scopeGlobal:         true,
		body:                "## Problem\n\nEvery docker build re-downloaded all modules.\n\n## Solution\n\nSplit the COPY.\n",
		createdDaysBeforeT0: 50,
	},
	{
		key:        "vite",
		title:      "Vite HMR behind a reverse proxy needs server.hmr.clientPort",
		insight:    "Behind nginx the HMR websocket connects to the wrong port; set server.hmr.clientPort to the proxy's port in vite.config.ts.",
		confidence: "medium", category: "frontend",
		tags: []string{"vite", "nginx", "websocket"}, symptoms: []string{"HMR websocket connection failed"},
		project:             "web",
		body:                "## Problem\n\nHot reload never connected.\n\n## Solution\n\nSet clientPort.\n",
		createdDaysBeforeT0: 60,
	},
}

// hookEnv is one isolated world for hooks.Run: HOME, a state directory, a
// knowledge base, and a git repository named like the fixtures' project.
type hookEnv struct {
	home, state, kb string
	repo            string            // cwd for payloads: <tmp>/auth-service, a git repo
	ids             map[string]string // seed key → learning id
	cfg             *config.Config
}

// newHookEnv builds the environment with the seed learnings indexed.
func newHookEnv(t testing.TB) *hookEnv {
	t.Helper()
	e := newEmptyEnv(t)
	e.putSeeds(t, seeds)
	return e
}

// newEmptyEnv builds the environment with an empty knowledge base.
func newEmptyEnv(t testing.TB) *hookEnv {
	t.Helper()
	// The hooks get e.cfg; a process test (runProc) passes the same
	// directories in its child's environment.
	e := &hookEnv{home: t.TempDir(), state: t.TempDir(), kb: t.TempDir(), ids: map[string]string{}}
	e.cfg = &config.Config{
		StateDir:     e.state,
		LearningsDir: e.kb,
		Index:        config.Index{Embedder: "hash"},
		Recall:       config.Recall{Max: 3, Chars: 1500},
	}
	e.repo = filepath.Join(t.TempDir(), "auth-service")
	if err := os.Mkdir(e.repo, 0o700); err != nil {
		t.Fatal(err)
	}
	return e
}

func (e *hookEnv) putSeeds(t testing.TB, list []seed) {
	t.Helper()
	ctx := context.Background()
	ix, err := index.Open(ctx, e.cfg.DocumentsDir(), e.cfg.IndexDir())
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	for _, s := range list {
		l := &store.Learning{
			Title: s.title, KeyInsight: s.insight, Confidence: s.confidence, Category: s.category,
			Tags: s.tags, Symptoms: s.symptoms, Scope: "project", Project: s.project, Body: s.body,
			Created: t0.AddDate(0, 0, -s.createdDaysBeforeT0),
		}
		if s.scopeGlobal {
			l.Scope, l.Project = "global", ""
		}
		l.ID = store.NewID(l.Title, l.KeyInsight)
		res, err := knowledge.New(ix).Put(ctx, l, nil, l.Created)
		if err != nil {
			t.Fatalf("put %s: %v", s.key, err)
		}
		e.ids[s.key] = res.ID
	}
}

// gitRepo makes e.repo a repository on branch with one empty commit per
// subject (oldest first), isolated from any global or system git config.
func (e *hookEnv) gitRepo(t testing.TB, branch string, subjects ...string) {
	t.Helper()
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", e.repo, "-c", "commit.gpgsign=false"}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
			"GIT_AUTHOR_NAME=dev", "GIT_AUTHOR_EMAIL=dev@example.com", "GIT_COMMITTER_NAME=dev",
			"GIT_COMMITTER_EMAIL=dev@example.com", "GIT_AUTHOR_DATE=2026-11-20T10:00:00Z",
			"GIT_COMMITTER_DATE=2026-11-20T10:00:00Z")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q", "-b", branch)
	for _, s := range subjects {
		git("commit", "-q", "--allow-empty", "-m", s)
	}
}

// withState returns a copy of the config with a fresh state directory.
func (e *hookEnv) withState(t testing.TB) *config.Config {
	t.Helper()
	c := *e.cfg
	c.StateDir = t.TempDir()
	return &c
}

// transcript writes a non-empty transcript file and returns its path.
func (e *hookEnv) transcript(t testing.TB, name string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	line := `{"type":"user","message":{"role":"user","content":"fix the OAuth redirect bug"}}` + "\n"
	if err := os.WriteFile(path, []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// fixture reads testdata/payloads/<agent>/<name>.json (real payloads the
// agents sent) and applies edits: a key set to a value, or to nil for
// JSON null. cwd always points into the temp world unless an edit says
// otherwise: fixtures name /home/dev/..., which no test may touch.
func (e *hookEnv) fixture(t testing.TB, agent, name string, edits map[string]any) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "payloads", agent, name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("%s/%s: %v", agent, name, err)
	}
	if _, ok := m["cwd"]; ok {
		m["cwd"] = e.repo
	}
	for k, v := range edits {
		m[k] = v
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// run runs one hook with cfg and returns what it printed, after checking
// that the output is one the agent accepts (see validateOutput). Starting
// background work (Options.Spawn) fails the test unless an option replaces
// Spawn.
func run(t testing.TB, cfg *config.Config, event, agent string, in []byte, opts ...func(*hooks.Options)) string {
	t.Helper()
	var out bytes.Buffer
	o := hooks.Options{
		Event: event, Agent: agent, In: bytes.NewReader(in), Out: &out,
		Config: cfg, Now: func() time.Time { return t0 }, Deadline: testDeadline,
		// The tests check what the hooks make of the commit subjects: on a
		// loaded machine git can take longer than gitrepo.DefaultTimeout.
		GitTimeout: time.Minute,
		Spawn: func(args ...string) error {
			t.Errorf("%s --agent %s started `reflect %s` unexpectedly", event, agent, strings.Join(args, " "))
			return errors.New("no background work in this test")
		},
	}
	for _, f := range opts {
		f(&o)
	}
	hooks.Run(context.Background(), o)
	if err := validateOutput(agent, event, out.Bytes()); err != nil {
		t.Errorf("%s --agent %s: %v\noutput: %q", event, agent, err, out.String())
	}
	return out.String()
}

// lastEvent reads last-event.json; it must exist after every hook.
func lastEvent(t testing.TB, stateDir string) statusline.Event {
	t.Helper()
	if _, err := os.Stat(filepath.Join(stateDir, statusline.FileName)); err != nil {
		t.Fatalf("last-event.json: %v", err)
	}
	ev, err := statusline.Read(stateDir)
	if err != nil {
		t.Fatal(err)
	}
	return ev
}

// hookLog returns logs/hooks.log ("" when there is none).
func hookLog(t testing.TB, stateDir string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(stateDir, "logs", "hooks.log"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	return string(data)
}

// pending lists the queue; it holds no malformed lines in these tests.
func pending(t testing.TB, stateDir string) []queue.Record {
	t.Helper()
	q, err := queue.Open(stateDir)
	if err != nil {
		t.Fatal(err)
	}
	recs, bad, err := q.List()
	if err != nil || len(bad) > 0 {
		t.Fatalf("queue list: %v, bad lines %v", err, bad)
	}
	return recs
}

// treeOf lists every path under dir, relative to it.
func treeOf(t testing.TB, dir string) []string {
	t.Helper()
	var paths []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != dir {
			rel, _ := filepath.Rel(dir, p)
			paths = append(paths, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return paths
}

// stacks is a dump of every goroutine.
func stacks() string {
	buf := make([]byte, 1<<20)
	return string(buf[:runtime.Stack(buf, true)])
}

// waitHandlers waits until no hook handler runs any more: a hook that gave
// up leaves its handler running, and the temp dirs must outlive it.
func waitHandlers(t testing.TB) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if !strings.Contains(stacks(), "reflect/hooks.(*invocation).handle") {
			return
		}
	}
	t.Fatalf("a hook handler still runs 10 s after its hook gave up:\n%s", stacks())
}

// fixtureRuns is every fixture with the event it is sent to.
var fixtureRuns = []struct{ agent, fixture, event string }{
	{"claude", "session-start", "session-start"},
	{"claude", "session-start-compact", "session-start"},
	{"claude", "user-prompt-submit", "prompt"},
	{"claude", "user-prompt-correction", "prompt"},
	{"claude", "post-tool-use", "post-tool"},
	{"claude", "post-tool-use-failure", "post-tool"},
	{"claude", "pre-compact", "pre-compact"},
	{"claude", "stop", "stop"},
	{"claude", "session-end", "session-end"},
	{"codex", "session-start", "session-start"},
	{"codex", "session-start-null-transcript", "session-start"},
	{"codex", "user-prompt-submit", "prompt"},
	{"codex", "post-tool-use", "post-tool"},
	{"codex", "pre-compact", "pre-compact"},
	{"codex", "stop", "stop"},
	{"gemini", "session-start", "session-start"},
	{"gemini", "before-agent", "prompt"},
	{"gemini", "before-agent-correction", "prompt"},
	{"gemini", "after-tool", "post-tool"},
	{"gemini", "after-tool-failure", "post-tool"},
	{"gemini", "pre-compress", "pre-compact"},
	{"gemini", "after-agent", "stop"},
	{"gemini", "session-end", "session-end"},
	{"copilot", "session-start", "session-start"},
	{"copilot", "user-prompt-submit", "prompt"},
	{"copilot", "post-tool-use", "post-tool"},
	{"copilot", "post-tool-use-failed", "post-tool"},
	{"copilot", "stop", "stop"},
	{"opencode", "session-start", "session-start"},
	{"opencode", "user-prompt-submit", "prompt"},
	{"opencode", "post-tool-use-failed", "post-tool"},
	{"opencode", "stop", "stop"},
}

// REFLECT_DISABLE=1 (the drainer's guard against feedback loops) turns
// every hook into a no-op: nothing printed, nothing written anywhere, not
// even last-event.json or a log line.
func TestRunDisabledDoesNothing(t *testing.T) {
	t.Parallel()
	e := newHookEnv(t)
	e.gitRepo(t, "fix/oauth-state-cookie", "callback: keep the OAuth state cookie on redirect")
	state := t.TempDir()
	cfg, err := config.Load(config.MapLookup(map[string]string{"HOME": e.home, "REFLECT_STATE_DIR": state,
		"REFLECT_LEARNINGS_DIR": e.kb, "REFLECT_DISABLE": "1"}))
	if err != nil {
		t.Fatal(err)
	}
	if !cfg.Disabled {
		t.Fatal("config.Load ignored REFLECT_DISABLE=1")
	}
	kbBefore := treeOf(t, e.kb)
	transcript := e.transcript(t, "t.jsonl")
	// A failure then a correction would otherwise write a mini-learning.
	for _, f := range append(fixtureRuns, fixtureRuns...) {
		in := e.fixture(t, f.agent, f.fixture, map[string]any{"transcript_path": transcript})
		if out := run(t, cfg, f.event, f.agent, in); out != "" {
			t.Errorf("%s/%s printed %q while disabled", f.agent, f.fixture, out)
		}
	}
	if got := treeOf(t, state); len(got) > 0 {
		t.Errorf("disabled hooks wrote to the state dir: %v", got)
	}
	if got := treeOf(t, e.kb); !slices.Equal(got, kbBefore) {
		t.Errorf("disabled hooks changed the knowledge base:\nbefore %v\nafter  %v", kbBefore, got)
	}
}

// A config that failed to load reaches Run as nil: nothing to do, nothing
// printed, no panic.
func TestRunNilConfig(t *testing.T) {
	t.Parallel()
	e := newHookEnv(t)
	for _, f := range fixtureRuns {
		if out := run(t, nil, f.event, f.agent, e.fixture(t, f.agent, f.fixture, nil)); out != "" {
			t.Errorf("%s/%s printed %q without a config", f.agent, f.fixture, out)
		}
	}
	if got := treeOf(t, e.state); len(got) > 0 {
		t.Errorf("hooks without a config wrote %v", got)
	}
}

// Bad invocations and bad payloads fail open: no output, an error line in
// hooks.log, and last-event.json marked as an error.
func TestRunFailsOpen(t *testing.T) {
	t.Parallel()
	e := newHookEnv(t)
	valid := e.fixture(t, "claude", "user-prompt-submit", nil)
	for _, tc := range []struct {
		name, event, agent string
		in                 []byte
		log                string
	}{
		{"unknown event", "bogus", "claude", valid, `unknown hook event "bogus"`},
		{"empty event", "", "codex", valid, `unknown hook event ""`},
		{"missing agent", "prompt", "", valid, `unknown agent ""`},
		{"unknown agent", "prompt", "cursor", valid, `unknown agent "cursor"`},
		{"empty stdin", "prompt", "claude", nil, "hook payload is not a JSON object"},
		{"garbage", "session-start", "codex", []byte("\x00\xffnot json"), "hook payload is not a JSON object"},
		{"array", "stop", "codex", []byte(`[{"session_id":"x"}]`), "hook payload is not a JSON object"},
		{"string", "post-tool", "claude", []byte(`"hello"`), "hook payload is not a JSON object"},
		{"wrong field type", "prompt", "codex", []byte(`{"session_id":42,"prompt":"fix the OAuth state mismatch"}`), "hook payload has a field of the wrong type"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := e.withState(t)
			if out := run(t, cfg, tc.event, tc.agent, tc.in); out != "" {
				t.Errorf("printed %q", out)
			}
			if log := hookLog(t, cfg.StateDir); !strings.Contains(log, tc.log) {
				t.Errorf("hooks.log does not say %q:\n%s", tc.log, log)
			}
			ev := lastEvent(t, cfg.StateDir)
			if !ev.Error || ev.Event != tc.event || !ev.TS.Equal(t0) {
				t.Errorf("last event = %+v, want an error for %q at %s", ev, tc.event, t0)
			}
		})
	}
}

// `null` is a JSON value but not a payload: every field is empty, so the
// hooks have nothing to work on and must say nothing, without an error.
func TestRunNullPayload(t *testing.T) {
	t.Parallel()
	e := newHookEnv(t)
	for _, event := range hooks.Events {
		for _, agent := range hooks.Agents {
			cfg := e.withState(t)
			if out := run(t, cfg, event, agent, []byte("null")); out != "" {
				t.Errorf("%s --agent %s printed %q for null", event, agent, out)
			}
			if ev := lastEvent(t, cfg.StateDir); ev.SessionID != "" || ev.Counts != (statusline.Counts{}) {
				t.Errorf("%s --agent %s: last event %+v", event, agent, ev)
			}
		}
	}
}

// breakCatalog damages the KB's catalog: "missing" removes it, "corrupt"
// overwrites it with junk, "never built" leaves an empty catalog that never
// indexed the documents beside it.
func breakCatalog(t *testing.T, e *hookEnv, damage string) {
	t.Helper()
	catalog := filepath.Join(e.cfg.IndexDir(), "catalog.db")
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if err := os.Remove(catalog + suffix); err != nil && !errors.Is(err, fs.ErrNotExist) {
			t.Fatal(err)
		}
	}
	switch damage {
	case "corrupt":
		if err := os.WriteFile(catalog, bytes.Repeat([]byte("not a database "), 512), 0o600); err != nil {
			t.Fatal(err)
		}
	case "never built":
		ix, err := index.Open(context.Background(), t.TempDir(), e.cfg.IndexDir())
		if err != nil {
			t.Fatal(err)
		}
		ix.Close()
	}
}

// A catalog that must be rebuilt (missing, corrupt, never built) is never
// rebuilt in the hook: the prompt prints nothing, the log says the index
// must be rebuilt, and `reflect reindex` is started in the background. The
// next hook, before that reindex ran, is in the same position.
func TestPromptWithBrokenCatalog(t *testing.T) {
	for _, damage := range []string{"missing", "corrupt", "never built"} {
		t.Run(damage, func(t *testing.T) {
			e := newHookEnv(t)
			breakCatalog(t, e, damage)
			catalog := filepath.Join(e.cfg.IndexDir(), "catalog.db")
			for i, sid := range []string{claudeSID, "second-hook"} {
				var spawned []string
				in := e.fixture(t, "claude", "user-prompt-submit", map[string]any{"session_id": sid})
				if out := run(t, e.cfg, "prompt", "claude", in, recordSpawns(&spawned, nil)); out != "" {
					t.Errorf("hook %d printed %q with a %s catalog", i+1, out, damage)
				}
				if !slices.Equal(spawned, []string{"reindex"}) {
					t.Errorf("hook %d started %q, want one `reflect reindex`", i+1, spawned)
				}
				if ev := lastEvent(t, e.state); !ev.Error || ev.Event != "prompt" || ev.SessionID != sid ||
					!strings.Contains(ev.Detail, "the index must be rebuilt") {
					t.Errorf("hook %d: last event %+v, want a prompt error", i+1, ev)
				}
			}
			if log := hookLog(t, e.state); strings.Count(log, "the index must be rebuilt") != 2 ||
				strings.Count(log, "rebuilding in the background") != 2 {
				t.Errorf("hooks.log does not say twice that the index is being rebuilt:\n%s", log)
			}
			switch damage {
			case "missing":
				if _, err := os.Stat(catalog); !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("the hook created a catalog: %v", err)
				}
			case "corrupt":
				// The hook leaves the damaged file alone (the reindex it
				// started moves it aside): its bytes must still be there.
				data, err := os.ReadFile(catalog)
				if err != nil || !bytes.HasPrefix(data, []byte("not a database")) {
					t.Errorf("damaged catalog changed by the hook: %v", err)
				}
			}
		})
	}

	// When the reindex cannot even be started, the log says so.
	t.Run("spawn fails", func(t *testing.T) {
		e := newHookEnv(t)
		breakCatalog(t, e, "missing")
		var spawned []string
		run(t, e.cfg, "prompt", "codex", e.fixture(t, "codex", "user-prompt-submit", nil),
			recordSpawns(&spawned, errors.New("exec: no such file")))
		if log := hookLog(t, e.state); !strings.Contains(log, "starting it failed: exec: no such file") {
			t.Errorf("hooks.log:\n%s", log)
		}
	})

	// With the default spawner, the reindex is a detached copy of the
	// running binary: here this test binary, which TestMain turns into a
	// recorder (not a second test run: no fork bomb).
	t.Run("detached process", func(t *testing.T) {
		e := newHookEnv(t)
		spawned := spawnLog(t)
		breakCatalog(t, e, "corrupt")
		run(t, e.cfg, "session-start", "claude", e.fixture(t, "claude", "session-start", nil),
			func(o *hooks.Options) { o.Spawn = nil })
		if got := spawned(1); !slices.Equal(got, []string{"reindex"}) {
			t.Errorf("spawned %q, want one `reflect reindex`", got)
		}
	})
}

// Benchmarks run hooks.Run in-process on a 10,000-learning KB, each
// iteration as a new hook process would: open the catalog, refresh, work,
// write last-event.json. Each benchmark builds its KB once and measures in
// sub-benchmarks, so the build is neither timed nor repeated as b.N grows.
//
//	go test -tags sqlite_fts5 ./hooks -run '^$' -bench BenchmarkHook

// While another process updates the index (it holds index/update.lock),
// the prompt hook recalls from the index as it stands instead of failing
// or waiting out its deadline.
func TestPromptWhileIndexUpdating(t *testing.T) {
	t.Parallel()
	e := newHookEnv(t)
	fl := flock.New(filepath.Join(e.cfg.IndexDir(), "update.lock"))
	if ok, err := fl.TryLock(); err != nil || !ok {
		t.Fatalf("take update.lock: ok=%v err=%v", ok, err)
	}
	defer fl.Unlock()
	// A learning written on disk since the last reindex makes the hook's
	// refresh try to update the index.
	l := &store.Learning{Title: "Kafka consumer lag after a rebalance", KeyInsight: "Raise max.poll.interval.ms",
		Confidence: "high", Created: t0}
	l.ID = store.NewID(l.Title, l.KeyInsight)
	if err := store.Open(e.cfg.DocumentsDir()).Write(l); err != nil {
		t.Fatal(err)
	}

	out := run(t, e.cfg, "prompt", "claude", e.fixture(t, "claude", "user-prompt-submit", nil))
	if !strings.Contains(out, e.ids["samesite"]) {
		t.Errorf("prompt while the index is being updated recalled %q, want %s", out, e.ids["samesite"])
	}
	if ev := lastEvent(t, e.state); ev.Error {
		t.Errorf("last event is an error: %+v", ev)
	}
	if log := hookLog(t, e.state); log != "" {
		t.Errorf("hooks.log:\n%s", log)
	}
}

// In a knowledge base above InlineRefreshMax a hook does not refresh the
// index itself when documents/ changed (at 100,000 learnings that took
// longer than the deadline, so every hook gave up): it starts one
// background `reflect reindex` per refreshEvery and recalls from the
// index as it stands. At or below the limit it refreshes inline.
func TestLargeKBRefreshedInBackground(t *testing.T) {
	t.Parallel()
	e := newHookEnv(t)
	l := &store.Learning{Title: "Kafka consumer lag after a rebalance", KeyInsight: "Raise max.poll.interval.ms",
		Confidence: "high", Created: t0}
	l.ID = store.NewID(l.Title, l.KeyInsight)
	if err := store.Open(e.cfg.DocumentsDir()).Write(l); err != nil {
		t.Fatal(err)
	}
	behind := func() bool {
		t.Helper()
		ix, err := index.Open(context.Background(), e.cfg.DocumentsDir(), e.cfg.IndexDir())
		if err != nil {
			t.Fatal(err)
		}
		defer ix.Close()
		b, err := ix.Behind(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	in := e.fixture(t, "claude", "user-prompt-submit", nil)
	at := t0
	var spawned []string
	small := func(o *hooks.Options) { o.InlineRefreshMax = 1; o.Now = func() time.Time { return at } }
	for i, want := range []int{1, 1, 2} {
		if i == 2 {
			at = at.Add(31 * time.Second) // past refreshEvery
		}
		out := run(t, e.cfg, "prompt", "claude", in, recordSpawns(&spawned, nil), small)
		if !strings.Contains(out, e.ids["samesite"]) {
			t.Errorf("prompt %d recalled %q, want %s from the index as it stands", i, out, e.ids["samesite"])
		}
		if len(spawned) != want || spawned[len(spawned)-1] != "reindex" {
			t.Errorf("prompt %d: spawned %q, want %d background reindex(es)", i, spawned, want)
		}
		if !behind() {
			t.Fatalf("prompt %d refreshed the index itself", i)
		}
	}
	if log := hookLog(t, e.state); log != "" {
		t.Errorf("hooks.log:\n%s", log)
	}

	spawned = nil
	run(t, e.cfg, "prompt", "claude", in, recordSpawns(&spawned, nil))
	if len(spawned) != 0 || behind() {
		t.Errorf("below the limit: spawned %q, behind %v; want an inline refresh", spawned, behind())
	}
}
