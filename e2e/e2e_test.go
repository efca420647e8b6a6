package e2e

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reflectkb/reflect/agents"
	"github.com/reflectkb/reflect/e2e/fakemodel"
)

// suite is what every world shares: the installed clients and the reflect
// binary under test.
var suite struct {
	once      sync.Once
	err       string // why the suite cannot run
	clientBin string
	// geminiBin holds the gemini executable; geminiErr says why Gemini
	// CLI cannot run when it cannot (an older node).
	geminiBin string
	geminiErr string
	reflect   string
	versions  Versions
	reused    bool
	cache     string // .cache/e2e or E2E_CACHE_DIR
}

// repoRoot is the repository's top directory (this package's parent).
func repoRoot(t *testing.T) string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("cannot locate the e2e package")
	}
	return filepath.Dir(filepath.Dir(file))
}

// setup installs the clients and builds reflect once. The suite runs only
// when REFLECT_E2E=1 (make e2e sets it), so `go test ./...` stays fast.
// Without npm or node >= 18 it skips, except under CI=true, where a client
// that cannot be installed fails the run.
func setup(t *testing.T) {
	t.Helper()
	if os.Getenv("REFLECT_E2E") != "1" {
		t.Skip("end-to-end suite: run `make e2e` (or REFLECT_E2E=1 go test -tags sqlite_fts5 ./e2e/)")
	}
	suite.once.Do(func() {
		root := repoRoot(t)
		ctx := context.Background()
		v, err := LoadVersions(filepath.Join(root, "e2e", "versions.env"))
		if err != nil {
			suite.err = err.Error()
			return
		}
		suite.versions = v
		if why := MissingTools(ctx); why != "" {
			suite.err = why
			return
		}
		cache := os.Getenv("E2E_CACHE_DIR")
		if cache == "" {
			cache = filepath.Join(root, ".cache", "e2e")
		}
		ictx, cancel := context.WithTimeout(ctx, 10*time.Minute)
		defer cancel()
		suite.cache = cache
		if suite.clientBin, suite.reused, err = Install(ictx, cache, v); err != nil {
			suite.err = err.Error()
			return
		}
		if why := MissingGeminiTools(ctx); why != "" {
			suite.geminiErr = why
		} else if suite.geminiBin, _, err = InstallGemini(ictx, cache, v.Gemini); err != nil {
			suite.geminiErr = err.Error()
		}
		suite.reflect = os.Getenv("E2E_REFLECT_BIN")
		if suite.reflect == "" {
			// The binary must be named reflect: install refuses others.
			// reflect-mcp goes beside it, where `reflect mcp` looks first.
			suite.reflect = filepath.Join(cache, "bin", "reflect")
			if err := os.MkdirAll(filepath.Dir(suite.reflect), 0o755); err != nil {
				suite.err = err.Error()
				return
			}
			cmd := exec.Command("go", "build", "-tags", "sqlite_fts5", "-o", filepath.Dir(suite.reflect)+string(filepath.Separator), "./cmd/reflect", "./cmd/reflect-mcp")
			cmd.Dir = root
			if out, err := cmd.CombinedOutput(); err != nil {
				suite.err = "build reflect: " + err.Error() + "\n" + string(out)
				return
			}
		}
	})
	if suite.err != "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("end-to-end suite cannot run in CI: %s", suite.err)
		}
		t.Skipf("end-to-end suite skipped: %s", suite.err)
	}
	t.Logf("clients: Claude Code %s, Codex %s (npm cache reused: %v)", suite.versions.Claude, suite.versions.Codex, suite.reused)
}

// setupGemini is setup for the tests that drive Gemini CLI, which also
// needs node >= 20.
func setupGemini(t *testing.T) {
	t.Helper()
	setup(t)
	if suite.geminiErr != "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("Gemini CLI cannot run in CI: %s", suite.geminiErr)
		}
		t.Skipf("Gemini CLI skipped: %s", suite.geminiErr)
	}
	t.Logf("Gemini CLI %s", suite.versions.Gemini)
}

