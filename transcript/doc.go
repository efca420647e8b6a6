// Package transcript reads the session transcripts coding agents write and
// condenses them for reflect's writers: Condense streams a transcript and
// returns a Condensed session (prompts, failed tool calls and the runs
// that fixed them, corrections, the assistant's last word per turn, files
// touched), every string redacted and bounded, with the
// <reflect-learnings> blocks reflect injected stripped out. A transcript
// of any size costs the same bounded memory.
//
// The package knows agents' file formats and nothing about queues,
// writers or the knowledge base, so the drainer and the hooks can both use
// it. It reads no configuration.
//
// # Files
//
//   - condensed.go: the result types (Condensed, Event).
//   - format.go: the format table (formats), one entry per agent, each
//     in the agent's file: its name, detect and parser.
//   - condense.go: Condense, format detection, and the builder every
//     format feeds: it pairs failures with their fixes, keeps the bounds
//     and renders the text a writer reads.
//   - text.go: redaction-safe windows, error heads, command keys.
//   - claude.go: Claude Code session JSONL.
//   - codex.go: Codex rollout JSONL, and FindCodexCompletion, which the
//     hooks use to read a shell command's exit code from a rollout's tail.
//   - gemini.go: Gemini CLI chat JSONL (~/.gemini/tmp/<project>/chats).
//   - opencode.go: reflect's copy of an OpenCode session (OpenCode keeps
//     sessions in its database; the hook writes the copy, hooks/opencode.go).
//   - copilot.go: GitHub Copilot CLI's session-state/<id>/events.jsonl.
//
// # Adding a format
//
// One file per agent, named after it (gemini.go, opencode.go):
//
//  1. A parser holding the builder and its own pending state (tool calls
//     awaiting results), with a method that takes one record and calls the
//     builder in transcript order: meta (session id, cwd, branch), prompt
//     (what the user typed), assistant (a message; closeTurn ends a turn),
//     tool (a call with its result: exit code, failed, output) and touched
//     (a file the session edited). Ignore what you do not understand:
//     formats drift, and a partial condensation beats none.
//  2. Its format entry in the same file (claudeFormat shows one): the
//     harness name, detect (how surely a record is one of its own, read
//     from the fields of probe, so an unnamed transcript is detected; 0
//     when its records cannot be told) and parser; then the entry in
//     formats (format.go). A format that is not JSON lines reads the file
//     itself and feeds the builder the same way.
//  3. Tests beside it (claude_test.go shows the helpers), a small fixture
//     in testdata/, and a real transcript under testdata/real at the
//     repository root when one can be recorded.
//
// The builder decides what is kept; a format only translates.
//
// Records are decoded with github.com/go-json-experiment/json/v1, not
// encoding/json: the same API and behaviour (names matched without regard
// to case, the last of duplicate names wins, invalid UTF-8 replaced), on
// a decoder that reads a record once where encoding/json validates it
// whole and then decodes it again. Decoding is most of what condensing
// costs, and backfill condenses a user's whole history before it spends
// anything. testdata/golden holds the output on every fixture, mangled
// too, so a change of decoder cannot change a byte the drain sends.
package transcript
