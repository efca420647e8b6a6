package queue

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/reflectkb/reflect/internal/fsutil"
	"github.com/reflectkb/reflect/internal/redact"
	"github.com/reflectkb/reflect/internal/shortid"
)

// OutcomePoisoned is the ledger outcome Retry records when it gives up on a
// transcript, so that hooks do not queue the same content again.
const OutcomePoisoned = "poisoned"

// The retry schedule: a failure that is not the last waits 1m, 4m, 16m, 64m,
// 4h16m, then 6h for every further one. Exponential because most failures
// are either brief (rate limit, network) or need a human (no credentials, a
// broken writer command): the first retries come soon, and a broken setup
// does not burn a writer run every few minutes.
const (
	backoffBase   = time.Minute
	backoffFactor = 4
	backoffMax    = 6 * time.Hour
)

// maxReason bounds the failure reason kept in poison.jsonl: writer stderr
// can be megabytes, and the first lines say what went wrong.
const maxReason = 4096

// Backoff returns how long a record waits after its attempts-th failure
// before it can be claimed again: 1m after the first, four times longer
// after each further one, at most 6h. It is 0 for attempts < 1.
func Backoff(attempts int) time.Duration {
	if attempts < 1 {
		return 0
	}
	d := backoffBase
	for i := 1; i < attempts && d < backoffMax; i++ {
		d *= backoffFactor
	}
	return min(d, backoffMax)
}

// Claim returns the first limit records, in queue (file) order, that are due
// at now: their NotBefore is nil or not after now. limit <= 0 means all of
// them.
//
// Claimed records stay in the queue: a record leaves it only through Ack
// (its learnings are written and indexed), Retry (poisoned) or Drop, so a
// drainer killed mid-entry leaves the entry to the next drainer. Only one
// drainer runs at a time (drain.lock), so nothing else claims meanwhile.
//
// Claim compacts the queue in the same critical section (see Compact):
// malformed lines are moved to malformed.jsonl instead of blocking the
// queue or being retried forever, and duplicates are merged, so the drainer
// never reflects one transcript twice in a run.
func (q *Queue) Claim(now time.Time, limit int) ([]Record, error) {
	if _, err := os.Stat(q.pendingPath); errors.Is(err, fs.ErrNotExist) && len(q.spilled()) == 0 {
		return nil, nil
	}
	unlock, err := q.lock(true)
	if err != nil {
		return nil, err
	}
	defer unlock()
	// Records that hooks spilled while the queue was busy join it first;
	// compactLocked merges any that duplicate a pending one.
	if err := q.foldSpilled(nil); err != nil {
		return nil, fmt.Errorf("claim: %w", err)
	}
	data, err := readFile(q.pendingPath)
	if err != nil {
		return nil, err
	}
	recs, _, err := q.compactLocked(data)
	if err != nil {
		return nil, fmt.Errorf("claim: %w", err)
	}
	var due []Record
	for _, r := range recs {
		if limit > 0 && len(due) == limit {
			break
		}
		if r.NotBefore == nil || !r.NotBefore.After(now) {
			due = append(due, r)
		}
	}
	return due, nil
}

// Ack finishes the record with this id: it appends reflected to the
// processed.jsonl ledger and removes the record from the queue, keeping
// every other line byte for byte. reflected describes the content that was
// reflected, as HashFile returned it: Size and SHA256 are required, Path
// defaults to the record's transcript (and must be it), At to now.
//
// If the transcript on disk is now larger than reflected.Size, the record is
// replaced by a fresh one for the same transcript (new id, attempts 0,
// queued_at now) at the end of the queue. While a record is pending, the
// session's hooks skip with ReasonAlreadyQueued, so turns added while the
// drainer worked would otherwise never be queued if the session ends
// without another hook.
//
// The size check, the ledger append and the rewrite happen under one hold
// of the exclusive lock. A hook that saw the record pending ran before the
// lock was taken, after its turn reached the transcript, so the size check
// sees that turn; a hook that runs after finds no record and a ledger that
// does not cover the new size, and queues the transcript itself. The ledger
// is written before the queue: a crash in between leaves the record pending
// with its content covered, never the content uncovered and unqueued.
//
// If no pending record has the id (a user dropped it meanwhile), the ledger
// entry is still appended, when reflected names a path, because the content
// was reflected all the same; the error then wraps ErrNotFound.
func (q *Queue) Ack(id string, reflected Processed) error {
	notFound := fmt.Errorf("ack %q: %w", id, ErrNotFound)
	unlock, err := q.lock(true)
	if err != nil {
		return err
	}
	defer unlock()
	data, err := readFile(q.pendingPath)
	if err != nil {
		return err
	}
	start, end, rec, found := findRecord(data, id)
	if found {
		if reflected.Path == "" {
			reflected.Path = rec.TranscriptPath
		}
		if reflected.Path != rec.TranscriptPath {
			return fmt.Errorf("ack %q: reflected %s, but the record is for %s", id, reflected.Path, rec.TranscriptPath)
		}
	} else if reflected.Path == "" {
		return notFound
	}
	entry, err := q.ledgerLine(reflected)
	if err != nil {
		return fmt.Errorf("ack %q: %w", id, err)
	}
	if err := appendLine(q.processedPath, entry); err != nil {
		return err
	}
	if !found {
		return notFound
	}

	out := splice(data, start, end, nil)
	if fi, err := os.Stat(rec.TranscriptPath); err == nil && fi.Mode().IsRegular() && fi.Size() > reflected.Size {
		fresh, err := q.freshLine(data[start:end], rec)
		if err != nil {
			return fmt.Errorf("ack %q: %w", id, err)
		}
		if len(out) > 0 && out[len(out)-1] != '\n' {
			out = append(out, '\n') // keep a torn last line a line of its own
		}
		out = append(out, fresh...)
	}
	if err := fsutil.WriteAtomic(q.pendingPath, out, fsutil.FilePerm); err != nil {
		return fmt.Errorf("ack %q: %w", id, err)
	}
	return nil
}

