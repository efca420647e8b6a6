package queue

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/gofrs/flock"

	"github.com/reflectkb/reflect/internal/fsutil"
)

// Files under the state directory (ARCHITECTURE §3).
const (
	pendingFile   = "pending_reflections.jsonl"
	lockFile      = "queue.lock"
	processedFile = "processed.jsonl"
	poisonFile    = "poison.jsonl"
	malformedFile = "malformed.jsonl"
)

// LockWait bounds how long an operation waits for queue.lock. Hooks have a
// 1.5 s budget in total; a queue that stays locked longer than this is stuck
// or very busy, and failing (open) beats stalling the agent.
const LockWait = time.Second

var (
	// ErrLocked means queue.lock was still held by someone else after LockWait.
	ErrLocked = errors.New("queue is locked by another process")
	// ErrNotFound means no pending record has the requested id.
	ErrNotFound = errors.New("queue entry not found")
)

// Queue is the reflection queue of one state directory. It holds no open
// files: every operation opens, locks and closes what it needs, so a Queue
// is cheap to create and safe to use from many processes at once.
type Queue struct {
	dir           string
	pendingPath   string
	lockPath      string
	processedPath string
	poisonPath    string
	malformedPath string

	lockWait time.Duration    // LockWait; tests shorten or stretch it
	now      func() time.Time // time.Now; tests pin it
}

// BadLine is a line of the queue file that does not hold a usable record. It
// is reported rather than dropped: it may be a record a newer version wrote,
// or the remains of a crash that a human wants to look at.
type BadLine struct {
	Line   int    // 1-based line number in pending_reflections.jsonl
	Text   string // the line as stored, without its newline
	Reason string // why it was rejected
}

// Open returns the queue of stateDir. It creates nothing: read-only callers
// such as the status line must not litter a fresh machine with state, so
// the directory and files appear on the first write.
func Open(stateDir string) (*Queue, error) {
	if stateDir == "" {
		return nil, errors.New("open queue: empty state directory")
	}
	if fi, err := os.Stat(stateDir); err == nil && !fi.IsDir() {
		return nil, fmt.Errorf("open queue: %s is not a directory", stateDir)
	}
	return &Queue{
		dir:           stateDir,
		pendingPath:   filepath.Join(stateDir, pendingFile),
		lockPath:      filepath.Join(stateDir, lockFile),
		processedPath: filepath.Join(stateDir, processedFile),
		poisonPath:    filepath.Join(stateDir, poisonFile),
		malformedPath: filepath.Join(stateDir, malformedFile),
		lockWait:      LockWait,
		now:           time.Now,
	}, nil
}

// List returns the pending records in file order, and separately the lines
// that could not be read as records. It takes the shared lock so that an
// append in flight is not mistaken for a bad line.
func (q *Queue) List() ([]Record, []BadLine, error) {
	if _, err := os.Stat(q.pendingPath); errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	unlock, err := q.lock(false)
	if err != nil {
		return nil, nil, err
	}
	defer unlock()
	data, err := readFile(q.pendingPath)
	if err != nil {
		return nil, nil, err
	}
	var recs []Record
	var bad []BadLine
	for _, l := range parseLines(data) {
		if l.reason != "" {
			bad = append(bad, BadLine{Line: l.no, Text: string(l.raw), Reason: l.reason})
			continue
		}
		recs = append(recs, l.rec)
	}
	return recs, bad, nil
}

// Drop removes the pending record with the given id. The queue is rewritten
// under the exclusive lock to a temp file that is renamed into place; every
// other line, malformed ones included, is kept byte for byte.
func (q *Queue) Drop(id string) error {
	notFound := fmt.Errorf("drop %q: %w", id, ErrNotFound)
	if id == "" {
		return notFound
	}
	unlock, err := q.lock(true)
	if err != nil {
		return err
	}
	defer unlock()
	data, err := readFile(q.pendingPath)
	if err != nil {
		return err
	}
	// Only lines that contain the encoded id are decoded: a rewrite holds
	// the lock that every hook waits for, so it must not decode the queue.
	var out []byte
	kept, found := 0, false // data[:kept] is settled
	scanLines(data, valueNeedle(id), func(start, end int) bool {
		var r Record
		if json.Unmarshal(data[start:end], &r) == nil && r.ID == id {
			out = append(out, data[kept:start]...)
			kept = min(end+1, len(data))
			found = true
		}
		return false
	})
	if !found {
		return notFound
	}
	out = append(out, data[kept:]...)
	if err := fsutil.WriteAtomic(q.pendingPath, out, fsutil.FilePerm); err != nil {
		return fmt.Errorf("drop %q: %w", id, err)
	}
	return nil
}

// Depth counts the non-blank lines of the queue, malformed ones included
// (they wait for a human just as records wait for the drainer), and the
// records spilled while the queue was busy. It takes no
// lock and reports 0 on any error, because the status line calls it on
// every refresh and must never wait or fail.
func (q *Queue) Depth() int {
	// Spilled records are queued too; they join the file at the next
	// enqueue or drain.
	n := len(q.spilled())
	data, err := fsutil.ReadRegular(q.pendingPath, math.MaxInt32)
	if err != nil {
		return n
	}
	for len(data) > 0 {
		var l []byte
		l, data, _ = bytes.Cut(data, []byte{'\n'})
		if len(bytes.TrimSpace(l)) > 0 {
			n++
		}
	}
	return n
}

