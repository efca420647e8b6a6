package e2e

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"testing"
)

// A rule imported from the repository's AGENTS.md reaches a Claude Code
// session through reflect's hooks (Claude Code does not read AGENTS.md),
// and not a Codex session through them: Codex loads AGENTS.md itself, so
// reflect must not inject it a second time.
const (
	importedRule = "Rebuild the sprocket gearbox with make gearbox-sprocket before testing the widget service."
	// importedMark is in the rule and nowhere else in the world.
	importedMark = "gearbox-sprocket"
	importPrompt = promptTopic + " And how do I rebuild the sprocket gearbox?"
)

// importAgents writes AGENTS.md into the world's repository and imports it.
func importAgents(t *testing.T, w *world) {
	t.Helper()
	w.write(filepath.Join(w.repo, "AGENTS.md"), "# AGENTS.md\n\n## Build\n\n- "+importedRule+"\n")
	var rep struct {
		Added int `json:"added"`
	}
	out := w.reflectRun("import", "--json")
	if err := json.Unmarshal(out, &rep); err != nil || rep.Added != 1 {
		t.Fatalf("reflect import printed %s (%v), want 1 added", out, err)
	}
}

func TestImportedRuleReachesClaude(t *testing.T) {
	setup(t)
	w := newWorld(t, "claude")
	importAgents(t, w)
	res := parseClaude(t, w.client("-p", importPrompt, "--output-format", "json"))
	check(t, "import/turn-completes", res.Subtype == "success" && !res.IsError, "turn: %+v", res)
	check(t, "import/hooks-inject", w.contextSent("system", "<reflect-learnings", seedPrompt),
		"no request carried the prompt's <reflect-learnings> block")
	check(t, "import/rule-reaches-claude", w.contextSent("system", "<reflect-learnings", importedMark),
		"no <reflect-learnings> block carried the rule imported from AGENTS.md")
}

func TestImportedRuleNotInjectedIntoCodex(t *testing.T) {
	setup(t)
	w := newWorld(t, "codex")
	w.write(filepath.Join(w.home, ".codex", "config.toml"), codexConfig(w))
	importAgents(t, w)
	thread, completed := codexThread(t, codexExec(w, importPrompt))
	check(t, "import/turn-completes", thread != "" && completed, "thread %q, completed %v", thread, completed)
	check(t, "import/hooks-inject", w.contextSent("developer", "<reflect-learnings", seedPrompt),
		"no request carried the prompt's <reflect-learnings> block")
	check(t, "import/codex-loads-agents-md", len(w.requestsWith(importedMark)) > 0,
		"no request carried AGENTS.md: Codex did not load it")
	check(t, "import/not-injected-again", !w.contextSent("developer", "<reflect-learnings", importedMark),
		"a <reflect-learnings> block carried the rule Codex already loads from AGENTS.md")
}

// memoryDir is where Claude Code's system prompt tells its model to keep
// the project's auto memory.
var memoryDir = regexp.MustCompile("persistent file-based memory at `([^`]+)`")

// Claude Code's auto memory, written by Claude Code's own Write tool where
// and in the form its system prompt asks the model for (a topic file with
// name, description and metadata.type, a one-line pointer in MEMORY.md):
// `reflect import --from claude-memory` finds it for the repository and
// makes the topic file a learning titled by its description, leaving the
// pointer out.
func TestClaudeAutoMemoryImport(t *testing.T) {
	setup(t)
	w := newWorld(t, "claude")
	w.client("-p", "hello", "--output-format", "json")
	var dir string
	for _, r := range w.server.Requests() {
		var body struct {
			System json.RawMessage `json:"system"`
		}
		if json.Unmarshal(r.Body, &body) != nil {
			continue
		}
		var text string
		if json.Unmarshal(body.System, &text) != nil {
			var blocks []struct{ Text string }
			_ = json.Unmarshal(body.System, &blocks)
			for _, b := range blocks {
				text += b.Text
			}
		}
		if m := memoryDir.FindStringSubmatch(text); m != nil {
			dir = m[1]
		}
	}
	if dir == "" {
		t.Fatal("no request told the model where the auto memory is")
	}
	topic := "---\nname: sprocket-restart\ndescription: Restart sprocketd after changing sprocket.ini\nmetadata:\n  type: feedback\n---\n\n" +
		"Restart sprocketd after every change to sprocket.ini: it reads the file only when it starts.\n\n" +
		"**Why:** a stale configuration cost the user an hour.\n**How to apply:** run systemctl restart sprocketd after editing sprocket.ini.\n"
	index := "- [Sprocket restart](sprocket-restart.md) — restart sprocketd after config edits\n"
	call := func(path, content string) string {
		args, _ := json.Marshal(map[string]string{"file_path": path, "content": content})
		return "TOOLCALL:<Write " + string(args) + ">"
	}
	res := parseClaude(t, w.client("-p", "Remember this. "+call(filepath.Join(dir, "sprocket-restart.md"), topic)+" "+call(filepath.Join(dir, "MEMORY.md"), index),
		"--output-format", "json", "--allowedTools", "Write"))
	check(t, "memory/turn-completes", res.Subtype == "success" && !res.IsError, "turn: %+v", res)
	var rep struct {
		Sources []struct {
			Name  string `json:"name"`
			Kind  string `json:"kind"`
			Rules int    `json:"rules"`
		} `json:"sources"`
		Learnings []struct {
			Title  string `json:"title"`
			Action string `json:"action"`
		} `json:"learnings"`
	}
	out := w.reflectRun("import", "--from", "claude-memory", "--json")
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("reflect import printed %s (%v)", out, err)
	}
	check(t, "memory/found", len(rep.Sources) == 2 && rep.Sources[0].Kind == "claude-memory",
		"sources %+v, want the auto memory's MEMORY.md and topic file", rep.Sources)
	check(t, "memory/imported", len(rep.Learnings) == 1 && rep.Learnings[0].Action == "added" &&
		rep.Learnings[0].Title == "Restart sprocketd after changing sprocket.ini",
		"learnings %+v, want the topic file titled by its description (the pointer left out)", rep.Learnings)
}
