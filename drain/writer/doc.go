// Package writer holds the writers that turn a condensed transcript
// (package transcript) into draft learnings, behind the Writer interface:
// claude (`claude -p`), codex (`codex exec`), command (any executable
// reading the transcript on stdin) and builtin (fixed rules, no model),
// one file each. writer.go holds what the LLM writers share: the prompt,
// the parsing and bounding of the JSON answer (ARCHITECTURE §6) and the
// guarded child process (REFLECT_DISABLE=1, own process group, output
// caps, timeouts). candidates.go carries the existing learnings the
// drainer found near the session's failures into the LLM writers' prompt
// (WithCandidates), so that a writer answers per learning "update": id,
// "supersedes": id, or neither for a new one. Select picks the writer a
// Choice names.
//
// The package reads no configuration: the command layer fills a Choice.
// It never writes to the knowledge base; the drainer does.
package writer
