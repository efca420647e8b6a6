package queue

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/reflectkb/reflect/internal/fsutil"
)

// spillDir holds the records of enqueues that could not get queue.lock in
// LockWait, one file per record, named <unix ns>.<session>.<record id>.json. Each is
// written atomically (temp + rename) without the lock, so a capture is
// never dropped because the queue was busy; the next Enqueue that gets the
// lock, or the drainer, folds them into the queue.
const spillDir = "spill"

// ReasonSpilled is the detail of an Enqueue that found the queue locked and
// kept the record in the spill directory: it is queued all the same.
const ReasonSpilled = "queue busy: kept in spill/ for the next enqueue or drain"

// Spill keeps rec in the spill directory without taking the lock, for a
// hook whose deadline passed before Enqueue finished: the next Enqueue or
// drain folds it in (dropping it if the session is pending by then). It
// reports false, with no error, when there is nothing to queue (no
// transcript, or a missing or empty one); invalid records are errors, as
// for Enqueue.
func (q *Queue) Spill(rec Record) (bool, error) {
	if rec.TranscriptPath == "" {
		return false, nil
	}
	if err := rec.validate(); err != nil {
		return false, err
	}
	if !filepath.IsAbs(rec.TranscriptPath) {
		return false, fmt.Errorf("spill: transcript path %q is not absolute", rec.TranscriptPath)
	}
	if fi, err := os.Stat(rec.TranscriptPath); err != nil || !fi.Mode().IsRegular() || fi.Size() == 0 {
		return false, nil
	}
	now := q.now().UTC()
	id, err := newID(now)
	if err != nil {
		return false, err
	}
	rec.ID = id
	if rec.QueuedAt.IsZero() {
		rec.QueuedAt = now.Truncate(time.Second)
	}
	rec.QueuedAt = rec.QueuedAt.UTC()
	line, err := marshalLine(rec)
	if err != nil {
		return false, fmt.Errorf("spill: %w", err)
	}
	return true, q.spill(rec, line)
}

// spill writes rec's line to its own file in the spill directory.
func (q *Queue) spill(rec Record, line []byte) error {
	dir := filepath.Join(q.dir, spillDir)
	if err := fsutil.EnsureStateSubdir(dir); err != nil {
		return fmt.Errorf("spill: %w", err)
	}
	// The wall clock in nanoseconds leads the name, so that folding in name
	// order keeps the order in which the hooks ran (ids are random within
	// a second).
	name := fmt.Sprintf("%019d.%s.%s.json", spillStamp(time.Now()), fsutil.SafeName(rec.SessionID), rec.ID)
	if err := fsutil.WriteAtomicNoSync(filepath.Join(dir, name), line, fsutil.FilePerm); err != nil {
		return fmt.Errorf("spill: %w", err)
	}
	return nil
}

// lastSpillStamp is the stamp of this process's latest spill.
var lastSpillStamp atomic.Int64

// spillStamp is now in Unix nanoseconds, made later than this process's
// previous spill's: the wall clock can step back (a VM's clock corrected),
// and a process that spills twice must not see its second record folded
// first.
func spillStamp(now time.Time) int64 {
	for {
		last, t := lastSpillStamp.Load(), now.UnixNano()
		if t <= last {
			t = last + 1
		}
		if lastSpillStamp.CompareAndSwap(last, t) {
			return t
		}
	}
}

// spilled lists the spill files, oldest first.
//
// One directory listing is not enough: a file renamed into the directory
// while it is being read may or may not be listed (POSIX leaves it
// unspecified; ext4 returns entries in hash order, so a hook's older spill
// can be missed while its newer one is listed, and folding would then put
// them out of order: seen under CPU load). So the listing is repeated until
// one adds no name: every file first seen in listing k was in place before
// listing k ended, and so were the older spills of the same hook, which
// listing k+1 therefore sees. The repeats are bounded; the common case (no
// spill directory, or no hook spilling meanwhile) costs one or two reads.
// When the bound is reached with hooks still spilling, the names the last
// listing added are left out: no later listing vouches for their older
// siblings, and the next fold takes them.
func (q *Queue) spilled() []string {
	return settledListing(q.listSpilled, maxSpillListings)
}