// check records one assertion's outcome in the suite's report as well as
// failing the test: `make e2e` prints the table at the end.
func check(t *testing.T, name string, ok bool, format string, args ...any) {
	t.Helper()
	status := "PASS"
	if !ok {
		status = "FAIL"
		t.Errorf(name+": "+format, args...)
	}
	t.Logf("E2E %s %s %s", status, t.Name(), name)
}

// claudeResult is the JSON `claude -p --output-format json` prints.
type claudeResult struct {
	Type      string `json:"type"`
	Subtype   string `json:"subtype"`
	IsError   bool   `json:"is_error"`
	SessionID string `json:"session_id"`
	Result    string `json:"result"`
}

func parseClaude(t *testing.T, out []byte) claudeResult {
	t.Helper()
	var r claudeResult
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &r); err != nil {
		t.Fatalf("claude printed no result JSON: %v\n%s", err, out)
	}
	return r
}

func TestClaude(t *testing.T) {
	setup(t)
	w := newWorld(t, "claude")
	settings := filepath.Join(w.home, ".claude", "settings.json")
	w.addCaptureHooks(settings, []string{"SessionStart", "UserPromptSubmit", "PostToolUseFailure", "PreCompact", "Stop", "SessionEnd"})

	// (a) a turn completes, running a command that fails.
	first := parseClaude(t, w.client("-p", promptTopic+" Show it to me. FAILCMD:<"+claudeFailCmd+">",
		"--output-format", "json", "--allowedTools", "Bash"))
	check(t, "a/turn-completes", first.Type == "result" && first.Subtype == "success" && !first.IsError && first.SessionID != "",
		"first turn: %+v", first)
	if first.SessionID == "" {
		t.FailNow()
	}
	transcript := claudeTranscript(t, w, first.SessionID)

	// (b) the learnings block from SessionStart and from UserPromptSubmit
	// reached the model.
	check(t, "b/session-start-context", w.contextSent("system", "SessionStart hook additional context", "<reflect-learnings", seedStart),
		"no request carried SessionStart's <reflect-learnings> block")
	check(t, "b/prompt-context", w.contextSent("system", "UserPromptSubmit hook additional context", "<reflect-learnings", seedPrompt),
		"no request carried UserPromptSubmit's <reflect-learnings> block")

	// (c) the failure armed a watcher; the correction in the resumed
	// session writes a mini learning.
	armed := filepath.Join(w.state, "armed")
	check(t, "c/watcher-armed", countFiles(armed, ".json") == 1, "armed watchers in %s: %d", armed, countFiles(armed, ".json"))
	second := parseClaude(t, w.client("-p", "no, use ls /var/cache/widget instead, the cache is not under /nonexistent",
		"--resume", first.SessionID, "--output-format", "json"))
	check(t, "a/resumed-turn-completes", second.Subtype == "success" && !second.IsError, "resumed turn: %+v", second)
	minis := 0
	for _, l := range learnings(t, w.kb) {
		if l.Type == "mini" && strings.Contains(l.Text, "/var/cache/widget") {
			minis++
		}
	}
	check(t, "c/mini-learning", minis == 1, "mini learnings about the correction: %d", minis)

	// (d) Stop queued the real transcript.
	q := w.pending()
	check(t, "d/stop-queues", len(q) == 1 && q[0].TranscriptPath == transcript && q[0].Trigger == "stop" && q[0].Harness == "claude",
		"queue %+v, want the transcript %s from stop", q, transcript)

	// /compact runs PreCompact.
	w.client("-p", "/compact", "--resume", first.SessionID, "--output-format", "json")
	checkReplays(t, w, transcript, "precompact-manual")

	// The builtin writer turns the transcript into a learning about the
	// failure and its correction.
	checkBuiltinDrain(t, w, transcript)
	// Claude itself as the writer (the fake model answers the writer
	// prompt), leaving no session of its own behind.
	projects := filepath.Join(w.home, ".claude", "projects")
	checkClientDrain(t, w, "Stop", claudeFailCmd, func() int { return countFiles(projects, ".jsonl") })

	// (e) the status line, run exactly as installed with stdout on a pipe,
	// shows the 🧠 form.
	checkStatusLine(t, w, settings, first.SessionID)
	saveFixtures(t, w, transcript)
}

