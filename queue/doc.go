// Package queue owns the reflection queue under the state directory:
// pending_reflections.jsonl (one JSON Record per line), the queue.lock flock
// that serialises every writer, and the processed.jsonl ledger of transcripts
// that were already reflected.
//
// Hooks call Enqueue after every agent turn (Stop), so the common path must be
// cheap: it reads the queue once, skips a session that is already pending and
// only hashes a transcript when the ledger holds an entry of exactly the same
// path and size.
//
// What it must never do:
//   - Lose a line. Appends are one write of the whole line with O_APPEND,
//     made under the exclusive lock by a file opened after the lock was taken,
//     so a rewrite (Drop, later compaction) that renames a new file into place
//     can never swallow an append. Lines it cannot parse are kept verbatim and
//     reported by List, never dropped.
//   - Block a hook for long. Locks are taken with a bounded wait (LockWait);
//     after it an operation fails with ErrLocked and the hook fails open. A
//     missed enqueue heals itself: the next hook of the session finds the
//     transcript uncovered and queues it again.
//   - Use payload strings (session ids, paths) as file names. They are only
//     stored as JSON strings; files that are named after sessions belong to
//     other packages, which sanitise the names.
package queue
