package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// Copilot runs with --allow-all: --allow-all-tools alone still asks before
// a command touches a path outside the repository, and in -p mode nobody
// answers (the command is "Permission denied", no exit status, no watcher).
//
// OpenCode and Copilot CLI run offline against the fake model's Chat
// Completions API: OpenCode through a custom OpenAI-compatible provider in
// its config, Copilot through its BYOK mode with COPILOT_OFFLINE=true (no
// GitHub login). Each is installed on first use into a prefix of its own.

var extra struct {
	mu   sync.Mutex
	bins map[string]string
	errs map[string]string
}

// extraClient installs name's pinned package once and returns the
// directory of its executables, skipping (failing under CI=true) when it
// cannot be had.
func extraClient(t *testing.T, name, pkg, version string) string {
	t.Helper()
	if version == "" {
		t.Skipf("no %s version pinned in versions.env", name)
	}
	extra.mu.Lock()
	defer extra.mu.Unlock()
	if extra.bins == nil {
		extra.bins, extra.errs = map[string]string{}, map[string]string{}
	}
	if _, done := extra.bins[name]; !done && extra.errs[name] == "" {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		bin, reused, err := InstallPackage(ctx, suite.cache, name, pkg, version)
		if err != nil {
			extra.errs[name] = err.Error()
		} else {
			extra.bins[name] = bin
			t.Logf("%s %s (npm cache reused: %v)", pkg, version, reused)
		}
	}
	if e := extra.errs[name]; e != "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s cannot be installed in CI: %s", pkg, e)
		}
		t.Skipf("%s not installed: %s", pkg, e)
	}
	return extra.bins[name]
}

// runAgent runs an agent's executable in the world's repository with the
// world's environment plus env, and returns its stdout.
func (w *world) runAgent(bin string, env []string, args ...string) []byte {
	w.t.Helper()
	w.write(filepath.Join(w.state, "drain-started"), time.Now().UTC().Format(time.RFC3339)+"\n")
	// Later entries win in os/exec: PATH gains the client's directory.
	// PWD is set as a shell would: OpenCode takes its working directory
	// from it, not from the process's, and would otherwise work in the
	// directory go test was started from.
	env = append(append(append([]string(nil), w.env...),
		"PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+filepath.Dir(w.reflect)+string(os.PathListSeparator)+os.Getenv("PATH"),
		"PWD="+w.repo), env...)
	out, err := run(context.Background(), clientTimeout, w.repo, env, bin, args...)
	if err != nil {
		w.t.Fatal(err)
	}
	return out
}

// checkAgentRun asserts (a)–(d) for one agent: runFirst sends a prompt
// that recalls seedPrompt and runs a failing command, runCorrection the
// user's correction in the same session; transcript says where the
// session the hooks queued should be.
func checkAgentRun(t *testing.T, w *world, harness string, runFirst func() []byte, runCorrection func()) {
	t.Helper()
	out := runFirst()
	check(t, "a/turn-completes", strings.Contains(string(out), "Ran 1 command(s)"), "first turn printed:\n%s", out)
	check(t, "b/recall-reaches-model", len(w.requestsWith("reflect-learnings", "sprocket.ini only")) > 0,
		"no model request carried the recalled learning (%d requests)", len(w.server.Requests()))
	pend := w.pending()
	if len(pend) != 1 {
		// What the hooks said, to tell a hook that did not run from one
		// that declined to queue.
		for _, f := range []string{filepath.Join(w.state, "logs", "hooks.log"), filepath.Join(w.state, "last-event.json")} {
			data, _ := os.ReadFile(f)
			t.Logf("%s:\n%s", f, data)
		}
	}
	check(t, "d/queued", len(pend) == 1 && pend[0].Harness == harness && pend[0].TranscriptPath != "",
		"queue after the first turn: %+v", pend)

	runCorrection()
	var mini []learning
	for _, l := range learnings(t, w.kb) {
		if l.Type == "mini" && strings.Contains(l.Text, "harness: "+harness) {
			mini = append(mini, l)
		}
	}
	check(t, "c/mini-learning", len(mini) == 1 && strings.Contains(mini[0].Text, "/var/cache/widget"),
		"mini-learnings after the correction: %+v", mini)
	checkBuiltinDrain(t, w, "")
}

const agentCorrection = "no, use ls /var/cache/widget instead of ls /nonexistent/widget-cache"

func TestOpenCode(t *testing.T) {
	setup(t)
	w := newWorld(t, "opencode")
	bin, env := openCode(t, w)
	var session string
	checkAgentRun(t, w, "opencode",
		func() []byte {
			return w.runAgent(bin, env, "run", promptTopic+" FAILCMD:<"+claudeFailCmd+">")
		},
		func() {
			pend := w.pending()
			if len(pend) == 0 {
				t.Fatal("nothing queued: no session to continue")
			}
			session = pend[0].SessionID
			w.runAgent(bin, env, "run", "--session", session, agentCorrection)
		})
	check(t, "status/lists-opencode", statusAgent(t, w, "opencode").HooksRun, "status: %+v", statusAgent(t, w, "opencode"))
}