// freshLine is the record that replaces rec when its transcript grew while
// it was being reflected: the same transcript and session, queued now.
func (q *Queue) freshLine(raw []byte, rec Record) ([]byte, error) {
	now := q.now().UTC()
	id, err := newID(now)
	if err != nil {
		return nil, err
	}
	rec.ID = id
	rec.QueuedAt = now.Truncate(time.Second)
	rec.Attempts = 0
	rec.NotBefore = nil
	return patchRecord(raw, rec)
}

// Retry records a failed attempt at the record with this id. The record's
// attempts are incremented; below maxAttempts it stays in place with
// not_before = now + Backoff(attempts). At maxAttempts it is poisoned: moved
// to poison.jsonl and removed from the queue, and poisoned reports true.
//
// A poison.jsonl line wraps the queue line kept verbatim (its attempts and
// not_before as they were before this failure) with the failure:
//
//	{"record":<the queue line>,"attempts":3,"reason":"…","poisoned_at":"…"}
//
// The verbatim line is what a human or a newer version may need; the
// wrapper says why and when, which the line alone cannot. reason is
// redacted and bounded, since it may quote the transcript or writer output.
//
// Poisoning also appends a ledger entry with OutcomePoisoned for the
// transcript at its current size and hash, so that the session's next hook
// does not queue the same failing content again; new turns still are, and
// Requeue re-arms the entry on demand.
func (q *Queue) Retry(id string, now time.Time, maxAttempts int, reason string) (poisoned bool, err error) {
	return q.retry(id, now, maxAttempts, reason, true)
}

// Interrupted counts an attempt for an entry whose reflection was cut short
// by the drainer dying (a crash, the OOM killer, kill -9), without a
// backoff: the entry is taken again at once, and after maxAttempts such
// deaths it is poisoned like any failing entry. Without it, a transcript
// that kills the drainer would be claimed first by every drain, forever,
// and block the queue behind it.
func (q *Queue) Interrupted(id string, now time.Time, maxAttempts int, reason string) (poisoned bool, err error) {
	return q.retry(id, now, maxAttempts, reason, false)
}

