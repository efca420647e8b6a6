// Package drain turns queued transcripts into learnings: for each claimed
// queue entry it condenses the transcript (package transcript), hands it to
// a writer (package drain/writer), and writes the drafts through store and
// index before the queue entry is acked. One drainer runs at a time,
// within daily budgets.
//
// Files: run.go (Run: the lock, budgets, claiming), entry.go (one entry
// from claim to ack, retry or poison), candidates.go (the existing
// learnings an LLM writer is shown, to answer update, supersede or new),
// learnings.go (drafts to documents, the writer's answer checked and
// applied, near-duplicates updated), signals.go and counted.go (what the
// session says of the learnings: confirmed, refuted, stale) and ledger.go
// (cost ledger, drain.log, the last report). Its settings arrive as Options, filled by the command layer:
// the package reads neither the configuration nor the environment.
//
// It must never lose a queue entry (an entry leaves the queue only after
// its learnings are written and indexed), never write a secret to disk,
// and never let a writer run without REFLECT_DISABLE=1, which would make
// the headless agent's own hooks reflect on the reflection.
package drain