// claudeTranscript finds the session's transcript under ~/.claude/projects.
func claudeTranscript(t *testing.T, w *world, session string) string {
	t.Helper()
	found, _ := filepath.Glob(filepath.Join(w.home, ".claude", "projects", "*", session+".jsonl"))
	if len(found) != 1 {
		t.Fatalf("transcript of session %s: %v", session, found)
	}
	return found[0]
}

// checkReplays feeds the Stop, SessionEnd and PreCompact payloads the
// client really sent to `reflect hook` against an empty queue: each must
// queue the real transcript with its own trigger. (In the live run the
// first of them wins and the rest find the session already queued.)
func checkReplays(t *testing.T, w *world, transcript, compactTrigger string) {
	t.Helper()
	for _, tc := range []struct{ event, hook, trigger string }{
		{"Stop", "stop", "stop"},
		{"SessionEnd", "session-end", "session-end"},
		{"PreCompact", "pre-compact", compactTrigger},
	} {
		payloads := w.captured(tc.event)
		if len(payloads) == 0 {
			check(t, "d/"+tc.hook+"-payload-queues", false, "the client sent no %s", tc.event)
			continue
		}
		q := w.replayInto(tc.hook, payloads[len(payloads)-1])
		check(t, "d/"+tc.hook+"-payload-queues", len(q) == 1 && q[0].TranscriptPath == transcript && q[0].Trigger == tc.trigger,
			"%s payload queued %+v, want %s with trigger %s", tc.event, q, transcript, tc.trigger)
	}
}

type drainReport struct {
	Entries []struct {
		Outcome   string   `json:"outcome"`
		Learnings []string `json:"learnings"`
		Error     string   `json:"error"`
	} `json:"entries"`
}

func checkBuiltinDrain(t *testing.T, w *world, transcript string) {
	t.Helper()
	var rep drainReport
	out := w.reflectRun("drain", "--writer", "builtin", "--json")
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("drain --json: %v\n%s", err, out)
	}
	// A learning the drain wrote may update the mini learning of the same
	// correction (a near-duplicate) instead of adding a document.
	written := map[string]bool{}
	if len(rep.Entries) == 1 {
		for _, id := range rep.Entries[0].Learnings {
			written[id] = true
		}
	}
	sensible := false
	for _, l := range learnings(t, w.kb) {
		if written[l.ID] && l.Type != "mini" {
			sensible = sensible || strings.Contains(l.Text, "/nonexistent/widget-cache") || strings.Contains(l.Text, "/var/cache/widget")
		}
	}
	check(t, "d/builtin-drain", len(rep.Entries) == 1 && rep.Entries[0].Outcome == "written" && sensible,
		"drain %s", out)
	check(t, "d/queue-empty-after-drain", len(w.pending()) == 0, "queue after drain: %+v", w.pending())
}

