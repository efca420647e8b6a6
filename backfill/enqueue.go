package backfill

import (
	"time"

	"github.com/reflectkb/reflect/queue"
)

// saveEvery is how many sessions a run records between saves of
// backfill.json: an interrupted run keeps most of its record (and the
// queue itself keeps the rest from being queued twice).
const saveEvery = 100

// Result is what a run queued.
type Result struct {
	Queued int `json:"queued"`
	// Already counts new sessions that a hook queued or the drainer
	// reflected between the plan and the run.
	Already int `json:"already"`
	// Problems are the sessions that could not be queued, with why.
	Problems []Problem `json:"problems"`
}

// Enqueue queues the plan's new sessions through q.Enqueue, as the Stop
// and SessionEnd hooks queue theirs (trigger backfill), so the drainer,
// the writer the user chose and its caps handle them unchanged, and
// records them, and the sessions with nothing to reflect, in st. It
// saves st as it goes and at the end; progress, when set, hears how many
// of the new sessions were queued.
func Enqueue(q *queue.Queue, p *Plan, st *State, now time.Time, progress func(done, total int)) (Result, error) {
	res := Result{Problems: []Problem{}}
	total := p.Total.New
	done, unsaved := 0, 0
	for _, s := range p.Sessions {
		switch s.Status {
		case StatusNothing:
			st.mark(s, "nothing", now)
			unsaved++
		case StatusNew:
			outcome := enqueueOne(q, s, &res)
			if outcome != "" {
				st.mark(s, outcome, now)
				unsaved++
			}
			done++
			if progress != nil {
				progress(done, total)
			}
		}
		if unsaved >= saveEvery {
			if err := st.Save(); err != nil {
				return res, err
			}
			unsaved = 0
		}
	}
	return res, st.Save()
}

// enqueueOne queues s and returns the outcome to record, "" when it
// could not be queued (res.Problems then names it).
func enqueueOne(q *queue.Queue, s Session, res *Result) string {
	queued, reason, err := q.Enqueue(queue.Record{
		TranscriptPath: s.Path,
		SessionID:      s.SessionID,
		Trigger:        queue.TriggerBackfill,
		Harness:        queue.Harness(s.Agent),
		Cwd:            s.Cwd,
	})
	switch {
	case err != nil:
		res.Problems = append(res.Problems, Problem{Path: s.Path, Reason: err.Error()})
		return ""
	case queued:
		res.Queued++
		return "queued"
	case reason == queue.ReasonAlreadyQueued || reason == queue.ReasonAlreadyReflected:
		res.Already++
		return reason
	default:
		res.Problems = append(res.Problems, Problem{Path: s.Path, Reason: reason})
		return ""
	}
}
