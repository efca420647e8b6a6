// Package importer reads the instruction and memory files people already
// keep — CLAUDE.md, AGENTS.md, GEMINI.md, Cursor rules, Copilot
// instructions, Claude Code's auto memory, Codex's memories, a memory-bank
// folder — and turns each rule or section into a learning of type rule,
// with a source naming the file and line. One file per source format;
// finding the files each tool keeps is sources.go. Which files an agent
// loads by itself, so recall leaves their rules out for it (Session.Loads
// in native.go), is one entry per agent in the agent's file: claude.go,
// codex.go, gemini.go, opencode.go, copilot.go.
//
// Sources are untrusted: they are read through a bounded reader (regular
// files only, a size cap) and redacted before anything is made of them,
// and they are never written. Writing the learnings is package knowledge's
// (Base.Import).
package importer
