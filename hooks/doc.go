// Package hooks connects reflect to the coding agents. It owns agent payload
// parsing and per-agent output (Claude Code, Codex and Gemini CLI speak
// slightly different JSON, and Gemini names the events its own way) and the event handlers behind `reflect hook EVENT --agent
// A`. Installing those hooks into the agents' settings is package agents.
//
// It must never break the agent: handlers fail open (exit 0, print nothing or
// `{}`), never call the network and never wait on the drainer.
package hooks
