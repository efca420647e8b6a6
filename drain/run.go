package drain

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/gofrs/flock"

	"github.com/reflectkb/reflect/index"
	"github.com/reflectkb/reflect/internal/config"
	"github.com/reflectkb/reflect/internal/fsutil"
	"github.com/reflectkb/reflect/queue"
)

// Options are the inputs of one drain run.
type Options struct {
	Config *config.Config
	// Writer overrides the configured writer (tests, --writer).
	Writer Writer
	// WriterWhy says why Writer was chosen, for the report.
	WriterWhy string
	// Max overrides Config.Drain.MaxPerRun when positive.
	Max int
	// DryRun lists what would run and changes nothing.
	DryRun bool
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Progress, when set, hears about each entry as it starts.
	Progress func(rec queue.Record)
}

// Report says what a drain run did.
type Report struct {
	// Ran is false when the drain did not start: another drain holds the
	// lock, or today's budget is spent. Reason says which.
	Ran       bool      `json:"ran"`
	Reason    string    `json:"reason,omitempty"`
	DryRun    bool      `json:"dry_run,omitempty"`
	Writer    string    `json:"writer"`
	WriterWhy string    `json:"writer_why,omitempty"`
	Started   time.Time `json:"started"`
	Finished  time.Time `json:"finished"`
	Entries   []Entry   `json:"entries"`
	// Today is the spend of the current UTC day after this run.
	Today Spend `json:"today"`
	// Waiting is how many entries are left in the queue.
	Waiting int `json:"waiting"`
}

// Entry is what happened to one queue entry.
type Entry struct {
	ID         string   `json:"id"`
	Transcript string   `json:"transcript"`
	Harness    string   `json:"harness"`
	Outcome    string   `json:"outcome"` // written, nothing, skipped, retry, poisoned, would-run
	Learnings  []string `json:"learnings,omitempty"`
	Error      string   `json:"error,omitempty"`
	RawBytes   int64    `json:"raw_bytes,omitempty"`
	SentChars  int      `json:"sent_chars,omitempty"`
	CostUSD    float64  `json:"cost_usd,omitempty"`
	DurationMS int64    `json:"duration_ms"`
}

// Entry outcomes.
const (
	OutcomeWritten  = "written"
	OutcomeNothing  = "nothing"
	OutcomeSkipped  = "skipped"
	OutcomeRetry    = "retry"
	OutcomePoisoned = "poisoned"
	OutcomeWouldRun = "would-run"
)

// ErrLocked is reported (in Report.Reason) when another drain is running.
var ErrLocked = errors.New("another drain is running")