// settledListing lists names with list, at most bound times, until a
// listing adds none, and returns, sorted, the names that a later listing
// followed (all of them when the last one added none).
func settledListing(list func() []string, bound int) []string {
	first := map[string]int{} // name → the listing that first saw it
	last := 0                 // the last listing that added a name
	for k := 1; k <= bound; k++ {
		added := false
		for _, n := range list() {
			if _, ok := first[n]; !ok {
				first[n] = k
				added = true
			}
		}
		if !added {
			last = 0
			break
		}
		last = k
	}
	names := make([]string, 0, len(first))
	for n, k := range first {
		if last == 0 || k < last {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

// maxSpillListings bounds the listings spilled makes while hooks keep
// spilling; what the last one added is folded by the next fold.
const maxSpillListings = 8

// ListSpilled returns the records waiting in the spill directory, oldest
// first: queued all the same, they join the queue file at the next
// enqueue or drain. A spill file that holds no record is left for that
// fold to set aside, and not listed.
func (q *Queue) ListSpilled() []Record {
	var recs []Record
	for _, name := range q.spilled() {
		data, err := fsutil.ReadRegular(filepath.Join(q.dir, spillDir, name), 2*maxPath+64<<10)
		if err != nil {
			continue // folded meanwhile
		}
		var rec Record
		if json.Unmarshal(data, &rec) == nil && rec.ID != "" && rec.TranscriptPath != "" && rec.validate() == nil {
			recs = append(recs, rec)
		}
	}
	return recs
}

// listSpilled lists the spill files once, by name.
func (q *Queue) listSpilled() []string {
	entries, err := os.ReadDir(filepath.Join(q.dir, spillDir))
	if err != nil {
		return nil
	}
	var names []string
	for _, e := range entries {
		// Temp files of a spill in flight start with '.'.
		if e.Type().IsRegular() && strings.HasSuffix(e.Name(), ".json") && !strings.HasPrefix(e.Name(), ".") {
			names = append(names, e.Name())
		}
	}
	return names
}

// foldSpilled appends the spilled records to the queue, oldest first, and
// removes their files. There are only as many as hooks that found the lock
// busy, and the one that gets it next folds them all before its own record,
// so the queue keeps the order in which the hooks ran. The caller holds the exclusive lock.
// pending points to the queue's content when the caller has it (nil to
// skip the check): a record whose session or transcript is already pending is not
// appended again. A file that does not hold a record is moved to
// malformed.jsonl like a bad queue line, so a human can look at it.
//
// A crash between the append and the remove leaves a duplicate that Claim
// merges; the record is never lost.
func (q *Queue) foldSpilled(pending *[]byte) error {
	names := q.spilled()
	dir := filepath.Join(q.dir, spillDir)
	for _, name := range names {
		path := filepath.Join(dir, name)
		data, err := fsutil.ReadRegular(path, 2*maxPath+64<<10)
		if errors.Is(err, fs.ErrNotExist) {
			continue // another folder got it
		}
		if err != nil {
			return fmt.Errorf("fold %s: %w", path, err)
		}
		var rec Record
		ok := json.Unmarshal(data, &rec) == nil && rec.ID != "" && rec.TranscriptPath != "" && rec.validate() == nil
		switch {
		case !ok:
			entry, err := malformedLine(line{raw: trimNewline(data), reason: "spill file " + name + " holds no record"}, q.now().UTC())
			if err != nil {
				return err
			}
			if err := appendLine(q.malformedPath, entry); err != nil {
				return err
			}
		case pending != nil && isPending(*pending, rec.SessionID, rec.TranscriptPath):
		default:
			// Re-encoded, so that whatever is in the file goes in as one
			// line in the canonical encoding the pending check relies on.
			l, err := marshalLine(rec)
			if err != nil {
				return err
			}
			if err := appendLine(q.pendingPath, l); err != nil {
				return err
			}
			if pending != nil {
				*pending = append(*pending, l...)
			}
		}
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("fold %s: %w", path, err)
		}
	}
	return nil
}

func trimNewline(b []byte) []byte {
	return []byte(strings.TrimRight(string(b), "\n"))
}
