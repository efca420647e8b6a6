package drain

import (
	"context"
	"errors"
	"fmt"
	"github.com/reflectkb/reflect/drain/writer"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/gofrs/flock"

	"github.com/reflectkb/reflect/index"
	"github.com/reflectkb/reflect/internal/fsutil"
	"github.com/reflectkb/reflect/knowledge"
	"github.com/reflectkb/reflect/queue"
)

// Options are the inputs of one drain run. The command layer fills them
// from the configuration (drain.* settings, the state and learnings
// directories, the [index] settings): this package reads neither the
// configuration nor the environment.
type Options struct {
	// StateDir holds drain.lock, the queue, the cost ledger and the logs.
	StateDir string
	// OpenIndex opens the knowledge base the learnings are written to. It
	// is called only when there is an entry to reflect, so a drain with
	// an empty queue never opens (or builds) the index.
	OpenIndex func(context.Context) (*index.Index, error)
	// MaxPerRun is how many entries one run reflects (drain.max_per_run).
	MaxPerRun int
	// DailyMax is how many entries are reflected per UTC day
	// (drain.daily_max).
	DailyMax int
	// DailyUSD is the writers' spend per UTC day; 0 sets no limit
	// (drain.daily_usd).
	DailyUSD float64
	// Timeout bounds each writer run (drain.timeout).
	Timeout time.Duration
	// MaxAttempts is how many failed runs poison an entry
	// (drain.max_attempts).
	MaxAttempts int
	// Choice is the configured writer, selected when Writer is nil.
	Choice writer.Choice
	// LookPath finds the chosen writer's executable; nil is
	// exec.LookPath, on this process's PATH.
	LookPath func(string) (string, error)
	// Writer overrides the configured writer (tests).
	Writer writer.Writer
	// WriterWhy says why Writer was chosen, for the report.
	WriterWhy string
	// Max overrides MaxPerRun when positive.
	Max int
	// DryRun lists what would run and changes nothing.
	DryRun bool
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Progress, when set, hears about each entry as it starts.
	Progress func(rec queue.Record)
	// Pulled are the ids of learnings recent syncs brought in: a
	// near-duplicate among them of a learning of this machine is folded
	// into one (see knowledge.Base.FoldPulled).
	Pulled []string
	// Review says whether the learnings written land pending, awaiting
	// 'reflect review' (drain.review); nil means yes for an LLM writer and
	// no for the builtin one.
	Review *bool
}

// review reports whether what w drafts lands pending.
func (o Options) review(w writer.Writer) bool {
	if o.Review != nil {
		return *o.Review
	}
	return writer.LLM(w.Name())
}

// Report says what a drain run did.
type Report struct {
	// Ran is false when the drain did not start: another drain holds the
	// lock, or today's budget is spent. Reason says which.
	Ran    bool   `json:"ran"`
	Reason string `json:"reason,omitempty"`
	// Kind is KindEnrich for the report of `reflect enrich`, whose
	// entries are writer runs asking for questions; "" for a drain.
	Kind      string    `json:"kind,omitempty"`
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
	// Review says the learnings written await review (drain.review).
	Review bool `json:"review,omitempty"`
	// Pending is how many drafts await review after the run (counted
	// when the run opened the index).
	Pending int `json:"pending,omitempty"`
	// Folded are the near-duplicate pairs a sync brought in that this run
	// made one.
	Folded []knowledge.Folded `json:"folded,omitempty"`
}