// checkClientDrain queues the last captured payload of event in a fresh
// state and knowledge base and drains it with the client as the writer.
func checkClientDrain(t *testing.T, w *world, event, failedCmd string, sessions func() int) {
	t.Helper()
	payloads := w.captured(event)
	if len(payloads) == 0 {
		check(t, "d/client-writer-drain", false, "no %s payload captured", event)
		return
	}
	fresh := *w
	fresh.state = filepath.Join(t.TempDir(), "state")
	fresh.kb = filepath.Join(t.TempDir(), "kb")
	fresh.env = append(append([]string(nil), w.env...), "REFLECT_STATE_DIR="+fresh.state, "REFLECT_LEARNINGS_DIR="+fresh.kb)
	hook := map[string]string{"Stop": "stop", "SessionEnd": "session-end"}[event]
	cmd := exec.Command(w.reflect, "hook", hook, "--agent", w.agent)
	cmd.Dir, cmd.Env, cmd.Stdin = w.repo, fresh.env, strings.NewReader(string(payloads[len(payloads)-1]))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("reflect hook %s: %v\n%s", hook, err, out)
	}
	before := sessions()
	requests := len(w.requestsWith(fakemodelWriterMarker))
	out, err := fresh.reflectTry("drain", "--writer", w.agent, "--json")
	if err != nil {
		check(t, "d/client-writer-drain", false, "%v", err)
		return
	}
	var rep drainReport
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("drain --json: %v\n%s", err, out)
	}
	var titles []string
	for _, l := range learnings(t, fresh.kb) {
		titles = append(titles, l.Title)
	}
	wrote := len(titles) == 1 && strings.HasPrefix(titles[0], fakemodel.WriterTitlePrefix) && strings.Contains(titles[0], failedCmd)
	check(t, "d/client-writer-drain", len(rep.Entries) == 1 && rep.Entries[0].Outcome == "written" && wrote &&
		len(w.requestsWith(fakemodelWriterMarker)) > requests,
		"drain %s; learnings %q", out, titles)
	check(t, "d/writer-leaves-no-session", sessions() == before, "sessions before the drain %d, after %d", before, sessions())
}

// fakemodelWriterMarker finds the writer's requests among the server's.
const fakemodelWriterMarker = "reflect-writer-prompt"

// checkStatusLine runs the status line command from settings through sh,
// as Claude Code does, with the status JSON on stdin and stdout on a pipe.
func checkStatusLine(t *testing.T, w *world, settings, session string) {
	t.Helper()
	data, err := os.ReadFile(settings)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		StatusLine struct {
			Command string `json:"command"`
		} `json:"statusLine"`
	}
	if err := json.Unmarshal(data, &doc); err != nil || doc.StatusLine.Command == "" {
		t.Fatalf("no statusLine in %s: %v", settings, err)
	}
	cmd := exec.Command("sh", "-c", doc.StatusLine.Command)
	cmd.Dir, cmd.Env = w.repo, w.env
	cmd.Stdin = strings.NewReader(`{"session_id":"` + session + `","version":"` + suite.versions.Claude + `"}`)
	out, err := cmd.Output()
	line := strings.TrimSpace(string(out))
	check(t, "e/statusline-brain", err == nil && strings.HasPrefix(line, "🧠 "), "status line %q (%v) from %q", line, err, doc.StatusLine.Command)
}

// saveFixtures copies what this run saw to E2E_SAVE_FIXTURES/<agent>, when
// set: the payloads and the transcript, with the temp paths replaced by a
// neutral home, for refreshing testdata/real after a client bump.
func saveFixtures(t *testing.T, w *world, transcript string) {
	t.Helper()
	dir := os.Getenv("E2E_SAVE_FIXTURES")
	if dir == "" {
		return
	}
	neutral := func(data []byte) []byte {
		s := strings.ReplaceAll(string(data), w.home, "/home/dev")
		s = strings.ReplaceAll(s, filepath.Join(w.root, "src"), "/home/dev/src")
		return []byte(s)
	}
	names, _ := filepath.Glob(filepath.Join(w.capture, "*.json"))
	for _, n := range names {
		data, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		w.write(filepath.Join(dir, "payloads", w.agent, filepath.Base(n)), string(neutral(data)))
	}
	data, err := os.ReadFile(transcript)
	if err != nil {
		t.Fatal(err)
	}
	w.write(filepath.Join(dir, "transcripts", w.agent, filepath.Base(transcript)), string(neutral(data)))
	t.Logf("saved payloads and transcript under %s", dir)
}

