package webui

import (
	"errors"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/reflectkb/reflect/drain"
	"github.com/reflectkb/reflect/drain/writer"
	"github.com/reflectkb/reflect/queue"
	"github.com/reflectkb/reflect/recall"
	"github.com/reflectkb/reflect/statusline"
)

// activityDays is how many UTC days the activity charts cover.
const activityDays = 14

// chartHeight is the height in pixels of the tallest bar of a chart.
const chartHeight = 120

// Day is one UTC day of drain activity and its bars' heights.
type Day struct {
	Date      string
	USD       float64
	Entries   int
	Learnings int
	// Recalls is how many learnings recall injected into sessions.
	Recalls int
	// SpendBar, LearningsBar and RecallsBar are bar heights in pixels,
	// computed here because the CSP allows no inline style to size a bar
	// with.
	SpendBar, LearningsBar, RecallsBar int
	// X, SpendY, LearningsY and RecallsY place the bars in the chart's
	// viewBox.
	X, SpendY, LearningsY, RecallsY int
}

type activityData struct {
	Depth     int
	Queue     []queue.Record
	Poisoned  []queue.Poisoned
	LastEvent *statusline.Event
	Runs      []drain.WriterRun
	Days      []Day
	// CapUSD and CapEntries are drain.daily_usd and drain.daily_max (0:
	// no cap); CapBar is the y of the spend cap's line in the chart.
	CapUSD     float64
	CapEntries int
	CapBar     int
	ChartH     int
	ChartW     int
	Errors     []string
	// Writer is drain.writer ("builtin" when none was chosen), WriterLLM
	// whether it runs a language model and so spends, OptIn the command
	// that chooses one.
	Writer    string
	WriterLLM bool
	OptIn     string
	// Today is the current UTC day of Days.
	Today Day
	// Sessions are the sessions the injection ledger recorded in the
	// charts' days, the most recent first; SessionsMore counts the rest.
	Sessions     []sessionRef
	SessionsMore int
}

func (s *Server) activityPage(w http.ResponseWriter, r *http.Request) {
	d := activityData{CapUSD: s.cfg.Drain.DailyUSD, CapEntries: s.cfg.Drain.DailyMax, ChartH: chartHeight, ChartW: activityDays * 10}
	note := func(err error) {
		if err != nil {
			d.Errors = append(d.Errors, err.Error())
		}
	}
	q, err := queue.Open(s.cfg.StateDir)
	if err == nil {
		d.Depth = q.Depth()
		d.Queue, _, err = q.List()
		note(err)
		d.Poisoned, err = q.ListPoisoned()
		note(err)
	} else {
		note(err)
	}
	if ev, err := statusline.Read(s.cfg.StateDir); err == nil && !ev.TS.IsZero() {
		d.LastEvent = &ev
	} else {
		note(err)
	}
	now := s.opts.Now().UTC()
	start := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC).AddDate(0, 0, 1-activityDays)
	d.Runs, err = drain.WriterRuns(s.cfg.StateDir, start)
	note(err)
	d.Days = days(d.Runs, recall.HitsPerDay(s.cfg.StateDir), start, d.CapUSD, &d.CapBar)
	d.Today = d.Days[len(d.Days)-1]
	inj, err := s.ledgerWhere(func(in recall.Injection) bool { return !in.Time.Before(start) })
	note(err)
	d.Sessions, d.SessionsMore = sessions(inj)
	d.Writer = strings.ToLower(strings.TrimSpace(s.cfg.Drain.Writer))
	if d.Writer == "" {
		d.Writer = (&writer.Builtin{}).Name()
	}
	d.WriterLLM, d.OptIn = writer.LLM(d.Writer), writer.OptIn
	// Newest run first in the table.
	sort.SliceStable(d.Runs, func(i, j int) bool { return d.Runs[i].TS.After(d.Runs[j].TS) })
	s.renderPage(w, http.StatusOK, "activity", page{Title: "Activity", Nav: "activity", Data: d})
}

// days sums runs per UTC day from start, takes each day's recall hits
// (by "2006-01-02" day) and scales the bars: spend against the larger of
// the cap and the most spent in a day, so the cap line is always on the
// chart.
func days(runs []drain.WriterRun, hits map[string]int, start time.Time, capUSD float64, capBar *int) []Day {
	out := make([]Day, activityDays)
	for i := range out {
		day := start.AddDate(0, 0, i)
		out[i].Date = day.Format("01-02")
		out[i].Recalls = hits[day.Format(time.DateOnly)]
	}
	for _, r := range runs {
		i := int(r.TS.UTC().Sub(start) / (24 * time.Hour))
		if i < 0 || i >= activityDays {
			continue
		}
		out[i].USD += r.CostUSD
		out[i].Entries++
		out[i].Learnings += r.Learnings
	}
	maxUSD, maxL, maxR := capUSD, 0, 0
	for _, d := range out {
		maxUSD = max(maxUSD, d.USD)
		maxL = max(maxL, d.Learnings)
		maxR = max(maxR, d.Recalls)
	}
	scale := func(v, m float64) int {
		if m <= 0 {
			return 0
		}
		// A day that spent or wrote anything gets a visible bar, however
		// small beside the cap.
		if v > 0 {
			return max(1, int(v/m*chartHeight))
		}
		return 0
	}
	for i := range out {
		out[i].SpendBar = scale(out[i].USD, maxUSD)
		out[i].LearningsBar = scale(float64(out[i].Learnings), float64(maxL))
		out[i].X = i*10 + 1
		out[i].SpendY = chartHeight - out[i].SpendBar
		out[i].LearningsY = chartHeight - out[i].LearningsBar
		out[i].RecallsBar = scale(float64(out[i].Recalls), float64(maxR))
		out[i].RecallsY = chartHeight - out[i].RecallsBar
	}
	*capBar = chartHeight - scale(capUSD, maxUSD)
	return out
}

// queueAction re-arms or drops a queue entry, as 'reflect queue retry'
// and 'reflect queue drop' do, and returns to the activity page.
func (s *Server) queueAction(w http.ResponseWriter, r *http.Request, act func(q *queue.Queue, id string) error) {
	q, err := queue.Open(s.cfg.StateDir)
	if err != nil {
		s.fail(w, http.StatusInternalServerError, err.Error())
		return
	}
	id, err := q.Resolve(r.PathValue("id"))
	if err == nil {
		err = act(q, id)
	}
	switch {
	case errors.Is(err, queue.ErrNotFound):
		s.fail(w, http.StatusNotFound, "no queue entry "+r.PathValue("id")+"; it may have been drained or dropped")
	case errors.Is(err, queue.ErrLocked):
		s.fail(w, http.StatusServiceUnavailable, "the queue is busy (a drain or hook holds its lock); try again in a moment")
	case err != nil:
		s.fail(w, http.StatusInternalServerError, err.Error())
	default:
		http.Redirect(w, r, "/activity", http.StatusSeeOther)
	}
}

func (s *Server) queueRetry(w http.ResponseWriter, r *http.Request) {
	s.queueAction(w, r, (*queue.Queue).Requeue)
}

func (s *Server) queueDrop(w http.ResponseWriter, r *http.Request) {
	s.queueAction(w, r, (*queue.Queue).Drop)
}
