package queue

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"
	"unicode/utf8"

	"github.com/reflectkb/reflect/internal/fsutil"
)

// CompactStats says what a compaction changed.
type CompactStats struct {
	Records    int // records left in the queue
	Blank      int // blank lines removed
	Duplicates int // records merged into an older record of the same transcript
	Malformed  int // lines moved to malformed.jsonl
	// LedgerPruned counts processed.jsonl entries dropped because they can
	// no longer cover anything (see Compact).
	LedgerPruned int
}

// Compact tidies the queue and prunes the ledger. The drainer calls it once
// per run; Claim compacts the queue file by itself, but not the ledger.
//
// In the queue it removes blank lines, merges duplicate records and moves
// malformed lines to malformed.jsonl.
//
// Duplicates are records of the same transcript_path. The drainer reflects a
// file, reading it whole when it gets to it, so one record per file covers
// all of it, whatever session id or trigger the others carry. The oldest
// record survives, in its place in the queue, with its id, queued_at and
// fields; it takes the highest attempts and the latest not_before of the
// group, so that a duplicate of a failing entry neither resets its count
// towards poison.jsonl nor cuts its backoff short. A survivor that did not
// change keeps its bytes.
//
// The rewrite reads, edits and renames the file in one hold of the exclusive
// lock that appends also take, so no append made meanwhile can be lost; a
// queue with nothing to tidy is not rewritten at all. Malformed lines are
// appended to malformed.jsonl before the queue is replaced: a crash in
// between leaves a line in both files, never in neither.
//
// In the ledger it keeps, for each transcript, only the last entry, and
// drops the entries of transcripts that no longer exist. An Enqueue that
// finds no pending record reads the whole ledger under the lock, and the
// ledger would otherwise grow by a line per reflection forever, and each
// Enqueue slow down with it. Neither kind can cover anything in practice: transcripts only grow, so an older entry's size is gone for
// good, and Enqueue skips a missing transcript before it reads the ledger.
// The cost of being wrong is one more reflection of the same content.
func (q *Queue) Compact() (CompactStats, error) {
	var st CompactStats
	if _, err := os.Stat(q.pendingPath); err == nil || len(q.spilled()) > 0 {
		if st, err = q.compactQueue(); err != nil {
			return st, fmt.Errorf("compact: %w", err)
		}
	}
	n, err := q.pruneLedger()
	if err != nil {
		return st, fmt.Errorf("compact ledger: %w", err)
	}
	st.LedgerPruned = n
	return st, nil
}

func (q *Queue) compactQueue() (CompactStats, error) {
	unlock, err := q.lock(true)
	if err != nil {
		return CompactStats{}, err
	}
	defer unlock()
	if err := q.foldSpilled(nil); err != nil {
		return CompactStats{}, err
	}
	data, err := readFile(q.pendingPath)
	if err != nil {
		return CompactStats{}, err
	}
	_, st, err := q.compactLocked(data)
	return st, err
}

// compactLocked compacts data, the queue file as read under the exclusive
// lock the caller holds, and returns the records that remain in file order.
func (q *Queue) compactLocked(data []byte) ([]Record, CompactStats, error) {
	type kept struct {
		raw     []byte
		rec     Record
		changed bool
	}
	var st CompactStats
	var keep []kept
	var moved []byte
	byPath := map[string]int{}
	lines := parseLines(data)
	st.Blank = countLines(data) - len(lines)
	movedAt := q.now().UTC()
	for _, l := range lines {
		if l.reason != "" {
			entry, err := malformedLine(l, movedAt)
			if err != nil {
				return nil, st, err
			}
			moved = append(moved, entry...)
			st.Malformed++
			continue
		}
		i, dup := byPath[l.rec.TranscriptPath]
		if !dup {
			byPath[l.rec.TranscriptPath] = len(keep)
			keep = append(keep, kept{raw: l.raw, rec: l.rec})
			continue
		}
		st.Duplicates++
		k := &keep[i]
		if l.rec.Attempts > k.rec.Attempts {
			k.rec.Attempts, k.changed = l.rec.Attempts, true
		}
		if l.rec.NotBefore != nil && (k.rec.NotBefore == nil || l.rec.NotBefore.After(*k.rec.NotBefore)) {
			k.rec.NotBefore, k.changed = l.rec.NotBefore, true
		}
	}

	out := make([]byte, 0, len(data))
	recs := make([]Record, 0, len(keep))
	for _, k := range keep {
		if k.changed {
			line, err := patchRecord(k.raw, k.rec)
			if err != nil {
				return nil, st, err
			}
			out = append(out, line...)
		} else {
			out = append(out, k.raw...)
			out = append(out, '\n')
		}
		recs = append(recs, k.rec)
	}
	st.Records = len(keep)
	if bytes.Equal(out, data) {
		return recs, st, nil
	}
	if len(moved) > 0 {
		if err := appendLine(q.malformedPath, moved); err != nil {
			return nil, st, err
		}
	}
	if err := fsutil.WriteAtomic(q.pendingPath, out, fsutil.FilePerm); err != nil {
		return nil, st, err
	}
	return recs, st, nil
}

