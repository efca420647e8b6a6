// Package hooks connects reflect to the coding agents. It owns agent payload
// parsing and per-agent output and the event handlers behind `reflect hook
// EVENT --agent A`. Every agent speaks Claude Code's JSON but for what its
// harness entry says (harness.go; one entry per agent, in the agent's
// file: Gemini CLI names the events its own way, Copilot CLI reads a flat
// answer, OpenCode's plugin sends the session, Codex's rollout holds the
// exit code). Installing those hooks into the agents' settings is package
// agents.
//
// It must never break the agent: handlers fail open (exit 0, print nothing or
// `{}`), never call the network and never wait on the drainer.
package hooks