func (q *Queue) retry(id string, now time.Time, maxAttempts int, reason string, backoff bool) (poisoned bool, err error) {
	if maxAttempts < 1 {
		return false, fmt.Errorf("retry %q: max attempts is %d, want at least 1", id, maxAttempts)
	}
	notFound := fmt.Errorf("retry %q: %w", id, ErrNotFound)
	// Hashing a long transcript takes a while; a peek without the lock
	// (rewrites are atomic renames, appends whole lines) says whether this
	// failure poisons, so hooks do not wait for the hash.
	var led *Processed
	if data, err := readFile(q.pendingPath); err == nil {
		if _, _, rec, ok := findRecord(data, id); ok && rec.Attempts+1 >= maxAttempts {
			led = poisonLedger(rec.TranscriptPath, now)
		}
	}

	unlock, err := q.lock(true)
	if err != nil {
		return false, err
	}
	defer unlock()
	data, err := readFile(q.pendingPath)
	if err != nil {
		return false, err
	}
	start, end, rec, found := findRecord(data, id)
	if !found {
		return false, notFound
	}
	raw := data[start:end]
	rec.Attempts++
	if rec.Attempts < maxAttempts {
		if backoff {
			nb := ceilSecond(now.Add(Backoff(rec.Attempts)))
			rec.NotBefore = &nb
		}
		line, err := patchRecord(raw, rec)
		if err != nil {
			return false, fmt.Errorf("retry %q: %w", id, err)
		}
		if err := fsutil.WriteAtomic(q.pendingPath, splice(data, start, end, line), fsutil.FilePerm); err != nil {
			return false, fmt.Errorf("retry %q: %w", id, err)
		}
		return false, nil
	}

	if led == nil || led.Path != rec.TranscriptPath {
		led = poisonLedger(rec.TranscriptPath, now)
	}
	line, err := poisonLine(raw, rec.Attempts, reason, now)
	if err != nil {
		return false, fmt.Errorf("retry %q: %w", id, err)
	}
	// poison.jsonl and the ledger first: a crash before the rewrite leaves
	// the record in both files, never in neither.
	if err := appendLine(q.poisonPath, line); err != nil {
		return false, err
	}
	if led != nil {
		entry, err := q.ledgerLine(*led)
		if err != nil {
			return false, fmt.Errorf("retry %q: %w", id, err)
		}
		if err := appendLine(q.processedPath, entry); err != nil {
			return false, err
		}
	}
	if err := fsutil.WriteAtomic(q.pendingPath, splice(data, start, end, nil), fsutil.FilePerm); err != nil {
		return false, fmt.Errorf("retry %q: %w", id, err)
	}
	return true, nil
}

// poisonLedger is the ledger entry for a transcript given up on, or nil when
// it cannot be read (then there is nothing a hook could queue again).
func poisonLedger(path string, now time.Time) *Processed {
	size, sum, err := HashFile(path)
	if err != nil {
		return nil
	}
	return &Processed{Path: path, Size: size, SHA256: sum, Outcome: OutcomePoisoned, At: now}
}

// poisonLine wraps the verbatim queue line raw (a JSON object: it decoded
// as a record) with the failure. It is assembled by hand because
// json.RawMessage would be re-compacted by the encoder, and "verbatim"
// means byte for byte.
func poisonLine(raw []byte, attempts int, reason string, at time.Time) ([]byte, error) {
	reason = strings.ToValidUTF8(redact.String(reason), "\uFFFD")
	if len(reason) > maxReason {
		cut := maxReason
		for cut > 0 && !utf8.RuneStart(reason[cut]) {
			cut--
		}
		reason = reason[:cut] + "…"
	}
	tail, err := marshalLine(struct {
		Attempts   int       `json:"attempts"`
		Reason     string    `json:"reason"`
		PoisonedAt time.Time `json:"poisoned_at"`
	}{attempts, reason, at.UTC()})
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(raw)+len(tail)+12)
	out = append(out, `{"record":`...)
	out = append(out, raw...)
	out = append(out, ',')
	return append(out, tail[1:]...), nil // tail without its '{'
}

// Poisoned is one entry of poison.jsonl: a record that failed maxAttempts
// times, with why and when.
type Poisoned struct {
	// Record is decoded from the verbatim queue line; its Attempts and
	// NotBefore are those from before the last failure.
	Record     Record    `json:"record"`
	Attempts   int       `json:"attempts"` // failures, the last one included
	Reason     string    `json:"reason"`
	PoisonedAt time.Time `json:"poisoned_at"`
}

// ListPoisoned returns the entries of poison.jsonl in file order. Lines that
// do not decode (a crash mid-append) are skipped here but stay in the file.
func (q *Queue) ListPoisoned() ([]Poisoned, error) {
	if _, err := os.Stat(q.poisonPath); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	unlock, err := q.lock(false)
	if err != nil {
		return nil, err
	}
	defer unlock()
	data, err := readFile(q.poisonPath)
	if err != nil {
		return nil, err
	}
	var out []Poisoned
	for len(data) > 0 {
		var l []byte
		l, data, _ = bytes.Cut(data, []byte{'\n'})
		var p Poisoned
		if json.Unmarshal(l, &p) == nil && p.Record.ID != "" {
			out = append(out, p)
		}
	}
	return out, nil
}