// lock takes queue.lock, exclusive for writers and shared for readers, and
// returns its release.
//
// It waits in a blocking flock(2) rather than polling: the kernel wakes a
// waiter the moment the lock is released, whereas a poller sleeping between
// tries loses the race, again and again, to a process that unlocks and
// relocks in a loop, so appending processes could starve each other past
// LockWait. A blocked flock(2) cannot be
// cancelled, so after LockWait the call is abandoned to a goroutine that
// releases the lock as soon as it gets it; a hook exits soon anyway, and the
// kernel drops the request with the process.
func (q *Queue) lock(exclusive bool) (unlock func(), err error) {
	if err := fsutil.EnsurePrivateDir(q.dir); err != nil {
		return nil, err
	}
	fl := flock.New(q.lockPath, flock.SetPermissions(fsutil.FilePerm))
	try, take := fl.TryRLock, fl.RLock
	if exclusive {
		try, take = fl.TryLock, fl.Lock
	}
	// Uncontended, which is nearly always, costs no goroutine or timer.
	if ok, err := try(); err != nil {
		return nil, fmt.Errorf("lock %s: %w", q.lockPath, err)
	} else if ok {
		return func() { _ = fl.Unlock() }, nil
	}

	done := make(chan error, 1)
	go func() { done <- take() }()
	timer := time.NewTimer(q.lockWait)
	defer timer.Stop()
	select {
	case err := <-done:
		if err != nil {
			return nil, fmt.Errorf("lock %s: %w", q.lockPath, err)
		}
		return func() { _ = fl.Unlock() }, nil
	case <-timer.C:
		go func() {
			if <-done == nil {
				_ = fl.Unlock()
			}
		}()
		return nil, fmt.Errorf("%w: %s still held after %s", ErrLocked, q.lockPath, q.lockWait)
	}
}

// line is one non-blank line of the queue file.
type line struct {
	no     int    // 1-based line number
	raw    []byte // as stored, without the newline
	rec    Record
	reason string // non-empty when the line is not a usable record
}

func parseLines(data []byte) []line {
	var out []line
	for no := 1; len(data) > 0; no++ {
		var raw []byte
		raw, data, _ = bytes.Cut(data, []byte{'\n'})
		if len(bytes.TrimSpace(raw)) == 0 {
			continue
		}
		l := line{no: no, raw: raw}
		if err := json.Unmarshal(raw, &l.rec); err != nil {
			l.reason = err.Error()
		} else if l.rec.ID == "" {
			// Without an id the drainer cannot ack it nor a user drop it.
			l.reason = "record has no id"
		} else if l.rec.TranscriptPath == "" {
			// Nothing to reflect: every attempt would fail the same way.
			l.reason = "record has no transcript_path"
		}
		out = append(out, l)
	}
	return out
}

// scanLines calls fn with the bounds of each line of data (without its
// newline) that contains needle, until fn returns true. Searching the whole
// buffer for the needle keeps the hot path linear in the file size instead of
// decoding every line.
func scanLines(data, needle []byte, fn func(start, end int) bool) bool {
	for off := 0; off < len(data); {
		i := bytes.Index(data[off:], needle)
		if i < 0 {
			return false
		}
		i += off
		start := bytes.LastIndexByte(data[:i], '\n') + 1
		end := len(data)
		if j := bytes.IndexByte(data[i:], '\n'); j >= 0 {
			end = i + j
		}
		if fn(start, end) {
			return true
		}
		off = end + 1
	}
	return false
}

// findRecord returns the bounds (as scanLines gives them) and the record of
// the first line of data that decodes to a record with this id. Only lines
// that contain the encoded id are decoded: rewrites hold the lock that every
// hook waits for, so they must not decode the whole queue.
func findRecord(data []byte, id string) (start, end int, rec Record, found bool) {
	if id == "" {
		return 0, 0, Record{}, false
	}
	found = scanLines(data, valueNeedle(id), func(s, e int) bool {
		var r Record
		if json.Unmarshal(data[s:e], &r) == nil && r.ID == id {
			start, end, rec = s, e, r
			return true
		}
		return false
	})
	return start, end, rec, found
}

// splice returns a copy of data with the line data[start:end] and its
// newline replaced by repl (a whole line with its newline, or nil to delete
// it). Every other byte is kept, so the rest of the file survives a rewrite
// byte for byte.
func splice(data []byte, start, end int, repl []byte) []byte {
	rest := data[min(end+1, len(data)):]
	out := make([]byte, 0, len(data)-(end-start)+len(repl))
	out = append(out, data[:start]...)
	out = append(out, repl...)
	return append(out, rest...)
}

// readFile returns the content of path, or nil when it does not exist yet.
// A FIFO planted there is refused instead of blocking the hook.
func readFile(path string) ([]byte, error) {
	data, err := fsutil.ReadRegular(path, math.MaxInt32)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return data, nil
}

// appendLine appends line (which ends in '\n') to path, whole or not at
// all, without following a symlink (fsutil.AppendLine). The caller holds the
// exclusive lock and the file is opened only now, after the lock: a
// descriptor opened before a rewrite renamed a new file into place would
// append to the orphaned old file.
//
// No fsync: a hook must stay fast, the page cache survives a crashed
// process, and a line lost to a power cut is re-queued by the session's
// next hook because the ledger does not cover its transcript.
func appendLine(path string, line []byte) error {
	return fsutil.AppendLine(path, line)
}
