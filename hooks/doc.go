// Package hooks connects reflect to the coding agents. It owns agent payload
// parsing and per-agent output (Claude Code and Codex speak slightly
// different JSON), the event handlers behind `reflect hook EVENT --agent A`,
// and the installers that merge those hooks into ~/.claude/settings.json and
// ~/.codex/hooks.json.
//
// It must never break the agent: handlers fail open (exit 0, print nothing or
// `{}`), never call the network and never wait on the drainer; installers
// never touch a file they cannot parse, never remove or reorder a hook or key
// the user wrote, and never edit Codex's config.toml or hook trust.
package hooks
