// Package queue owns the reflection queue under the state directory:
// pending_reflections.jsonl (one JSON Record per line), the queue.lock flock
// that serialises every writer, the processed.jsonl ledger of transcripts
// that were already reflected, poison.jsonl (records that failed too often)
// and malformed.jsonl (lines that were not records).
//
// Hooks call Enqueue after every agent turn (Stop), so the common path must be
// cheap: it reads the queue once, skips a session that is already pending and
// only hashes a transcript when the ledger holds an entry of exactly the same
// path and size.
//
// The single drainer consumes it: Claim returns due records without removing
// them, and each one then leaves through Ack (reflected: ledger entry, and a
// fresh record if the transcript grew meanwhile) or Retry (backoff, then
// poison.jsonl after max attempts). Requeue re-arms a waiting or poisoned
// record for `reflect queue retry`.
//
// What it must never do:
//   - Lose a line. Appends are one write of the whole line with O_APPEND,
//     made under the exclusive lock by a file opened after the lock was taken,
//     so a rewrite (Drop, Ack, Retry, Requeue, Compact) that reads, edits and
//     renames a new file into place under the same lock can never swallow an
//     append. A record that moves to another file is written there before it
//     leaves the queue. Lines it cannot parse are kept verbatim: List reports
//     them, and Claim and Compact move them to malformed.jsonl so that they
//     neither block the queue nor vanish.
//   - Block a hook for long. Locks are taken with a bounded wait (LockWait);
//     after it an operation fails with ErrLocked and the hook fails open. A
//     missed enqueue heals itself: the next hook of the session finds the
//     transcript uncovered and queues it again. Rewrites do their slow work
//     (hashing a transcript) before they take the lock.
//   - Use payload strings (session ids, paths) as file names. They are only
//     stored as JSON strings; files that are named after sessions belong to
//     other packages, which sanitise the names.
package queue