// codexConfig points Codex at the fake server and trusts the repository.
func codexConfig(w *world) string {
	return `model = "gpt-fake"
model_provider = "fake"

[model_providers.fake]
name = "fake"
base_url = "` + w.server.URL() + `/v1"
wire_api = "responses"
env_key = "E2E_FAKE_MODEL_KEY"
request_max_retries = 0
stream_max_retries = 0

[projects."` + w.repo + `"]
trust_level = "trusted"
`
}

// codexThread returns the thread (session) id from `codex exec --json`.
func codexThread(t *testing.T, out []byte) (thread string, completed bool) {
	t.Helper()
	for _, line := range strings.Split(string(out), "\n") {
		var ev struct {
			Type     string `json:"type"`
			ThreadID string `json:"thread_id"`
		}
		if json.Unmarshal([]byte(line), &ev) != nil {
			continue
		}
		switch ev.Type {
		case "thread.started":
			thread = ev.ThreadID
		case "turn.completed":
			completed = true
		}
	}
	return thread, completed
}

// codexExec runs `codex exec` headless: JSON events, hooks run without the
// interactive trust step (reflect doctor covers trust), no sandbox (the
// container may not allow one; the commands are the test's own).
func codexExec(w *world, args ...string) []byte {
	base := []string{"exec", "--json", "--dangerously-bypass-hook-trust", "--dangerously-bypass-approvals-and-sandbox", "--skip-git-repo-check"}
	return w.client(append(base, args...)...)
}

func TestCodex(t *testing.T) {
	setup(t)
	w := newWorld(t, "codex")
	codexHome := filepath.Join(w.home, ".codex")
	w.write(filepath.Join(codexHome, "config.toml"), codexConfig(w))
	hooksFile := filepath.Join(codexHome, "hooks.json")
	w.addCaptureHooks(hooksFile, []string{"SessionStart", "UserPromptSubmit", "PostToolUse", "PreCompact", "Stop", "SessionEnd"})

	// (a) a turn completes, running a command that fails.
	thread, completed := codexThread(t, codexExec(w, promptTopic+" Show it to me. FAILCMD:<"+codexFailCmd+">"))
	check(t, "a/turn-completes", thread != "" && completed, "thread %q, completed %v", thread, completed)
	if thread == "" {
		t.FailNow()
	}
	transcript := codexRollout(t, w, thread)

	// (b) hook context arrives as developer messages.
	check(t, "b/session-start-context", w.contextSent("developer", "<reflect-learnings", seedStart),
		"no request carried SessionStart's <reflect-learnings> block")
	check(t, "b/prompt-context", w.contextSent("developer", "<reflect-learnings", seedPrompt),
		"no request carried UserPromptSubmit's <reflect-learnings> block")

	// (c) the failure armed a watcher (from the rollout: Codex's payload
	// has no exit code); the correction writes a mini learning.
	armed := filepath.Join(w.state, "armed")
	check(t, "c/watcher-armed", countFiles(armed, ".json") == 1, "armed watchers in %s: %d", armed, countFiles(armed, ".json"))
	_, completed = codexThread(t, codexExec(w, "resume", thread, "no, the sprocket config is at /var/cache/widget/sprocket.ini, not under /etc"))
	check(t, "a/resumed-turn-completes", completed, "resumed turn did not complete")
	minis := 0
	for _, l := range learnings(t, w.kb) {
		if l.Type == "mini" && strings.Contains(l.Text, "/var/cache/widget/sprocket.ini") {
			minis++
		}
	}
	check(t, "c/mini-learning", minis == 1, "mini learnings about the correction: %d", minis)

	// (d) Stop queued the real rollout.
	q := w.pending()
	check(t, "d/stop-queues", len(q) == 1 && q[0].TranscriptPath == transcript && q[0].Trigger == "stop" && q[0].Harness == "codex",
		"queue %+v, want the rollout %s from stop", q, transcript)

	// codex exec has no /compact: a token limit below what the fake model
	// reports used makes Codex compact before the next turn.
	codexExec(w, "-c", "model_auto_compact_token_limit=50", "resume", thread, "Sum up what we found.")
	checkReplays(t, w, transcript, "precompact-auto")
	checkBuiltinDrain(t, w, transcript)
	sessions := filepath.Join(w.home, ".codex", "sessions")
	checkClientDrain(t, w, "Stop", codexFailCmd, func() int { return countFiles(sessions, ".jsonl") })
	saveFixtures(t, w, transcript)
}

