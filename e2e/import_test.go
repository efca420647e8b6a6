package e2e

import (
	"encoding/json"
	"path/filepath"
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