// Run drains the queue once: it takes the single-instance lock, claims up to
// the run's budget of entries, and for each one condenses the transcript,
// runs the writer, writes and indexes the learnings, and only then acks the
// entry. A failed writer run is retried later with backoff and poisoned
// after max_attempts. Budgets (max_per_run, daily_max, daily_usd) are read
// from drain-cost.jsonl under the lock, so no number of drains started at
// once can exceed them.
func Run(ctx context.Context, o Options) (*Report, error) {
	if o.Now == nil {
		o.Now = time.Now
	}
	c := o.Config
	rep := &Report{Started: o.Now().UTC(), DryRun: o.DryRun, Entries: []Entry{}}
	if err := fsutil.EnsurePrivateDir(c.StateDir); err != nil {
		return nil, err
	}
	lock := flock.New(filepath.Join(c.StateDir, "drain.lock"), flock.SetPermissions(fsutil.FilePerm))
	locked, err := lock.TryLock()
	if err != nil {
		return nil, fmt.Errorf("drain lock: %w", err)
	}
	if !locked {
		rep.Reason = ErrLocked.Error()
		if pid := runningPID(c.StateDir); pid != "" {
			rep.Reason += " (pid " + pid + ")"
		}
		return rep, nil
	}
	defer lock.Unlock()
	pidPath := filepath.Join(c.StateDir, "drain.pid")
	if !o.DryRun {
		_ = fsutil.WriteAtomic(pidPath, []byte(strconv.Itoa(os.Getpid())+"\n"), fsutil.FilePerm)
		defer os.Remove(pidPath)
	}

	w, why := o.Writer, o.WriterWhy
	if w == nil {
		if w, why, err = Select(c, nil); err != nil {
			return nil, err
		}
	}
	rep.Writer, rep.WriterWhy = w.Name(), why

	q, err := queue.Open(c.StateDir)
	if err != nil {
		return nil, err
	}
	ledger := costLedger{path: filepath.Join(c.StateDir, "drain-cost.jsonl")}
	today, err := ledger.today(o.Now())
	if err != nil {
		return nil, err
	}
	budget := c.Drain.MaxPerRun
	if o.Max > 0 {
		budget = o.Max
	}
	if left := c.Drain.DailyMax - today.Entries; left < budget {
		budget = left
	}
	rep.Today = today
	switch {
	case budget <= 0:
		rep.Reason = fmt.Sprintf("daily budget reached: %d of %d entries reflected today", today.Entries, c.Drain.DailyMax)
	case c.Drain.DailyUSD > 0 && today.USD >= c.Drain.DailyUSD:
		rep.Reason = fmt.Sprintf("daily budget reached: $%.2f of $%.2f spent today", today.USD, c.Drain.DailyUSD)
	}
	if rep.Reason != "" {
		rep.Waiting = q.Depth()
		return rep, nil
	}
	rep.Ran = true

	if !o.DryRun {
		if id := interruptedEntry(c.StateDir); id != "" {
			// The last drain died inside this entry (we hold the lock, so
			// it is gone): count it as an attempt, so an entry that kills
			// every drain is poisoned instead of blocking the queue.
			if _, err := q.Interrupted(id, o.Now(), c.Drain.MaxAttempts, "the drainer stopped while reflecting this entry (killed or crashed)"); err != nil && !errors.Is(err, queue.ErrNotFound) {
				return nil, err
			}
			clearCurrent(c.StateDir)
		}
		// Tidy first: merge duplicate entries, move malformed lines aside
		// and prune the ledger, so hooks' Enqueue stays fast.
		if _, err := q.Compact(); err != nil {
			return nil, err
		}
	}
	var recs []queue.Record
	if o.DryRun {
		recs, err = due(q, o.Now(), budget)
	} else {
		recs, err = q.Claim(o.Now(), budget)
	}
	if err != nil {
		return nil, err
	}
	var ix *index.Index
	if !o.DryRun && len(recs) > 0 {
		opts, err := index.SettingsOptions(index.Settings(c.Index), false)
		if err != nil {
			return nil, err
		}
		if ix, err = index.Open(ctx, c.DocumentsDir(), c.IndexDir(), opts...); err != nil {
			return nil, err
		}
		defer ix.Close()
	}
	for _, rec := range recs {
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		if c.Drain.DailyUSD > 0 && rep.Today.USD >= c.Drain.DailyUSD {
			break
		}
		if o.Progress != nil {
			o.Progress(rec)
		}
		if !o.DryRun {
			markCurrent(c.StateDir, rec.ID)
		}
		e := (&entryRun{opts: o, q: q, ix: ix, w: w, rec: rec}).run(ctx)
		if !o.DryRun {
			clearCurrent(c.StateDir)
		}
		rep.Entries = append(rep.Entries, e)
		if e.Outcome != OutcomeSkipped && e.Outcome != OutcomeWouldRun {
			rep.Today.Entries++
			rep.Today.USD += e.CostUSD
			if err := ledger.add(costLine{TS: o.Now().UTC(), Entry: e.ID, Writer: w.Name(), Outcome: e.Outcome,
				Learnings: len(e.Learnings), CostUSD: e.CostUSD, DurationMS: e.DurationMS}); err != nil {
				return rep, err
			}
		}
		if !o.DryRun {
			logEntry(c.StateDir, o.Now(), w.Name(), e)
		}
	}
	rep.Finished = o.Now().UTC()
	rep.Waiting = q.Depth()
	if !o.DryRun {
		if err := saveLast(c.StateDir, rep); err != nil {
			return rep, err
		}
	}
	return rep, nil
}

// runningPID is the pid in drain.pid, for messages only: the lock, not the
// file, decides whether a drain runs.
func runningPID(stateDir string) string {
	data, err := fsutil.ReadRegular(filepath.Join(stateDir, "drain.pid"), 1<<10)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(data))
}

// due lists, without changing the queue, the entries a Claim would return:
// a dry run must leave every file as it was.
func due(q *queue.Queue, now time.Time, limit int) ([]queue.Record, error) {
	recs, _, err := q.List()
	if err != nil {
		return nil, err
	}
	var out []queue.Record
	seen := map[string]bool{}
	for _, r := range recs {
		if len(out) == limit {
			break
		}
		// Claim merges entries for the same transcript; so does the preview.
		if seen[r.TranscriptPath] {
			continue
		}
		seen[r.TranscriptPath] = true
		if r.NotBefore == nil || !r.NotBefore.After(now) {
			out = append(out, r)
		}
	}
	return out, nil
}

// currentFile names the entry a drain is working on, so that the next
// drain can tell that one died inside it.
const currentFile = "drain-current"

func markCurrent(stateDir, id string) {
	_ = fsutil.WriteAtomicNoSync(filepath.Join(stateDir, currentFile), []byte(id+"\n"), fsutil.FilePerm)
}

func clearCurrent(stateDir string) { _ = os.Remove(filepath.Join(stateDir, currentFile)) }

func interruptedEntry(stateDir string) string {
	data, err := fsutil.ReadRegular(filepath.Join(stateDir, currentFile), 1<<10)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(data))
}
