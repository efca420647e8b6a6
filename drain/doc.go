// Package drain turns queued transcripts into learnings: it condenses a
// Claude Code or Codex transcript (redacted, bounded, without injected
// <reflect-learnings> blocks), hands it to a Writer (claude, codex, builtin
// or any command), validates the JSON that comes back, and writes the
// learnings through store and index before the queue entry is acked. One
// drainer runs at a time, within daily budgets.
//
// It must never lose a queue entry (an entry leaves the queue only after
// its learnings are written and indexed), never write a secret to disk,
// and never let a writer run without REFLECT_DISABLE=1, which would make
// the headless agent's own hooks reflect on the reflection.
package drain
