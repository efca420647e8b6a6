package agents

// Agent is one coding agent reflect supports, and where each layer keeps
// its part of it. An agent's support is spread over the layers by design
// (each layer imports only the ones below it, ARCHITECTURE §2), so this is
// the one place that lists them all: adding an agent starts here, and
// registry_test.go fails until every layer knows the new name. The paths
// are from the module root.
type Agent struct {
	// Name is the agent's --agent value, queue harness and transcript
	// format name.
	Name string
	// Display is the agent's own name, for people.
	Display string
	// Installer is the file in this package that installs its hooks (or
	// plugin), MCP server entry and status line.
	Installer string
	// Hooks are the files where the hooks handle what differs in its
	// payload or its answer from Claude Code's, which is the default
	// (hooks/payload.go parses every agent's payload).
	Hooks []string
	// Transcript is its transcript format's reader in package transcript.
	Transcript string
	// Writer is the drain writer that runs its CLI (drain/writer), or ""
	// when it is not one.
	Writer string
	// E2E is the real-client test that drives it (e2e, "file:TestName"),
	// and Model the fake model API its client speaks (e2e/fakemodel).
	E2E, Model string
}

// Registry lists every agent reflect supports, in the order status and
// doctor show them; Names and the hooks' --agent values follow it.
var Registry = []Agent{
	{
		Name: "claude", Display: "Claude Code",
		Installer:  "agents/claude.go",
		Transcript: "transcript/claude.go",
		Writer:     "drain/writer/claude.go",
		E2E:        "e2e/e2e_test.go:TestClaude",
		Model:      "e2e/fakemodel/fakemodel.go",
	},
	{
		Name: "codex", Display: "Codex CLI",
		Installer:  "agents/codex.go",
		Hooks:      []string{"hooks/codex_rollout.go"},
		Transcript: "transcript/codex.go",
		Writer:     "drain/writer/codex.go",
		E2E:        "e2e/e2e_test.go:TestCodex",
		Model:      "e2e/fakemodel/fakemodel.go",
	},
	{
		Name: "gemini", Display: "Gemini CLI",
		Installer:  "agents/gemini.go",
		Hooks:      []string{"hooks/payload.go", "internal/geminishell/geminishell.go"},
		Transcript: "transcript/gemini.go",
		E2E:        "e2e/gemini_test.go:TestGemini",
		Model:      "e2e/fakemodel/gemini.go",
	},
	{
		Name: "opencode", Display: "OpenCode",
		Installer:  "agents/opencode.go",
		Hooks:      []string{"hooks/opencode.go", "agents/opencode_plugin.js"},
		Transcript: "transcript/opencode.go",
		E2E:        "e2e/agents_test.go:TestOpenCode",
		Model:      "e2e/fakemodel/chat.go",
	},
	{
		Name: "copilot", Display: "GitHub Copilot CLI",
		Installer:  "agents/copilot.go",
		Hooks:      []string{"hooks/output.go", "hooks/run.go"},
		Transcript: "transcript/copilot.go",
		E2E:        "e2e/agents_test.go:TestCopilot",
		Model:      "e2e/fakemodel/chat.go",
	},
}