// countLines counts the lines of data, blank ones and an unterminated last
// one included.
func countLines(data []byte) int {
	n := bytes.Count(data, []byte{'\n'})
	if len(data) > 0 && data[len(data)-1] != '\n' {
		n++
	}
	return n
}

// Malformed is a line that was moved out of the queue because it is not a
// usable record (see BadLine), as ListMalformed returns it.
type Malformed struct {
	Line    int       `json:"line"`   // its 1-based line number in the queue when it was moved
	Text    string    `json:"text"`   // the line as it was stored, without its newline
	Reason  string    `json:"reason"` // why it is not a record
	MovedAt time.Time `json:"moved_at"`
}

// malformedEntry is a line of malformed.jsonl. JSON strings cannot carry
// invalid UTF-8 (the encoder replaces it), so such a line is also kept in
// base64, which keeps it verbatim.
type malformedEntry struct {
	Malformed
	Base64 string `json:"text_base64,omitempty"`
}

func malformedLine(l line, at time.Time) ([]byte, error) {
	e := malformedEntry{Malformed: Malformed{Line: l.no, Text: string(l.raw), Reason: l.reason, MovedAt: at}}
	if !utf8.Valid(l.raw) {
		e.Base64 = base64.StdEncoding.EncodeToString(l.raw)
	}
	return marshalLine(e)
}

// ListMalformed returns the lines that Claim or Compact moved out of the
// queue, oldest first, so that `reflect queue list` can say that some were
// set aside and where. Lines of malformed.jsonl that do not decode are
// skipped.
func (q *Queue) ListMalformed() ([]Malformed, error) {
	if _, err := os.Stat(q.malformedPath); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	unlock, err := q.lock(false)
	if err != nil {
		return nil, err
	}
	defer unlock()
	data, err := readFile(q.malformedPath)
	if err != nil {
		return nil, err
	}
	var out []Malformed
	for len(data) > 0 {
		var l []byte
		l, data, _ = bytes.Cut(data, []byte{'\n'})
		var e malformedEntry
		if json.Unmarshal(l, &e) != nil {
			continue
		}
		if e.Base64 != "" {
			if raw, err := base64.StdEncoding.DecodeString(e.Base64); err == nil {
				e.Text = string(raw)
			}
		}
		out = append(out, e.Malformed)
	}
	return out, nil
}

// pruneLedger drops the ledger entries Compact describes and returns how
// many. Decoding the ledger and stating its transcripts take a while, so
// they happen before the lock is taken; under the lock the ledger is read
// again and only rewritten if it still starts with what was examined.
// Appends keep it that way (lines they added are kept), and only another
// Compact could break it, whose pruning is then as good as this one.
func (q *Queue) pruneLedger() (int, error) {
	old, err := readFile(q.processedPath)
	if err != nil || len(old) == 0 {
		return 0, err
	}
	return q.dropLedgerLines(old, ledgerDrops(old))
}

// dropLedgerLines removes the lines of old (the ledger as it was examined)
// that start at the offsets in drop, under the lock, if the ledger still
// starts with old.
func (q *Queue) dropLedgerLines(old []byte, drop map[int]bool) (int, error) {
	if len(drop) == 0 {
		return 0, nil
	}
	unlock, err := q.lock(true)
	if err != nil {
		return 0, err
	}
	defer unlock()
	cur, err := readFile(q.processedPath)
	if err != nil {
		return 0, err
	}
	if !bytes.HasPrefix(cur, old) {
		return 0, nil
	}
	out := make([]byte, 0, len(cur))
	for off := 0; off < len(old); {
		end := len(old)
		if i := bytes.IndexByte(old[off:], '\n'); i >= 0 {
			end = off + i + 1
		}
		if !drop[off] {
			out = append(out, old[off:end]...)
		}
		off = end
	}
	out = append(out, cur[len(old):]...)
	if err := fsutil.WriteAtomic(q.processedPath, out, fsutil.FilePerm); err != nil {
		return 0, err
	}
	return len(drop), nil
}

// ledgerDrops returns the offsets of the ledger lines to drop: entries of a
// path that has a later entry, and entries of a transcript that is gone.
// Lines that do not decode are kept: they cover nothing and cost little,
// and a human may want to see them.
func ledgerDrops(data []byte) map[int]bool {
	type entry struct {
		off  int
		path string
	}
	var entries []entry
	last := map[string]int{} // path → offset of its last entry
	for off := 0; off < len(data); {
		raw := data[off:]
		next := len(data)
		if i := bytes.IndexByte(raw, '\n'); i >= 0 {
			raw, next = raw[:i], off+i+1
		}
		var p Processed
		if json.Unmarshal(raw, &p) == nil && p.Path != "" {
			entries = append(entries, entry{off, p.Path})
			last[p.Path] = off
		}
		off = next
	}
	gone := map[string]bool{}
	for path := range last {
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			gone[path] = true
		}
	}
	drop := map[int]bool{}
	for _, e := range entries {
		if gone[e.path] || last[e.path] != e.off {
			drop[e.off] = true
		}
	}
	return drop
}
