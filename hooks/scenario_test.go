package hooks_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gofrs/flock"

	"github.com/reflectkb/reflect/hooks"
	"github.com/reflectkb/reflect/index"
	"github.com/reflectkb/reflect/store"
)

// stillLine is the line that names an already-injected top hit.
func stillLine(t testing.TB, out string) string {
	t.Helper()
	for _, l := range strings.Split(contextOf(t, out), "\n") {
		if strings.HasPrefix(l, "still relevant: ") {
			return l
		}
	}
	return ""
}

// injectedState reads the session's dedupe file: the ids injected so far.
func injectedState(t testing.TB, stateDir, sid string) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(stateDir, "session-injected", sid+".json"))
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]string
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for id := range m {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// A session on the OAuth state-cookie branch: session start injects the
// SameSite learning; prompts on the same topic name it as "still
// relevant" instead of repeating it and inject only what is new; after a
// compaction the agent has lost it all, so it is injected again.
func TestSessionDedupeScenario(t *testing.T) {
	t.Parallel()
	e := newHookEnv(t)
	e.gitRepo(t, "fix/oauth-state-cookie",
		"login: redirect to the IdP with a state parameter",
		"callback: compare the OAuth state cookie with the state parameter",
		"cookie: set SameSite on the OAuth state cookie")
	// One learning a block: with more, the session start's briefing of
	// the project's learnings would give the whole topic at once, and
	// there would be no new learning left for a prompt to bring.
	e.cfg.Recall.Max = 1
	samesite, clock := e.ids["samesite"], e.ids["clock"]
	stillSameSite := "still relevant: " + samesite + " (OAuth state cookie must be SameSite=Lax)"
	prompt := func(text string) []byte {
		return e.fixture(t, "claude", "user-prompt-submit", map[string]any{"prompt": text})
	}

	steps := []struct {
		name, event string
		in          []byte
		inject      []string // ids as new entries, in order
		still       string   // the "still relevant" line, "" for none
		detail      string
		state       []string // the session's dedupe set afterwards
	}{
		{
			name: "session start", event: "session-start",
			in:     e.fixture(t, "claude", "session-start", nil),
			inject: []string{samesite}, detail: "recalled 1", state: []string{samesite},
		},
		{
			name: "prompt on the injected learning", event: "prompt",
			in:    prompt("login still fails with a state mismatch after the OAuth callback"),
			still: stillSameSite, detail: "still relevant: " + samesite, state: []string{samesite},
		},
		{
			name: "prompt on a new learning of the topic", event: "prompt",
			in:     prompt("the OAuth refresh token expired in TestRefresh again, is the clock wrong?"),
			inject: []string{clock}, detail: "recalled 1", state: sorted(samesite, clock),
		},
		{
			name: "prompt on both, already injected", event: "prompt",
			in:    prompt("OAuth state mismatch after the callback: is the SameSite state cookie dropped again?"),
			still: stillSameSite, detail: "still relevant: " + samesite, state: sorted(samesite, clock),
		},
		{
			name: "compaction", event: "session-start",
			in:     e.fixture(t, "claude", "session-start-compact", nil),
			inject: []string{samesite}, detail: "recalled 1", state: []string{samesite},
		},
		{
			name: "prompt after compaction", event: "prompt",
			in:     prompt("the OAuth refresh token expired in TestRefresh again, is the clock wrong?"),
			inject: []string{clock}, detail: "recalled 1", state: sorted(samesite, clock),
		},
		{
			name: "same prompt again", event: "prompt",
			in:     prompt("the OAuth refresh token expired in TestRefresh again, is the clock wrong?"),
			still:  "still relevant: " + clock + " (Refresh token expiry tests need an injected clock)",
			detail: "still relevant: " + clock, state: sorted(samesite, clock),
		},
	}
	for i, s := range steps {
		out := run(t, e.cfg, s.event, "claude", s.in)
		if got := idsIn(t, out); !slices.Equal(got, s.inject) {
			t.Errorf("step %d (%s): injected %q, want %q\n%s", i, s.name, got, s.inject, contextOf(t, out))
		}
		if got := stillLine(t, out); got != s.still {
			t.Errorf("step %d (%s): still-relevant line %q, want %q", i, s.name, got, s.still)
		}
		if s.still != "" && len(s.inject) == 0 && strings.Contains(contextOf(t, out), "Learnings from past sessions") {
			t.Errorf("step %d (%s): a block with only a still-relevant line has an intro", i, s.name)
		}
		ev := lastEvent(t, e.state)
		if ev.Detail != s.detail || ev.Counts.Recalled != len(s.state) || ev.SessionID != claudeSID || ev.Error {
			t.Errorf("step %d (%s): last event %+v, want detail %q, recalled %d", i, s.name, ev, s.detail, len(s.state))
		}
		if got := injectedState(t, e.state, claudeSID); !slices.Equal(got, s.state) {
			t.Errorf("step %d (%s): dedupe set %q, want %q", i, s.name, got, s.state)
		}
	}

	// An event that recalls nothing still shows the session's running
	// count on the status line.
	run(t, e.cfg, "post-tool", "claude", e.fixture(t, "claude", "post-tool-use", nil))
	if ev := lastEvent(t, e.state); ev.Event != "post-tool" || ev.Counts.Recalled != 2 {
		t.Errorf("post-tool after the scenario: last event %+v, want recalled 2", ev)
	}

	// Another session is not deduplicated against this one.
	out := run(t, e.cfg, "prompt", "codex", e.fixture(t, "codex", "user-prompt-submit",
		map[string]any{"prompt": "login still fails with a state mismatch after the OAuth callback"}))
	if got := idsIn(t, out); !slices.Equal(got, []string{samesite}) {
		t.Errorf("a new session got %q, want the SameSite learning", got)
	}
}

func sorted(ids ...string) []string {
	slices.Sort(ids)
	return ids
}

// armedFiles lists the watchers of a state directory.
func armedFiles(t testing.TB, stateDir string) []string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(stateDir, "armed", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	return paths
}

// newDocs returns the learnings of the KB that are not seeds.
func newDocs(t testing.TB, e *hookEnv) []*store.Learning {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(e.cfg.DocumentsDir(), "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	var out []*store.Learning
	for _, p := range paths {
		l, err := store.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		seed := false
		for _, id := range e.ids {
			seed = seed || id == l.ID
		}
		if !seed {
			out = append(out, l)
		}
	}
	return out
}

// A failed curl, then the user's correction: the correction becomes a
// mini-learning (type mini, confidence low, a real title), indexed at once
// but not echoed back in the answer to the prompt that said it; the
// watcher is cleared.
func TestMiniLearningFlowClaude(t *testing.T) {
	t.Parallel()
	e := newHookEnv(t)
	if out := run(t, e.cfg, "post-tool", "claude", e.fixture(t, "claude", "post-tool-use-failure", nil)); out != "" {
		t.Errorf("post-tool printed %q", out)
	}
	if ev := lastEvent(t, e.state); ev.Detail != "watching: curl exited 60" || ev.Error {
		t.Errorf("post-tool last event %+v", ev)
	}
	if got := armedFiles(t, e.state); len(got) != 1 {
		t.Fatalf("watchers after a failed curl: %v", got)
	}

	// Two minutes later the user corrects the agent.
	later := func(o *hooks.Options) { o.Now = func() time.Time { return t0.Add(2 * time.Minute) } }
	out := run(t, e.cfg, "prompt", "claude", e.fixture(t, "claude", "user-prompt-correction", nil), later)

	docs := newDocs(t, e)
	if len(docs) != 1 {
		t.Fatalf("new learnings after the correction: %d, want 1", len(docs))
	}
	m := docs[0]
	if m.Type != "mini" || m.Confidence != "low" || m.Title != "curl: use --insecure for local dev instead" ||
		m.Project != "auth-service" || m.Scope != "project" || m.Source == nil ||
		m.Source.Harness != "claude" || m.Source.SessionID != claudeSID || m.Source.Trigger != "correction" ||
		!slices.Equal(m.Symptoms, []string{"curl: (60) SSL certificate problem: self-signed certificate"}) ||
		!strings.Contains(m.KeyInsight, "--insecure for local dev instead") {
		t.Errorf("mini-learning = %+v", m)
	}
	if strings.Contains(out, m.ID) {
		t.Errorf("the correction's own learning was injected back:\n%s", contextOf(t, out))
	}
	// The older learning on the same fix is still worth showing.
	if got := idsIn(t, out); !slices.Equal(got, []string{e.ids["insecure"]}) {
		t.Errorf("correction prompt injected %q, want the curl --insecure learning", got)
	}
	ev := lastEvent(t, e.state)
	if ev.Detail != "learned "+m.ID+"; recalled 1" || ev.Error {
		t.Errorf("correction last event %+v", ev)
	}
	if got := armedFiles(t, e.state); len(got) != 0 {
		t.Errorf("watcher not cleared: %v", got)
	}
	if log := hookLog(t, e.state); log != "" {
		t.Errorf("hooks.log:\n%s", log)
	}

	// It is in the index, not only on disk.
	ix, err := index.Open(context.Background(), e.cfg.DocumentsDir(), e.cfg.IndexDir(), index.NoRebuild())
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	res, err := ix.Search(context.Background(), index.Query{Text: "curl use --insecure for local dev", Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(res, func(r index.Result) bool { return r.ID == m.ID }) {
		t.Errorf("mini-learning %s not found by search: %+v", m.ID, res)
	}

	// The same correction once more: no watcher, no second learning.
	run(t, e.cfg, "prompt", "claude", e.fixture(t, "claude", "user-prompt-correction", map[string]any{"session_id": "other"}), later)
	if n := len(newDocs(t, e)); n != 1 {
		t.Errorf("%d new learnings after a correction without a failed command", n)
	}
}

// Codex reports a failed shell command as a PostToolUse whose
// tool_response starts with "Exit code: N": that arms a watcher too, and a
// correction then becomes a mini-learning of the codex harness.
func TestMiniLearningFlowCodex(t *testing.T) {
	t.Parallel()
	e := newHookEnv(t)
	if out := run(t, e.cfg, "post-tool", "codex", e.fixture(t, "codex", "post-tool-use", nil)); out != "" {
		t.Errorf("post-tool printed %q", out)
	}
	if ev := lastEvent(t, e.state); ev.Detail != "watching: go exited 1" || ev.SessionID != codexSID || ev.Error {
		t.Errorf("post-tool last event %+v", ev)
	}
	files := armedFiles(t, e.state)
	if len(files) != 1 {
		t.Fatalf("watchers after a failed go test: %v", files)
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	var f hooks.Failure
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	if f.Agent != "codex" || f.SessionID != codexSID || f.Tool != "Bash" || f.Command != "go test ./..." ||
		f.ExitCode != 1 || f.Cwd != e.repo || !f.ArmedAt.Equal(t0) ||
		!strings.Contains(f.ErrorHead+f.ErrorContext, "TestRefresh") {
		t.Errorf("armed failure = %+v", f)
	}

	out := run(t, e.cfg, "prompt", "codex", e.fixture(t, "codex", "user-prompt-submit",
		map[string]any{"prompt": "no, use go test -count=1 ./... instead, the cached result is stale"}))
	docs := newDocs(t, e)
	if len(docs) != 1 || docs[0].Type != "mini" || docs[0].Confidence != "low" ||
		docs[0].Source == nil || docs[0].Source.Harness != "codex" || !strings.HasPrefix(docs[0].Title, "go test: ") {
		t.Fatalf("learnings after the codex correction: %+v", docs)
	}
	if strings.Contains(out, docs[0].ID) {
		t.Errorf("the correction's own learning was injected back: %s", out)
	}
	if got := armedFiles(t, e.state); len(got) != 0 {
		t.Errorf("watcher not cleared: %v", got)
	}
}

// A watcher waits ten minutes: a correction-like prompt after that is
// about something else and records nothing.
func TestMiniLearningWatcherExpires(t *testing.T) {
	t.Parallel()
	e := newHookEnv(t)
	run(t, e.cfg, "post-tool", "claude", e.fixture(t, "claude", "post-tool-use-failure", nil))
	run(t, e.cfg, "prompt", "claude", e.fixture(t, "claude", "user-prompt-correction", nil),
		func(o *hooks.Options) { o.Now = func() time.Time { return t0.Add(hooks.WatchTTL + time.Minute) } })
	if docs := newDocs(t, e); len(docs) != 0 {
		t.Errorf("a correction 11 minutes after the failure wrote %+v", docs)
	}
	if ev := lastEvent(t, e.state); strings.HasPrefix(ev.Detail, "learned") {
		t.Errorf("last event %+v", ev)
	}
}

// A correction while another process updates the index: the mini-learning
// is written, the watcher cleared and the older learning still recalled,
// within the hook's deadline; the next refresh once that update ends
// indexes the mini-learning.
func TestMiniLearningWhileIndexUpdating(t *testing.T) {
	t.Parallel()
	e := newHookEnv(t)
	run(t, e.cfg, "post-tool", "claude", e.fixture(t, "claude", "post-tool-use-failure", nil))
	fl := flock.New(filepath.Join(e.cfg.IndexDir(), "update.lock"))
	if ok, err := fl.TryLock(); err != nil || !ok {
		t.Fatalf("take update.lock: ok=%v err=%v", ok, err)
	}
	defer fl.Unlock()

	later := func(o *hooks.Options) { o.Now = func() time.Time { return t0.Add(2 * time.Minute) } }
	out := run(t, e.cfg, "prompt", "claude", e.fixture(t, "claude", "user-prompt-correction", nil), later)
	docs := newDocs(t, e)
	if len(docs) != 1 || docs[0].Type != "mini" {
		t.Fatalf("new learnings after the correction: %+v, want one mini-learning", docs)
	}
	m := docs[0]
	if got := idsIn(t, out); !slices.Equal(got, []string{e.ids["insecure"]}) {
		t.Errorf("correction prompt injected %q, want the curl --insecure learning", got)
	}
	if ev := lastEvent(t, e.state); ev.Detail != "learned "+m.ID+"; recalled 1" || ev.Error {
		t.Errorf("correction last event %+v", ev)
	}
	if got := armedFiles(t, e.state); len(got) != 0 {
		t.Errorf("watcher not cleared: %v", got)
	}
	if log := hookLog(t, e.state); log != "" {
		t.Errorf("hooks.log:\n%s", log)
	}

	if err := fl.Unlock(); err != nil {
		t.Fatal(err)
	}
	ix, err := index.Open(context.Background(), e.cfg.DocumentsDir(), e.cfg.IndexDir(), index.NoRebuild())
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if _, ran, err := ix.Refresh(context.Background()); err != nil || !ran {
		t.Fatalf("Refresh after the update ended: ran=%v err=%v", ran, err)
	}
	res, err := ix.Search(context.Background(), index.Query{Text: "curl use --insecure for local dev", Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(res, func(r index.Result) bool { return r.ID == m.ID }) {
		t.Errorf("mini-learning %s not indexed by the refresh: %+v", m.ID, res)
	}
}
