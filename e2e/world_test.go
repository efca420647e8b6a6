package e2e

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/reflectkb/reflect/e2e/fakemodel"
)

// Generous per-step timeouts: CI is a busy two-core machine. Nothing is
// asserted about how long a step takes. A client's first run can install
// packages of its own (OpenCode's provider, once per suite cache): under
// stress-ng that took more than 3 minutes.
const (
	clientTimeout = 6 * time.Minute
	reflectTimout = time.Minute
)

// world is one isolated installation: a temp HOME with reflect's hooks
// installed for one client, reflect's state and knowledge base, a git
// repository with seeded learnings, and the fake model server.
type world struct {
	t       *testing.T
	agent   string // claude | codex | gemini
	root    string
	home    string
	state   string
	kb      string
	repo    string
	capture string // payloads the capture hooks saved
	reflect string // the reflect binary
	server  *fakemodel.Server
	env     []string
}

// The seeded learnings. seedStart matches the repository (its name and
// commit subject), so SessionStart recalls it; seedPrompt shares no word
// with the repository but matches the prompts, so only UserPromptSubmit
// recalls it.
const (
	seedStart  = "Widget cache lives in /var/cache/widget"
	seedPrompt = "Sprocket reads its configuration from sprocket.ini"
	// promptTopic is in every first prompt, to recall seedPrompt. In a
	// two-learning KB every word but "sprocket" is common, so the prompt
	// names two of the learning's words (sprocket, reads): "Where is the
	// sprocket configuration?" alone stays under the relevance floor
	// calibrated on the labelled set (docs/ranking.md, "Recall quality").
	// It names sprocket.ini too: the first prompts also hold a command on
	// the widget cache, and a prompt that matches two learnings alike is
	// one the gate's veto keeps silent (docs/ranking.md, "The injection
	// gate").
	promptTopic = "Where does sprocket read its configuration from? Is it sprocket.ini?"
)

// The failing commands the first prompts ask for.
const (
	claudeFailCmd = "ls /nonexistent/widget-cache"
	codexFailCmd  = "cat /etc/sprocket/codex.ini"
)

func newWorld(t *testing.T, agent string) *world {
	t.Helper()
	root := t.TempDir()
	w := &world{
		t: t, agent: agent, root: root,
		home:    filepath.Join(root, "home"),
		state:   filepath.Join(root, "state"),
		kb:      filepath.Join(root, "kb"),
		repo:    filepath.Join(root, "src", "widget-service"),
		capture: filepath.Join(root, "capture"),
		reflect: suite.reflect,
	}
	for _, d := range []string{w.home, w.repo, w.capture} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	srv, err := fakemodel.Start(filepath.Join(root, "requests.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// Registered after t.TempDir, so run before its removal: a client's
		// children that outlive it (OpenCode's, under load) would still be
		// writing into the world while it is removed.
		endStragglers(t, root)
		srv.Close()
		// Keep the last run's model requests for reading after a failure.
		if data, err := os.ReadFile(filepath.Join(root, "requests.jsonl")); err == nil && suite.cache != "" {
			_ = os.WriteFile(filepath.Join(suite.cache, "last-"+agent+"-requests.jsonl"), data, 0o600)
		}
	})
	w.server = srv
	w.env = w.environ(os.Environ())

	w.git("init", "-q", "-b", "main")
	w.write(filepath.Join(w.repo, "README.md"), "# widget-service\n")
	w.git("add", "README.md")
	w.git("-c", "user.name=e2e", "-c", "user.email=e2e@example.com", "commit", "-q", "-m", "widget cache service")

	w.reflectRun("add", "--title", seedStart,
		"--insight", "The widget cache is under /var/cache/widget, never under /nonexistent; list it with ls /var/cache/widget.",
		"--tags", "widget,cache", "--category", "configuration", "--project", "widget-service", "--confidence", "high")
	w.reflectRun("add", "--title", seedPrompt,
		"--insight", "The sprocket daemon reads sprocket.ini only; codex.ini and gizmo.conf are ignored.",
		"--tags", "sprocket,configuration", "--category", "configuration", "--scope", "global", "--confidence", "high")
	w.reflectRun("install", agent)
	return w
}

