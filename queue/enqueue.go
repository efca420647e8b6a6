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
// When queue.lock is still held after LockWait, the record is not dropped:
// it is written to its own file under spill/ (queued=true, ReasonSpilled),
// and the next Enqueue that gets the lock, or the drainer, folds it in.
//
// Invalid records (unknown trigger or harness, oversized fields, a relative
// or non-regular transcript path) are errors.
func (q *Queue) Enqueue(rec Record) (queued bool, reason string, err error) {
	size, reason, err := checkTranscript(rec)
	if reason != "" || err != nil {
		return false, reason, err
	}
	line, err := q.stamp(&rec)
	if err != nil {
		return false, "", err
	}
	c, err := q.precheck(rec, size)
	if err != nil {
		return false, "", err
	}

	unlock, err := q.lock(true)
	if errors.Is(err, ErrLocked) {
		// Never drop a capture because the queue is busy: keep the record
		// where the next enqueue or the drainer folds it in.
		if err := q.spill(rec, line); err != nil {
			return false, "", err
		}
		return true, ReasonSpilled, nil
	}
	if err != nil {
		return false, "", err
	}
	defer unlock()
	return q.appendUnlessKnown(rec, line, c)
}

// checkTranscript validates rec and stats its transcript, returning the
// transcript's size, or a Reason when there is nothing to queue.
func checkTranscript(rec Record) (size int64, reason string, err error) {
	if rec.TranscriptPath == "" {
		return 0, ReasonNoTranscript, nil
	}
	if err := rec.validate(); err != nil {
		return 0, "", err
	}
	// The drainer runs in another directory, later: a relative path would
	// point somewhere else by then.
	if !filepath.IsAbs(rec.TranscriptPath) {
		return 0, "", fmt.Errorf("enqueue: transcript path %q is not absolute", rec.TranscriptPath)
	}
	// Stat outside the lock to keep the critical section short.
	fi, err := os.Stat(rec.TranscriptPath)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, ReasonTranscriptMissing, nil
	}
	if err != nil {
		return 0, "", fmt.Errorf("enqueue: %w", err)
	}
	// A FIFO or device would hang or flood the hash and the drainer.
	if !fi.Mode().IsRegular() {
		return 0, "", fmt.Errorf("enqueue: transcript %s is not a regular file", rec.TranscriptPath)
	}
	if fi.Size() == 0 {
		return 0, ReasonEmptyTranscript, nil
	}
	return fi.Size(), "", nil
}

// stamp assigns rec its ID and, when zero, its QueuedAt, and returns the
// queue line for it.
func (q *Queue) stamp(rec *Record) ([]byte, error) {
	now := q.now().UTC()
	var err error
	if rec.ID, err = newID(now); err != nil {
		return nil, err
	}
	if rec.QueuedAt.IsZero() {
		rec.QueuedAt = now.Truncate(time.Second)
	}
	rec.QueuedAt = rec.QueuedAt.UTC()
	line, err := marshalLine(*rec)
	if err != nil {
		return nil, fmt.Errorf("enqueue: %w", err)
	}
	return line, nil
}

// enqueueCheck is what Enqueue learnt before taking the lock: snapshots of
// the queue and the ledger, and whether either already knew the transcript.
type enqueueCheck struct {
	path       string
	size       int64
	sum        string
	pend       snapshot
	ledger     snapshot
	wasPending bool
	wasCovered bool
}

// hash returns the transcript's SHA-256, hashing it at most once.
func (c *enqueueCheck) hash() (string, error) {
	// If the file grew since the stat, its hash cannot match an entry
	// of the old size, and queueing it is right: there is new content.
	if c.sum == "" {
		_, s, err := HashFile(c.path)
		if err != nil {
			return "", err
		}
		c.sum = s
	}
	return c.sum, nil
}

// precheck reads everything that can be read without the lock.
func (q *Queue) precheck(rec Record, size int64) (*enqueueCheck, error) {
	// Everything that can be read without the lock is: the queue and the
	// ledger go into snapshots, and the transcript is hashed if the ledger
	// has an entry of its size. Under the lock only what was appended since
	// is read (catchUp), so the locked section stays short however long the
	// queue and the ledger have grown: were each reader in turn to read
	// both files whole under the lock, Stop hooks arriving together would
	// wait for one another past LockWait.
	c := &enqueueCheck{path: rec.TranscriptPath, size: size}
	var err error
	if c.pend, err = readSnapshot(q.pendingPath); err != nil {
		return nil, err
	}
	if c.ledger, err = readSnapshot(q.processedPath); err != nil {
		return nil, err
	}
	c.wasPending = isPending(c.pend.data, rec.SessionID, rec.TranscriptPath)
	if !c.wasPending {
		if c.wasCovered, err = covers(c.ledger.data, rec.TranscriptPath, size, c.hash, true); err != nil {
			return nil, fmt.Errorf("enqueue: %w", err)
		}
	}
	return c, nil
}

// appendUnlessKnown, called under the lock, reads what was appended to the
// queue and the ledger since precheck and appends line unless the record is
// already pending or already reflected.
func (q *Queue) appendUnlessKnown(rec Record, line []byte, c *enqueueCheck) (bool, string, error) {
	fresh, replaced, err := c.pend.catchUp(q.pendingPath)
	if err != nil {
		return false, "", err
	}
	// Records spilled by hooks that found the lock busy go in first, in the
	// order those hooks ran; one of them may make this record a duplicate.
	// A failure to fold leaves the rest spilled for the drainer; what was
	// folded is in pend.data either way.
	caughtUp := len(c.pend.data) - len(fresh)
	_ = q.foldSpilled(&c.pend.data)
	fresh = c.pend.data[caughtUp:]
	if (c.wasPending && !replaced) || isPending(fresh, rec.SessionID, rec.TranscriptPath) {
		return false, ReasonAlreadyQueued, nil
	}
	fresh, replaced, err = c.ledger.catchUp(q.processedPath)
	if err != nil {
		return false, "", err
	}
	covered := c.wasCovered && !replaced
	if !covered {
		if covered, err = covers(fresh, rec.TranscriptPath, c.size, c.hash, true); err != nil {
			return false, "", fmt.Errorf("enqueue: %w", err)
		}
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
