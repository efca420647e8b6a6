// Reflect gives coding agents (Claude Code, Codex CLI, Gemini CLI, OpenCode
// and Copilot CLI) a shared, local, long-term memory of learnings: what
// failed, what fixed it, what the user corrected.
//
// Hooks installed into the agents ("reflect install
// claude|codex|gemini|opencode|copilot") capture each session into a queue;
// "reflect drain" turns the queued transcripts into markdown learnings
// under ~/.learnings/documents; a hybrid index under
// ~/.learnings/index (full text, BM25F, trigram, vectors, an entity graph),
// derived from those files and rebuilt at any time with "reflect reindex",
// recalls the relevant ones at session start and with every prompt.
//
// Usage:
//
//	reflect <command> [flags]
//
// The everyday commands are search, add, list, show, forget, graph, status,
// doctor and queue; "reflect help" lists them all and "reflect help
// environment" the settings. docs/cli.md is the full reference and
// ARCHITECTURE.md the map of the code.
//
// This package only wires cobra commands to the domain packages: flags in,
// formatted output and exit codes out. It is the only package that prints.
package main