// environ is the environment every process of the world runs with: the
// parent's, minus anything that could reach a real configuration or
// account, plus the world's directories and the fake server.
func (w *world) environ(parent []string) []string {
	drop := []string{"HOME=", "REFLECT_", "CLAUDE_", "CODEX_", "ANTHROPIC_", "OPENAI_", "GEMINI_", "GOOGLE_", "XDG_", "PATH="}
	var env []string
	for _, kv := range parent {
		keep := true
		for _, p := range drop {
			keep = keep && !strings.HasPrefix(kv, p)
		}
		if keep {
			env = append(env, kv)
		}
	}
	return append(env,
		"HOME="+w.home,
		"PATH="+strings.Join(append(clientDirs(), filepath.Dir(w.reflect), os.Getenv("PATH")), string(os.PathListSeparator)),
		"REFLECT_STATE_DIR="+w.state,
		"REFLECT_LEARNINGS_DIR="+w.kb,
		"REFLECT_EMBEDDER=hash",
		"ANTHROPIC_BASE_URL="+w.server.URL(),
		"ANTHROPIC_API_KEY=sk-ant-e2e-fake-key",
		"DISABLE_AUTOUPDATER=1", "DISABLE_TELEMETRY=1", "DISABLE_ERROR_REPORTING=1",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"E2E_FAKE_MODEL_KEY=e2e-fake-key",
		// Gemini CLI: the Gemini API at the fake server with an API key,
		// and the repository trusted (headless runs refuse an untrusted
		// folder).
		"GEMINI_API_KEY=e2e-fake-key",
		"GOOGLE_GEMINI_BASE_URL="+w.server.URL(),
		"GEMINI_CLI_TRUST_WORKSPACE=true",
		"NO_COLOR=1",
	)
}

func (w *world) write(path, content string) {
	w.t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		w.t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		w.t.Fatal(err)
	}
}

func (w *world) git(args ...string) {
	w.t.Helper()
	if _, err := run(context.Background(), reflectTimout, w.repo, w.env, "git", args...); err != nil {
		w.t.Fatal(err)
	}
}

// reflectRun runs the reflect binary and returns its stdout.
func (w *world) reflectRun(args ...string) []byte {
	w.t.Helper()
	out, err := w.reflectTry(args...)
	if err != nil {
		w.t.Fatal(err)
	}
	return out
}

func (w *world) reflectTry(args ...string) ([]byte, error) {
	return run(context.Background(), reflectTimout, w.repo, w.env, w.reflect, args...)
}

// clientDirs are the directories holding the installed clients.
func clientDirs() []string {
	dirs := []string{suite.clientBin}
	if suite.geminiBin != "" {
		dirs = append(dirs, suite.geminiBin)
	}
	return dirs
}

// client runs the world's client binary in the repository.
func (w *world) client(args ...string) []byte {
	w.t.Helper()
	return w.clientAs(w.agent, args...)
}

// clientAs runs another agent's client in the world (the cross-agent
// test runs two in one HOME).
func (w *world) clientAs(agent string, args ...string) []byte {
	w.t.Helper()
	// A SessionStart hook starts a background drain when the queue is not
	// empty, at most every ten minutes: a fresh stamp keeps drains where
	// the test runs them.
	w.write(filepath.Join(w.state, "drain-started"), time.Now().UTC().Format(time.RFC3339)+"\n")
	bin := suite.clientBin
	if agent == "gemini" {
		bin = suite.geminiBin
	}
	out, err := run(context.Background(), clientTimeout, w.repo, w.env, filepath.Join(bin, agent), args...)
	if err != nil {
		w.t.Fatal(err)
	}
	return out
}

// addCaptureHooks adds, beside reflect's entries (which stay exactly as
// installed), one hook per event that saves the payload the client sends,
// so the suite can replay real payloads and keep them as fixtures.
func (w *world) addCaptureHooks(settings string, events []string) {
	w.t.Helper()
	data, err := os.ReadFile(settings)
	if err != nil {
		w.t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		w.t.Fatal(err)
	}
	hooks := doc["hooks"].(map[string]any)
	timeout := 5
	if w.agent == "gemini" {
		timeout = 5000 // milliseconds
	}
	for _, ev := range events {
		groups, _ := hooks[ev].([]any)
		cmd := "cat > " + shellQuote(w.capture) + "/$(date +%s%N)-" + ev + ".json"
		groups = append(groups, map[string]any{"hooks": []any{map[string]any{"type": "command", "command": cmd, "timeout": timeout}}})
		hooks[ev] = groups
	}
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		w.t.Fatal(err)
	}
	w.write(settings, string(out)+"\n")
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// captured returns the payloads saved for event, oldest first.
func (w *world) captured(event string) [][]byte {
	w.t.Helper()
	names, _ := filepath.Glob(filepath.Join(w.capture, "*-"+event+".json"))
	sort.Strings(names)
	var out [][]byte
	for _, n := range names {
		data, err := os.ReadFile(n)
		if err != nil {
			w.t.Fatal(err)
		}
		out = append(out, data)
	}
	return out
}

// pending returns the queue's records.
func (w *world) pending() []queueRecord {
	w.t.Helper()
	var out []queueRecord
	for _, line := range readLines(w.t, filepath.Join(w.state, "pending_reflections.jsonl")) {
		var r queueRecord
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			w.t.Fatalf("queue line %q: %v", line, err)
		}
		out = append(out, r)
	}
	return out
}

