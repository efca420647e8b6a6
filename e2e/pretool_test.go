package e2e

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// The pre-tool warning: a learning records `gizmo-check --all` as failing;
// when the model is about to run gizmo-check with other flags, reflect's
// PreToolUse hook (installed by `reflect install`) answers with the
// one-line warning, and the client carries it to the model in the requests
// that follow. gizmo-check does not exist here: the command fails, which
// is beside the point.
const (
	preToolCmd     = "gizmo-check --verbose ./widgets"
	preToolWarning = "`gizmo-check` failed before here"
)

// addGizmoLearning records the failing command and returns the learning's
// id.
func addGizmoLearning(w *world) string {
	out := w.reflectRun("add", "--title", "gizmo-check needs --offline in this repository",
		"--insight", "`gizmo-check --all` fails with exit code 3 without --offline; run gizmo-check --offline.",
		"--project", "widget-service", "--confidence", "high", "--json")
	var added struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(out, &added); err != nil || added.ID == "" {
		w.t.Fatalf("reflect add printed %s (%v)", out, err)
	}
	return added.ID
}

func TestClaudePreTool(t *testing.T) {
	setup(t)
	w := newWorld(t, "claude")
	id := addGizmoLearning(w)
	res := parseClaude(t, w.client("-p", "Check the widgets. FAILCMD:<"+preToolCmd+">", "--output-format", "json", "--allowedTools", "Bash"))
	check(t, "pre-tool/turn-completes", res.Subtype == "success" && !res.IsError, "turn: %+v", res)
	check(t, "pre-tool/warning-reaches-model", len(w.requestsWith(preToolWarning, id)) > 0,
		"no model request carried the pre-tool warning about %s", id)
}

func TestCodexPreTool(t *testing.T) {
	setup(t)
	w := newWorld(t, "codex")
	w.write(filepath.Join(w.home, ".codex", "config.toml"), codexConfig(w))
	id := addGizmoLearning(w)
	thread, completed := codexThread(t, codexExec(w, "Check the widgets. FAILCMD:<"+preToolCmd+">"))
	check(t, "pre-tool/turn-completes", thread != "" && completed, "thread %q, completed %v", thread, completed)
	check(t, "pre-tool/warning-reaches-model", w.contextSent("developer", preToolWarning, id) || len(w.requestsWith(preToolWarning, id)) > 0,
		"no model request carried the pre-tool warning about %s", id)
}

// Copilot CLI: the Copilot SDK documents additionalContext for pre-tool
// hooks; this checks that the CLI's command hooks carry it to the model.
func TestCopilotPreTool(t *testing.T) {
	setup(t)
	bin := filepath.Join(extraClient(t, "copilot", "@github/copilot", suite.versions.Copilot), "copilot")
	w := newWorld(t, "copilot")
	id := addGizmoLearning(w)
	out := w.runAgent(bin, copilotEnv(w), "-p", "Check the widgets. FAILCMD:<"+preToolCmd+">",
		"--session-id", "0e2e0e2e-0000-4000-8000-0000000be701", "--allow-all")
	// Copilot adds the context as a user message after the tool result
	// ("Additional context from preToolUse hook: …"), so the fake model
	// answers it as a new prompt: the turn ends with its plain answer.
	check(t, "pre-tool/turn-completes", strings.Contains(string(out), "gizmo-check") && strings.Contains(string(out), "(fake model)"),
		"turn printed:\n%s", out)
	check(t, "pre-tool/warning-reaches-model", len(w.requestsWith(preToolWarning, id)) > 0,
		"no model request carried the pre-tool warning about %s", id)
}

// Gemini CLI gives BeforeTool hooks no channel to the model, so reflect
// does not register one; its AfterTool hook gives the warning once the
// command has failed, and Gemini appends it to the tool result the model
// reads next (in <hook_context>, with < and > escaped).
func TestGeminiPreTool(t *testing.T) {
	setupGemini(t)
	w := newWorld(t, "gemini")
	geminiSettings(w)
	id := addGizmoLearning(w)
	res := geminiTurn(w, "Check the widgets. FAILCMD:<"+preToolCmd+">", "")
	check(t, "pre-tool/turn-completes", res.SessionID != "" && res.Response != "", "turn: %+v", res)
	check(t, "pre-tool/warning-reaches-model", len(w.requestsWith(preToolWarning, id, "<hook_context>")) > 0,
		"no model request carried the warning about %s in the tool result", id)
}

// OpenCode: tool.execute.before has no channel to the model, so reflect's
// plugin keeps the warning and puts it before the command's output in
// tool.execute.after; the model reads it with the result.
func TestOpenCodePreTool(t *testing.T) {
	setup(t)
	w := newWorld(t, "opencode")
	bin, env := openCode(t, w)
	id := addGizmoLearning(w)
	out := w.runAgent(bin, env, "run", "Check the widgets. FAILCMD:<"+preToolCmd+">")
	check(t, "pre-tool/turn-completes", strings.Contains(string(out), "Ran 1 command"), "turn printed:\n%s", out)
	check(t, "pre-tool/warning-reaches-model", len(w.requestsWith(preToolWarning, id)) > 0,
		"no model request carried the pre-tool warning about %s", id)
}
