// Package backfill turns the sessions agents kept before reflect's hooks
// saw them into queue records, so that past work becomes learnings
// through the normal pipeline: the queue, the drainer, the writer the
// user chose and its caps. It runs no writer and spends nothing itself.
//
// It finds each agent's sessions where the agent keeps them (locate.go
// walks the places each agent's source names, one source per agent in the
// agent's file: claude.go, codex.go, gemini.go, copilot.go, and
// opencodedb.go, where OpenCode's database is first copied into the files
// reflect's plugin writes),
// plans what a backfill would queue (plan.go: each session streamed
// through transcript.Condense, so a session of any size costs bounded
// memory, and checked against the queue, the processed ledger and its
// own record, backfill.json in the state directory: state.go), and
// queues the plan's new sessions with queue.Enqueue, as the Stop and
// SessionEnd hooks do (enqueue.go).
//
// A session is queued at most once per content: a session already
// queued, reflected at its size, or backfilled at its size and time is
// left alone, and one still being written is left for the next run.
// The package reads no configuration and prints nothing.
package backfill