type queueRecord struct {
	TranscriptPath string `json:"transcript_path"`
	SessionID      string `json:"session_id"`
	Trigger        string `json:"trigger"`
	Harness        string `json:"harness"`
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	return out
}

// learning is a document of the knowledge base, as `reflect list --json`
// would show it; the suite reads the files directly.
type learning struct {
	ID, Type, Title, Text string
}

// learnings reads every document in kb.
func learnings(t *testing.T, kb string) []learning {
	t.Helper()
	names, _ := filepath.Glob(filepath.Join(kb, "documents", "*.md"))
	var out []learning
	for _, n := range names {
		data, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		l := learning{ID: strings.TrimSuffix(filepath.Base(n), ".md"), Text: string(data)}
		for _, line := range strings.Split(string(data), "\n") {
			if v, ok := strings.CutPrefix(line, "type: "); ok && l.Type == "" {
				l.Type = strings.Trim(strings.TrimSpace(v), `"'`)
			}
			if v, ok := strings.CutPrefix(line, "title: "); ok && l.Title == "" {
				l.Title = strings.Trim(strings.TrimSpace(v), `"'`)
			}
		}
		out = append(out, l)
	}
	return out
}

// contextSent reports whether a request to the model carried a message of
// role (Claude: system, Codex: developer) holding every one of needles:
// how hook context reaches the model.
func (w *world) contextSent(role string, needles ...string) bool {
	for _, r := range w.server.Requests() {
		var body struct {
			Messages []struct {
				Role    string          `json:"role"`
				Content json.RawMessage `json:"content"`
			} `json:"messages"`
			Input []struct {
				Role    string          `json:"role"`
				Content json.RawMessage `json:"content"`
			} `json:"input"`
		}
		if json.Unmarshal(r.Body, &body) != nil {
			continue
		}
		for _, m := range append(body.Messages, body.Input...) {
			if m.Role != role {
				continue
			}
			var text string
			if json.Unmarshal(m.Content, &text) != nil {
				text = string(m.Content) // blocks: their JSON holds the text
			}
			all := true
			for _, n := range needles {
				all = all && strings.Contains(text, n)
			}
			if all {
				return true
			}
		}
	}
	return false
}

// requestsWith returns the model requests whose body contains every one of
// needles.
func (w *world) requestsWith(needles ...string) []fakemodel.Request {
	var out []fakemodel.Request
	for _, r := range w.server.Requests() {
		body := string(r.Body)
		all := true
		for _, n := range needles {
			all = all && strings.Contains(body, n)
		}
		if all {
			out = append(out, r)
		}
	}
	return out
}

// countFiles counts regular files under dir whose name ends with suffix.
func countFiles(dir, suffix string) int {
	n := 0
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, suffix) {
			n++
		}
		return nil
	})
	return n
}

// replayInto runs `reflect hook EVENT` with a captured payload against a
// fresh state directory and returns that directory's queue.
func (w *world) replayInto(event string, payload []byte) []queueRecord {
	w.t.Helper()
	fresh := *w
	fresh.state = filepath.Join(w.t.TempDir(), "state")
	fresh.env = append(append([]string(nil), w.env...), "REFLECT_STATE_DIR="+fresh.state)
	cmd := exec.Command(w.reflect, "hook", event, "--agent", w.agent)
	cmd.Dir, cmd.Env = w.repo, fresh.env
	cmd.Stdin = strings.NewReader(string(payload))
	if out, err := cmd.CombinedOutput(); err != nil {
		w.t.Fatalf("reflect hook %s: %v\n%s", event, err, out)
	}
	return fresh.pending()
}

// endStragglers waits, up to a minute, for the processes still working in
// root (by their current directory, which children inherit) to exit, then
// kills the rest. Linux only: elsewhere it finds none.
func endStragglers(t *testing.T, root string) {
	deadline := time.Now().Add(time.Minute)
	for {
		pids := processesIn(root)
		if len(pids) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Logf("killing %d process(es) still working in %s: %v", len(pids), root, pids)
			for _, pid := range pids {
				if p, err := os.FindProcess(pid); err == nil {
					_ = p.Kill()
				}
			}
			time.Sleep(time.Second)
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// processesIn lists the processes whose current directory is root or
// below it.
func processesIn(root string) []int {
	ents, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		cwd, err := os.Readlink(filepath.Join("/proc", e.Name(), "cwd"))
		if err == nil && (cwd == root || strings.HasPrefix(cwd, root+string(os.PathSeparator))) {
			pids = append(pids, pid)
		}
	}
	return pids
}
