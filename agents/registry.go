package agents

// Agent is one coding agent reflect supports, and where each layer keeps
// its part of it. An agent's support is spread over the layers by design
// (each layer imports only the ones below it, ARCHITECTURE §2), so this is
// the one place that lists them all: each layer that treats agents
// differently has a table with one entry per agent, and the entry lives
// in the file named here. registry_test.go fails until every table has an
// entry for every agent here, under the same name and in the file named,
// and no table has one for an agent that is not here. The paths are from
// the module root.
type Agent struct {
	// Name is the agent's --agent value, queue harness (queue.Harnesses)
	// and transcript format name.
	Name string
	// Display is the agent's own name, for people.
	Display string
	// Installer is the file in this package with its agentSpec (listed in
	// registry, install.go): the hooks (or plugin), MCP server entry and
	// status line it installs, and whether the agent runs them.
	Installer string
	// Hooks is the file with its entry in package hooks' harnesses
	// (hooks/harness.go): what its payloads and answers do differently
	// from Claude Code's.
	Hooks string
	// Transcript is the file with its format's entry in package
	// transcript's formats (transcript/format.go) and its parser.
	Transcript string
	// Backfill is the file with its entry in package backfill's sources
	// (backfill/locate.go): where it keeps past sessions.
	Backfill string
	// Importer is the file with its entry in package importer's natives
	// (importer/native.go): the instruction files it loads itself.
	Importer string
	// Writer is the file with its entry in drain/writer's agentWriters
	// (drain/writer/select.go) and its Writer, or "" when its CLI does not
	// write learnings.
	Writer string
	// Doctor is the file with its entry in doctor's hookChecks
	// (doctor/doctor.go), a check per installed hook, or "" when the
	// agent's status (Installer's hooksRun) says it all.
	Doctor string
	// E2E is the real-client test that drives it (e2e, "file:TestName"),
	// and Model the fake model API its client speaks (e2e/fakemodel).
	E2E, Model string
}

// Registry lists every agent reflect supports, in the order status and
// doctor show them; every layer's table follows it.
var Registry = []Agent{
	{
		Name: "claude", Display: "Claude Code",
		Installer:  "agents/claude.go",
		Hooks:      "hooks/claude.go",
		Transcript: "transcript/claude.go",
		Backfill:   "backfill/claude.go",
		Importer:   "importer/claude.go",
		Writer:     "drain/writer/claude.go",
		E2E:        "e2e/e2e_test.go:TestClaude",
		Model:      "e2e/fakemodel/fakemodel.go",
	},
	{
		Name: "codex", Display: "Codex CLI",
		Installer:  "agents/codex.go",
		Hooks:      "hooks/codex_rollout.go",
		Transcript: "transcript/codex.go",
		Backfill:   "backfill/codex.go",
		Importer:   "importer/codex.go",
		Writer:     "drain/writer/codex.go",
		Doctor:     "doctor/codex.go",
		E2E:        "e2e/e2e_test.go:TestCodex",
		Model:      "e2e/fakemodel/fakemodel.go",
	},
	{
		Name: "gemini", Display: "Gemini CLI",
		Installer:  "agents/gemini.go",
		Hooks:      "hooks/gemini.go",
		Transcript: "transcript/gemini.go",
		Backfill:   "backfill/gemini.go",
		Importer:   "importer/gemini.go",
		Doctor:     "doctor/gemini.go",
		E2E:        "e2e/gemini_test.go:TestGemini",
		Model:      "e2e/fakemodel/gemini.go",
	},
	{
		Name: "opencode", Display: "OpenCode",
		Installer:  "agents/opencode.go",
		Hooks:      "hooks/opencode.go",
		Transcript: "transcript/opencode.go",
		Backfill:   "backfill/opencodedb.go",
		Importer:   "importer/opencode.go",
		E2E:        "e2e/agents_test.go:TestOpenCode",
		Model:      "e2e/fakemodel/chat.go",
	},
	{
		Name: "copilot", Display: "GitHub Copilot CLI",
		Installer:  "agents/copilot.go",
		Hooks:      "hooks/copilot.go",
		Transcript: "transcript/copilot.go",
		Backfill:   "backfill/copilot.go",
		Importer:   "importer/copilot.go",
		E2E:        "e2e/agents_test.go:TestCopilot",
		Model:      "e2e/fakemodel/chat.go",
	},
}