// codexRollout finds the thread's rollout under ~/.codex/sessions.
func codexRollout(t *testing.T, w *world, thread string) string {
	t.Helper()
	var found []string
	_ = filepath.WalkDir(filepath.Join(w.home, ".codex", "sessions"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, thread+".jsonl") {
			found = append(found, p)
		}
		return nil
	})
	if len(found) != 1 {
		t.Fatalf("rollout of thread %s: %v", thread, found)
	}
	return found[0]
}

// TestCodexTrust checks reflect's reading of Codex's hook trust against
// the real Codex: doctor reports every entry untrusted after install, and
// once config.toml trusts the hashes reflect computes, Codex runs the
// hooks without --dangerously-bypass-hook-trust and doctor reports them
// trusted. A hash that differed from Codex's own would leave the hooks
// skipped.
func TestCodexTrust(t *testing.T) {
	setup(t)
	w := newWorld(t, "codex")
	codexHome := filepath.Join(w.home, ".codex")
	w.write(filepath.Join(codexHome, "config.toml"), codexConfig(w))
	hooksFile := filepath.Join(codexHome, "hooks.json")

	untrusted := doctorChecks(t, w)
	trust, err := agents.CodexTrust(hooksFile)
	if err != nil {
		t.Fatal(err)
	}
	allWarn := len(trust) == 7 // SessionStart, UserPromptSubmit, PreToolUse, PostToolUse, PreCompact, Stop, SessionEnd
	for _, h := range trust {
		c := untrusted["codex "+h.Hook]
		allWarn = allWarn && c.Status == "warn" && strings.Contains(c.Fix, "/hooks")
	}
	check(t, "doctor/untrusted-after-install", allWarn, "doctor %+v for entries %+v", untrusted, trust)

	// Without trust Codex skips the hooks silently.
	codexPlain(w, promptTopic+" Nothing to run.")
	check(t, "trust/untrusted-hooks-skipped", !w.contextSent("developer", "<reflect-learnings"),
		"an untrusted hook's context reached the model")

	cfg := codexConfig(w)
	for _, h := range trust {
		cfg += "\n[hooks.state.\"" + h.Key + "\"]\ntrusted_hash = \"" + h.CurrentHash + "\"\n"
	}
	w.write(filepath.Join(codexHome, "config.toml"), cfg)
	codexPlain(w, promptTopic+" Nothing to run.")
	check(t, "trust/trusted-hooks-run", w.contextSent("developer", "<reflect-learnings", seedStart),
		"hooks trusted with reflect's hashes did not run: the hash differs from Codex's")
	trusted := doctorChecks(t, w)
	allOK := true
	for _, h := range trust {
		allOK = allOK && trusted["codex "+h.Hook].Status == "ok"
	}
	check(t, "doctor/trusted", allOK, "doctor %+v", trusted)
}

// codexPlain runs codex exec as a user would: no trust bypass.
func codexPlain(w *world, prompt string) []byte {
	return w.client("exec", "--json", "--dangerously-bypass-approvals-and-sandbox", "--skip-git-repo-check", prompt)
}

type doctorCheck struct {
	Name, Status, Detail, Fix string
}

// doctorChecks runs reflect doctor --json and returns its checks by name.
func doctorChecks(t *testing.T, w *world) map[string]doctorCheck {
	t.Helper()
	out, _ := w.reflectTry("doctor", "--json") // exit 1 on a failed check; the JSON says which
	var rep struct {
		Checks []doctorCheck `json:"checks"`
	}
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("doctor --json: %v\n%s", err, out)
	}
	m := map[string]doctorCheck{}
	for _, c := range rep.Checks {
		m[c.Name] = c
	}
	return m
}
