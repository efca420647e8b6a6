package queue

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// Reasons Enqueue gives for not queueing a record. They are normal outcomes,
// not errors: hooks log them and go on.
const (
	ReasonNoTranscript      = "no transcript"
	ReasonTranscriptMissing = "transcript not found"
	ReasonEmptyTranscript   = "empty transcript"
	ReasonAlreadyQueued     = "already queued"
	ReasonAlreadyReflected  = "already reflected at this size"
)

// Enqueue appends rec to the queue unless there is nothing new to reflect.
// It assigns rec.ID, and rec.QueuedAt when it is zero. It returns
// queued=false with one of the Reason constants when it skips:
//
//   - the record has no transcript path, or the transcript is missing or empty;
//   - a record for the same session, or the same transcript, is already
//     pending (the drainer reads the transcript when it gets to it, so one
//     pending record per transcript covers every later turn);
//   - processed.jsonl holds an entry for this path at the transcript's
//     current size whose SHA-256 matches the file.
//
// The ledger check compares sizes before it hashes anything. Stop fires after
// every agent turn and transcripts are append-only, so a size that differs
// from every ledger entry already proves new content and costs one stat. Only
// an equal size (typically SessionEnd right after the last Stop) pays for a
// hash, which guards against a transcript rewritten to the same length.
//
// Invalid records (unknown trigger or harness, oversized fields, a relative
// or non-regular transcript path) are errors, as is ErrLocked after LockWait.
func (q *Queue) Enqueue(rec Record) (queued bool, reason string, err error) {
	if rec.TranscriptPath == "" {
		return false, ReasonNoTranscript, nil
	}
	if err := rec.validate(); err != nil {
		return false, "", err
	}
	// The drainer runs in another directory, later: a relative path would
	// point somewhere else by then.
	if !filepath.IsAbs(rec.TranscriptPath) {
		return false, "", fmt.Errorf("enqueue: transcript path %q is not absolute", rec.TranscriptPath)
	}
	// Stat outside the lock to keep the critical section short.
	fi, err := os.Stat(rec.TranscriptPath)
	if errors.Is(err, fs.ErrNotExist) {
		return false, ReasonTranscriptMissing, nil
	}
	if err != nil {
		return false, "", fmt.Errorf("enqueue: %w", err)
	}
	// A FIFO or device would hang or flood the hash and the drainer.
	if !fi.Mode().IsRegular() {
		return false, "", fmt.Errorf("enqueue: transcript %s is not a regular file", rec.TranscriptPath)
	}
	if fi.Size() == 0 {
		return false, ReasonEmptyTranscript, nil
	}

	now := q.now().UTC()
	if rec.ID, err = newID(now); err != nil {
		return false, "", err
	}
	if rec.QueuedAt.IsZero() {
		rec.QueuedAt = now.Truncate(time.Second)
	}
	rec.QueuedAt = rec.QueuedAt.UTC()
	line, err := marshalLine(rec)
	if err != nil {
		return false, "", fmt.Errorf("enqueue: %w", err)
	}

	unlock, err := q.lock(true)
	if err != nil {
		return false, "", err
	}
	defer unlock()

	pending, err := readFile(q.pendingPath)
	if err != nil {
		return false, "", err
	}
	if isPending(pending, rec.SessionID, rec.TranscriptPath) {
		return false, ReasonAlreadyQueued, nil
	}
	ledger, err := readFile(q.processedPath)
	if err != nil {
		return false, "", err
	}
	covered, err := covers(ledger, rec.TranscriptPath, fi.Size(), func() (string, error) {
		// If the file grew since the stat, its hash cannot match an entry
		// of the old size, and queueing it is right: there is new content.
		_, sum, err := HashFile(rec.TranscriptPath)
		return sum, err
	}, true)
	if err != nil {
		return false, "", fmt.Errorf("enqueue: %w", err)
	}
	if covered {
		return false, ReasonAlreadyReflected, nil
	}
	if err := appendLine(q.pendingPath, line); err != nil {
		return false, "", err
	}
	return true, "", nil
}

// isPending reports whether the queue data holds a record for sessionID (when
// not empty) or for transcriptPath. Lines written by other tools with a
// different JSON escaping can be missed; the cost is a duplicate record, which
// the drainer skips through the ledger.
func isPending(data []byte, sessionID, transcriptPath string) bool {
	if len(data) == 0 {
		return false
	}
	match := func(start, end int) bool {
		var r Record
		return json.Unmarshal(data[start:end], &r) == nil &&
			((sessionID != "" && r.SessionID == sessionID) || r.TranscriptPath == transcriptPath)
	}
	if sessionID != "" && scanLines(data, valueNeedle(sessionID), match) {
		return true
	}
	return scanLines(data, valueNeedle(transcriptPath), match)
}