// Entry is what happened to one queue entry.
type Entry struct {
	ID         string `json:"id"`
	Transcript string `json:"transcript"`
	Harness    string `json:"harness"`
	Outcome    string `json:"outcome"` // written, nothing, skipped, retry, poisoned, would-run
	// Learnings are the ids of the learnings written, each once.
	Learnings []string `json:"learnings,omitempty"`
	// Written says, for each of Learnings, whether it was added or updated.
	Written []Written `json:"written,omitempty"`
	// Signals are the feedback the session gave the learnings
	// (confirmed, refuted, stale; docs/ranking.md).
	Signals []knowledge.Signal `json:"signals,omitempty"`
	// Refused is how many drafts repeated a draft the user rejected
	// ('reflect review reject') and were not written.
	Refused    int     `json:"refused,omitempty"`
	Error      string  `json:"error,omitempty"`
	RawBytes   int64   `json:"raw_bytes,omitempty"`
	SentChars  int     `json:"sent_chars,omitempty"`
	CostUSD    float64 `json:"cost_usd,omitempty"`
	DurationMS int64   `json:"duration_ms"`
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
	if !o.DryRun && o.OpenIndex == nil {
		// Checked before anything is claimed: a claimed entry would
		// wait out its lease for nothing.
		return nil, errors.New("drain: Options.OpenIndex is not set")
	}
	rep := &Report{Started: o.Now().UTC(), DryRun: o.DryRun, Entries: []Entry{}}
	release, busy, err := takeLock(o.StateDir, o.DryRun)
	if err != nil {
		return nil, err
	}
	if busy != "" {
		rep.Reason = busy
		return rep, nil
	}
	defer release()

	w, why := o.Writer, o.WriterWhy
	if w == nil {
		if w, why, err = writer.Select(o.Choice, o.LookPath); err != nil {
			return nil, err
		}
	}
	rep.Writer, rep.WriterWhy = w.Name(), why
	rep.Review = o.review(w)

	q, err := queue.Open(o.StateDir)
	if err != nil {
		return nil, err
	}
	ledger := costLedger{path: filepath.Join(o.StateDir, "drain-cost.jsonl")}
	today, err := ledger.today(o.Now())
	if err != nil {
		return nil, err
	}
	rep.Today = today
	budget, reason := budgetFor(o, today)
	if reason != "" {
		rep.Reason = reason
		rep.Waiting = q.Depth()
		return rep, nil
	}
	rep.Ran = true

	if !o.DryRun {
		if err := tidy(q, o); err != nil {
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
		if ix, err = o.OpenIndex(ctx); err != nil {
			return nil, err
		}
		defer ix.Close()
	}
	if err := reflectEach(ctx, o, q, ix, w, ledger, recs, rep); err != nil {
		return rep, err
	}
	if ix != nil {
		// The status line's count of the inbox, which this run may
		// have filled: it opens no index to count it itself.
		rep.Pending, _ = knowledge.New(ix).CountPending(ctx, o.StateDir)
	}
	if !o.DryRun && len(o.Pulled) > 0 {
		if ix == nil {
			if ix, err = o.OpenIndex(ctx); err != nil {
				return rep, err
			}
			defer ix.Close()
		}
		if rep.Folded, err = knowledge.New(ix).FoldPulled(ctx, o.Pulled, o.Now()); err != nil {
			return rep, err
		}
	}
	rep.Finished = o.Now().UTC()
	rep.Waiting = q.Depth()
	if !o.DryRun {
		if err := saveLast(o.StateDir, rep); err != nil {
			return rep, err
		}
	}
	return rep, nil
}

// takeLock takes drain.lock without waiting and, unless dryRun, writes
// drain.pid. busy, when not empty, says that another drain holds the lock
// (with its pid when known); release removes drain.pid and unlocks.
func takeLock(stateDir string, dryRun bool) (release func(), busy string, err error) {
	if err := fsutil.EnsurePrivateDir(stateDir); err != nil {
		return nil, "", err
	}
	lock := flock.New(filepath.Join(stateDir, "drain.lock"), flock.SetPermissions(fsutil.FilePerm))
	locked, err := lock.TryLock()
	if err != nil {
		return nil, "", fmt.Errorf("drain lock: %w", err)
	}
	if !locked {
		busy = ErrLocked.Error()
		if pid := runningPID(stateDir); pid != "" {
			busy += " (pid " + pid + ")"
		}
		return nil, busy, nil
	}
	if dryRun {
		return func() { lock.Unlock() }, "", nil
	}
	pidPath := filepath.Join(stateDir, "drain.pid")
	_ = fsutil.WriteAtomic(pidPath, []byte(strconv.Itoa(os.Getpid())+"\n"), fsutil.FilePerm)
	return func() {
		os.Remove(pidPath)
		lock.Unlock()
	}, "", nil
}

// budgetFor is how many entries this run may claim, given what today has
// spent; reason, when not empty, says which daily budget is reached.
func budgetFor(o Options, today Spend) (n int, reason string) {
	n = o.MaxPerRun
	if o.Max > 0 {
		n = o.Max
	}
	if left := o.DailyMax - today.Entries; left < n {
		n = left
	}
	switch {
	case n <= 0:
		reason = fmt.Sprintf("daily budget reached: %d of %d entries reflected today", today.Entries, o.DailyMax)
	case o.DailyUSD > 0 && today.USD >= o.DailyUSD:
		reason = fmt.Sprintf("daily budget reached: $%.2f of $%.2f spent today", today.USD, o.DailyUSD)
	}
	return n, reason
}

// tidy prepares the queue before a claim: an entry the last drain died in
// counts as an attempt, then duplicates are merged, malformed lines moved
// aside and the ledger pruned.
func tidy(q *queue.Queue, o Options) error {
	if id := interruptedEntry(o.StateDir); id != "" {
		// The last drain died inside this entry (we hold the lock, so
		// it is gone): count it as an attempt, so an entry that kills
		// every drain is poisoned instead of blocking the queue.
		if _, err := q.Interrupted(id, o.Now(), o.MaxAttempts, "the drainer stopped while reflecting this entry (killed or crashed)"); err != nil && !errors.Is(err, queue.ErrNotFound) {
			return err
		}
		clearCurrent(o.StateDir)
	}
	// Merging and pruning here keeps hooks' Enqueue fast.
	_, err := q.Compact()
	return err
}

// reflectEach runs the claimed entries one by one, adding each to rep and
// (unless skipped or a dry run) to today's spend and the cost ledger. It
// stops early when ctx ends or today's USD budget is spent.
func reflectEach(ctx context.Context, o Options, q *queue.Queue, ix *index.Index, w writer.Writer, ledger costLedger, recs []queue.Record, rep *Report) error {
	for _, rec := range recs {
		if err := ctx.Err(); err != nil {
			return err
		}
		if o.DailyUSD > 0 && rep.Today.USD >= o.DailyUSD {
			break
		}
		if o.Progress != nil {
			o.Progress(rec)
		}
		if !o.DryRun {
			markCurrent(o.StateDir, rec.ID)
		}
		e := (&entryRun{opts: o, q: q, ix: ix, w: w, rec: rec}).run(ctx)
		if !o.DryRun {
			clearCurrent(o.StateDir)
		}
		rep.Entries = append(rep.Entries, e)
		if e.Outcome != OutcomeSkipped && e.Outcome != OutcomeWouldRun {
			rep.Today.Entries++
			rep.Today.USD += e.CostUSD
			if err := ledger.add(costLine{TS: o.Now().UTC(), Entry: e.ID, Writer: w.Name(), Outcome: e.Outcome,
				Learnings: len(e.Learnings), CostUSD: e.CostUSD, DurationMS: e.DurationMS}); err != nil {
				return err
			}
		}
		if !o.DryRun {
			logEntry(o.StateDir, o.Now(), w.Name(), e)
		}
	}
	return nil
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