func TestCopilot(t *testing.T) {
	setup(t)
	bin := filepath.Join(extraClient(t, "copilot", "@github/copilot", suite.versions.Copilot), "copilot")
	w := newWorld(t, "copilot")
	env := copilotEnv(w)
	const session = "0e2e0e2e-0000-4000-8000-00000000c0de"
	checkAgentRun(t, w, "copilot",
		func() []byte {
			return w.runAgent(bin, env, "-p", promptTopic+" FAILCMD:<"+claudeFailCmd+">", "--session-id", session, "--allow-all")
		},
		func() {
			w.runAgent(bin, env, "-p", agentCorrection, "--resume", session, "--allow-all")
		})
	check(t, "status/lists-copilot", statusAgent(t, w, "copilot").HooksRun, "status: %+v", statusAgent(t, w, "copilot"))
}

// copilotEnv runs Copilot CLI offline against w's fake model (BYOK, no
// GitHub login, no update check).
func copilotEnv(w *world) []string {
	return []string{"COPILOT_OFFLINE=true", "COPILOT_PROVIDER_BASE_URL=" + w.server.URL() + "/v1",
		"COPILOT_PROVIDER_API_KEY=e2e-fake-key", "COPILOT_MODEL=gpt-4.1", "COPILOT_AUTO_UPDATE=false",
		"COPILOT_GITHUB_TOKEN=", "GH_TOKEN=", "GITHUB_TOKEN="}
}

// openCode installs the pinned OpenCode and points it at w's fake model
// server through an OpenAI-compatible provider in its user config; it
// returns the executable and the environment to run it with.
func openCode(t *testing.T, w *world) (bin string, env []string) {
	t.Helper()
	bin = filepath.Join(extraClient(t, "opencode", "opencode-ai", suite.versions.OpenCode), "opencode")
	w.write(filepath.Join(w.home, ".config", "opencode", "opencode.json"), `{
  "$schema": "https://opencode.ai/config.json",
  "autoupdate": false,
  "share": "disabled",
  "model": "fake/fake-model",
  "provider": {"fake": {"npm": "@ai-sdk/openai-compatible", "name": "Fake",
    "options": {"baseURL": "`+w.server.URL()+`/v1", "apiKey": "e2e-fake-key"},
    "models": {"fake-model": {"name": "Fake model"}}}}
}
`)
	// OpenCode installs its provider packages (@ai-sdk/openai-compatible)
	// from npm into its cache directory on first use: under each world's
	// fresh HOME that was an install per run, 70–220 s on a busy VM and past
	// clientTimeout under load. One cache for the suite keeps it to once;
	// it holds packages and model lists, no configuration.
	cache := filepath.Join(suite.cache, "opencode-cache")
	return bin, []string{"OPENCODE_DISABLE_AUTOUPDATE=1", "OPENCODE_DISABLE_SHARE=1", "XDG_CACHE_HOME=" + cache,
		"OPENCODE_DISABLE_MODELS_FETCH=1", "OPENCODE_DISABLE_LSP_DOWNLOAD=1", "OPENCODE_DISABLE_DEFAULT_PLUGINS=1"}
}

type agentStatus struct {
	Agent     string `json:"agent"`
	Installed bool   `json:"installed"`
	HooksRun  bool   `json:"hooks_run"`
	Version   string `json:"version"`
}

// statusAgent is agent's entry in `reflect status --json`.
func statusAgent(t *testing.T, w *world, agent string) agentStatus {
	t.Helper()
	var st struct {
		Agents []agentStatus `json:"agents"`
	}
	out := w.reflectRun("status", "--json")
	if err := json.Unmarshal(out, &st); err != nil {
		t.Fatalf("status --json: %v\n%s", err, out)
	}
	for _, a := range st.Agents {
		if a.Agent == agent {
			return a
		}
	}
	return agentStatus{}
}

// TestOpenCodeMCP: OpenCode, with reflect's MCP server registered by
// `reflect mcp install opencode` in the opencode.json that already holds
// the user's provider, offers reflect's tools (as reflect_<tool>) and
// calls search and remember mid-turn: their answers go back to the model
// and the learning is on disk.
func TestOpenCodeMCP(t *testing.T) {
	setup(t)
	w := newWorld(t, "opencode")
	bin, env := openCode(t, w)
	w.reflectRun("mcp", "install", "opencode")
	var cfg struct {
		Model string `json:"model"`
		MCP   map[string]struct {
			Type    string   `json:"type"`
			Command []string `json:"command"`
		} `json:"mcp"`
	}
	data, err := os.ReadFile(filepath.Join(w.home, ".config", "opencode", "opencode.json"))
	if err == nil {
		err = json.Unmarshal(data, &cfg)
	}
	check(t, "mcp/installed", err == nil && cfg.Model == "fake/fake-model" && len(cfg.MCP["reflect"].Command) == 2 &&
		cfg.MCP["reflect"].Command[0] == w.reflect, "opencode.json: %v %s", err, data)

	out := w.runAgent(bin, env, "run", mcpPrompt("reflect_search", "reflect_remember"))
	checkMCPCalls(t, w, w.toolResults(), string(out))
}

// TestCopilotMCP: Copilot CLI, with reflect's MCP server registered by
// `reflect mcp install copilot`, offers reflect's tools and calls search
// and remember mid-turn: their answers go back to the model and the
// learning is on disk.
func TestCopilotMCP(t *testing.T) {
	setup(t)
	bin := filepath.Join(extraClient(t, "copilot", "@github/copilot", suite.versions.Copilot), "copilot")
	w := newWorld(t, "copilot")
	w.reflectRun("mcp", "install", "copilot")
	out := w.runAgent(bin, copilotEnv(w), "-p", mcpPrompt("reflect-search", "reflect-remember"), "--allow-all")
	checkMCPCalls(t, w, w.toolResults(), string(out))
}
