// Package agents installs reflect into the coding agents: it merges
// reflect's hooks (and Claude Code's status line) into
// ~/.claude/settings.json, ~/.codex/hooks.json, ~/.gemini/settings.json and
// ~/.copilot/settings.json, writes OpenCode's plugin file, registers the
// MCP server in each agent's MCP configuration, and reads whether Codex
// trusts, and Gemini CLI has enabled, the hooks it wrote. Each agent's
// specifics live in one file (claude.go, codex.go, gemini.go, opencode.go,
// copilot.go); install.go is what they share: backup once, dry run with a
// diff, atomic write. Registry (registry.go) lists every agent and where
// each other layer keeps its part (ARCHITECTURE §4, "How to add an agent").
//
// Installers never touch a file they cannot parse, never remove or reorder
// a hook or key the user wrote, and never edit Codex's hook trust. They
// return a Result and print nothing: cmd/reflect renders it. The hooks
// themselves run in package hooks, which this package does not import.
package agents
