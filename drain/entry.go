package drain

import (
	"context"
	"errors"
	"fmt"
	"github.com/reflectkb/reflect/drain/writer"
	"github.com/reflectkb/reflect/transcript"
	"io/fs"
	"time"

	"github.com/reflectkb/reflect/index"
	"github.com/reflectkb/reflect/internal/gitrepo"
	"github.com/reflectkb/reflect/knowledge"
	"github.com/reflectkb/reflect/queue"
)

// entryRun carries one claimed queue entry through the drain.
type entryRun struct {
	opts Options
	q    *queue.Queue
	ix   *index.Index
	w    writer.Writer
	rec  queue.Record
}

// run reflects one entry. Whatever happens, the entry ends acked (its
// learnings written and indexed, or nothing to write), scheduled for a
// retry, or poisoned: never dropped unreflected.
//
// The result is named so that the deferred duration lands in what the
// caller receives: with an unnamed result, "return e" copies e before the
// deferred function runs and the duration was always 0.
func (r *entryRun) run(ctx context.Context) (e Entry) {
	start := time.Now()
	now := r.opts.Now()
	rec := r.rec
	e = Entry{ID: rec.ID, Transcript: rec.TranscriptPath, Harness: string(rec.Harness)}
	defer func() { e.DurationMS = time.Since(start).Milliseconds() }()

	size, sum, err := queue.HashFile(rec.TranscriptPath)
	if errors.Is(err, fs.ErrNotExist) {
		// The agent deleted the transcript: there is nothing left to
		// reflect on, and retrying cannot bring it back.
		e.Outcome, e.Error = OutcomeSkipped, "transcript no longer exists"
		if r.opts.DryRun {
			return e
		}
		if err := r.q.Drop(rec.ID); err != nil && !errors.Is(err, queue.ErrNotFound) {
			e.Error += "; drop: " + err.Error()
		}
		return e
	}
	if err != nil {
		r.retry(&e, now, err)
		return e
	}
	e.RawBytes = size
	if r.opts.DryRun {
		e.Outcome = OutcomeWouldRun
		return e
	}
	done := queue.Processed{Path: rec.TranscriptPath, Size: size, SHA256: sum, At: now}
	if covered, err := r.q.Reflected(rec.TranscriptPath, size, func() (string, error) { return sum, nil }); err == nil && covered {
		done.Outcome = "already reflected"
		r.ack(&e, done, OutcomeSkipped)
		return e
	}
	c, err := transcript.Condense(rec.TranscriptPath, string(rec.Harness), transcript.Limits{})
	if err != nil {
		r.retry(&e, now, err)
		return e
	}
	e.SentChars = len(c.Text)
	if c.Skip != "" {
		done.Outcome = "skipped: " + c.Skip
		r.ack(&e, done, OutcomeSkipped)
		return e
	}
	cwd := c.Cwd
	if cwd == "" {
		cwd = rec.Cwd
	}
	project := gitrepo.Project(ctx, cwd)
	wctx := writer.WithTimeout(ctx, r.opts.Timeout)
	var cands []writer.Candidate
	if r.w.Name() != "builtin" {
		// The builtin writer answers no question; only a writer that
		// reads the prompt is shown what it may update or supersede.
		cands = candidates(ctx, r.ix, c, project)
		wctx = writer.WithCandidates(wctx, cands)
	}
	wctx, cancel := context.WithTimeout(wctx, r.opts.Timeout)
	out, err := r.w.Write(wctx, c)
	cancel()
	if out != nil {
		e.CostUSD = out.CostUSD
	}
	if err != nil {
		r.retry(&e, now, fmt.Errorf("%s writer: %w", r.w.Name(), err))
		return e
	}
	note := func(msg string) { logNote(r.opts.StateDir, now, rec.ID, msg) }
	written, err := writeLearnings(ctx, r.ix, c, out.Learnings, rec, now, cands, note, r.draftOptions())
	e.Written = written.learnings
	e.Refused = written.refused
	for _, w := range written.learnings {
		e.Learnings = append(e.Learnings, w.ID)
	}
	ids := e.Learnings
	if err != nil {
		r.retry(&e, now, err)
		return e
	}
	e.Signals = r.sessionSignals(ctx, c, project, cwd)
	outcome := OutcomeNothing
	if len(ids) > 0 {
		outcome = OutcomeWritten
	}
	done.Outcome = fmt.Sprintf("%s %d", outcome, len(ids))
	r.ack(&e, done, outcome)
	return e
}

// draftOptions says how this entry's drafts are written: pending when
// they await review, and which contents the user rejected.
func (r *entryRun) draftOptions() draftOptions {
	d := draftOptions{pending: r.opts.review(r.w)}
	if r.opts.StateDir != "" {
		// Unreadable rejections must not stop the drain: the draft is
		// written (pending when reviewed) and can be rejected again.
		d.rejected, _ = knowledge.NewRejections(r.opts.StateDir).Load()
	}
	return d
}

func (r *entryRun) ack(e *Entry, p queue.Processed, outcome string) {
	e.Outcome = outcome
	if err := r.q.Ack(e.ID, p); err != nil && !errors.Is(err, queue.ErrNotFound) {
		e.Error = "ack: " + err.Error()
	}
}

func (r *entryRun) retry(e *Entry, now time.Time, cause error) {
	e.Error = cause.Error()
	e.Outcome = OutcomeRetry
	poisoned, err := r.q.Retry(e.ID, now, r.opts.MaxAttempts, cause.Error())
	switch {
	case err != nil:
		e.Error += "; retry: " + err.Error()
	case poisoned:
		e.Outcome = OutcomePoisoned
	}
}
