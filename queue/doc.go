// Package queue owns the reflection queue under the state directory:
// pending_reflections.jsonl (one JSON Record per line), the queue.lock flock
// that serialises every writer, the processed.jsonl ledger of transcripts
// that were already reflected, poison.jsonl (records that failed too often)
// malformed.jsonl (lines that were not records) and spill/ (records of
// hooks that found the queue busy).
//
// Hooks call Enqueue after every agent turn (Stop), so the common path must be
// cheap: it reads the queue and the ledger before it takes the lock, and
// under the lock only what was appended since; it skips a session that is
// already pending and only hashes a transcript when the ledger holds an entry
// of exactly the same path and size.
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
//   - Block a hook for long, or drop its capture. Locks are taken with a
//     bounded wait (LockWait); an Enqueue that times out writes its record to
//     a file of its own under spill/ (atomically, no lock needed), and the
//     next Enqueue that gets the lock, or the drainer's Claim or Compact,
//     folds spilled records into the queue, oldest first. Other operations
//     fail with ErrLocked. Rewrites do their slow work (hashing a
//     transcript) before they take the lock.
//   - Leave a torn line. An append that fails half-way (ENOSPC) is cut back
//     to the file's size before it (fsutil.AppendLine), and no append
//     follows a symlink planted at a queue file.
//   - Use payload strings (session ids, paths) as file names. They are only
//     stored as JSON strings; files that are named after sessions belong to
//     other packages, which sanitise the names.
package queue