// Requeue re-arms the entry with this id for `reflect queue retry ID`. A
// pending record that waits for its backoff becomes due at once (its
// attempts are kept, so it still gets poisoned if it keeps failing). A
// poisoned one is moved from poison.jsonl back to the end of the queue,
// under the same id, with attempts 0 and no not_before: whoever requeues it
// fixed something and wants a full set of attempts.
//
// The record is appended to the queue before poison.jsonl is rewritten, so
// a crash in between leaves it in both files rather than in neither. If the
// same transcript was queued again meanwhile, the next Claim or Compact
// merges the two.
func (q *Queue) Requeue(id string) error {
	notFound := fmt.Errorf("requeue %q: %w", id, ErrNotFound)
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
	if start, end, rec, ok := findRecord(data, id); ok {
		if rec.NotBefore == nil {
			return nil // already due
		}
		rec.NotBefore = nil
		line, err := patchRecord(data[start:end], rec)
		if err != nil {
			return fmt.Errorf("requeue %q: %w", id, err)
		}
		if err := fsutil.WriteAtomic(q.pendingPath, splice(data, start, end, line), fsutil.FilePerm); err != nil {
			return fmt.Errorf("requeue %q: %w", id, err)
		}
		return nil
	}

	poison, err := readFile(q.poisonPath)
	if err != nil {
		return err
	}
	var raw []byte
	var rec Record
	var start, end int
	found := scanLines(poison, valueNeedle(id), func(s, e int) bool {
		var p struct {
			Record json.RawMessage `json:"record"`
		}
		if json.Unmarshal(poison[s:e], &p) != nil || json.Unmarshal(p.Record, &rec) != nil || rec.ID != id {
			return false
		}
		raw, start, end = p.Record, s, e
		return true
	})
	if !found {
		return notFound
	}
	rec.Attempts = 0
	rec.NotBefore = nil
	line, err := patchRecord(raw, rec)
	if err != nil {
		return fmt.Errorf("requeue %q: %w", id, err)
	}
	if err := appendLine(q.pendingPath, line); err != nil {
		return err
	}
	if err := fsutil.WriteAtomic(q.poisonPath, splice(poison, start, end, nil), fsutil.FilePerm); err != nil {
		return fmt.Errorf("requeue %q: %w", id, err)
	}
	return nil
}

// recordKeys are the JSON keys of Record, the ones patchRecord re-encodes.
var recordKeys = sync.OnceValue(func() map[string]bool {
	var m map[string]json.RawMessage
	b, err := json.Marshal(Record{})
	if err == nil {
		err = json.Unmarshal(b, &m)
	}
	if err != nil { // cannot happen for a plain struct
		panic(err)
	}
	keys := make(map[string]bool, len(m))
	for k := range m {
		keys[k] = true
	}
	return keys
})

// patchRecord encodes rec, the decoded and changed form of the queue line
// raw, as a line. Keys of raw that Record does not know (written by a newer
// version) are carried over with their values verbatim, after the known
// ones: a drainer must not strip what it does not understand.
func patchRecord(raw []byte, rec Record) ([]byte, error) {
	line, err := marshalLine(rec)
	if err != nil {
		return nil, err
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return nil, err
	}
	var extra []string
	for k := range fields {
		if !recordKeys()[k] {
			extra = append(extra, k)
		}
	}
	if len(extra) == 0 {
		return line, nil
	}
	sort.Strings(extra)
	out := line[:len(line)-2] // without "}\n"
	for _, k := range extra {
		out = append(out, ',')
		out = append(out, jsonString(k)...)
		out = append(out, ':')
		out = append(out, fields[k]...)
	}
	return append(out, "}\n"...), nil
}

// ceilSecond rounds t up to a whole second in UTC, the precision of the
// queue's timestamps, so a record is never due before its backoff ends.
func ceilSecond(t time.Time) time.Time {
	t = t.UTC()
	if s := t.Truncate(time.Second); s.Before(t) {
		return s.Add(time.Second)
	}
	return t
}

// Resolve returns the id of the one entry ref names, waiting or poisoned:
// its full id, a unique prefix (with or without "q-"), or its random hex
// tail. No match wraps ErrNotFound; several are a *shortid.AmbiguousError.
func (q *Queue) Resolve(ref string) (string, error) {
	recs, _, err := q.List()
	if err != nil {
		return "", err
	}
	poisoned, err := q.ListPoisoned()
	if err != nil {
		return "", err
	}
	ids := make([]string, 0, len(recs)+len(poisoned))
	for _, r := range recs {
		ids = append(ids, r.ID)
	}
	for _, p := range poisoned {
		ids = append(ids, p.Record.ID)
	}
	id, err := shortid.Resolve(ref, ids, "q-")
	if errors.Is(err, shortid.ErrNotFound) {
		return "", fmt.Errorf("%q: %w", ref, ErrNotFound)
	}
	return id, err
}
