package backfill

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/reflectkb/reflect/internal/fsutil"
	"github.com/reflectkb/reflect/queue"
	"github.com/reflectkb/reflect/transcript"
)

// DefaultSettle is how long a session must have been left alone before
// backfill reads it: one written more recently is probably still open in
// its agent, whose own hooks (or the next backfill) will queue it whole.
const DefaultSettle = 2 * time.Minute

// Statuses of a session in a plan.
const (
	// StatusNew: queued by a run, one writer run.
	StatusNew = "new"
	// StatusNothing: its condensation holds nothing a writer could use
	// (no events, or one of reflect's own writer runs); not queued.
	StatusNothing = "nothing"
	// StatusBackfilled: an earlier backfill handled it at this size.
	StatusBackfilled = "backfilled"
	// StatusQueued: waiting in the queue already (a hook queued it).
	StatusQueued = "queued"
	// StatusReflected: the processed ledger holds it at this size.
	StatusReflected = "reflected"
	// StatusBusy: being written; the next backfill looks again.
	StatusBusy = "busy"
	// StatusProblem: it could not be read (Reason says why).
	StatusProblem = "problem"
)

// Options are the inputs of a plan.
type Options struct {
	Dirs Dirs
	// Agents limits the plan to these agents; empty means all of Agents.
	Agents []string
	// Since leaves out sessions last written before it; zero: no bound.
	Since time.Time
	// Project, when set (an absolute path), keeps only the sessions whose
	// working directory is it or below it.
	Project string
	// Limit is the most sessions to queue, the most recent first; 0: no
	// limit. Sessions beyond it are not read (Plan.Left counts them).
	Limit int
	// Settle is DefaultSettle when zero.
	Settle time.Duration
	// Now is time.Now when nil.
	Now func() time.Time
	// Progress, when set, hears how many of the sessions in range were
	// examined.
	Progress func(done, total int)
}

// Session is one session file in a plan.
type Session struct {
	Agent     string    `json:"agent"`
	Path      string    `json:"path"`
	SessionID string    `json:"session_id,omitempty"`
	Cwd       string    `json:"cwd,omitempty"`
	Size      int64     `json:"size"`
	Modified  time.Time `json:"modified"`
	// Condensed is the size of what the drain would send a writer.
	Condensed int    `json:"condensed_chars"`
	Status    string `json:"status"`
	Reason    string `json:"reason,omitempty"`
}

// AgentPlan sums one agent's sessions.
type AgentPlan struct {
	Agent string `json:"agent"`
	// Sessions counts the agent's sessions in range that were examined.
	Sessions int `json:"sessions"`
	// New sessions are queued by a run: WriterRuns writer runs that send
	// CondensedChars in all.
	New            int   `json:"new"`
	CondensedChars int64 `json:"condensed_chars"`
	WriterRuns     int   `json:"writer_runs"`
	// Already counts sessions backfilled, queued or reflected before.
	Already  int `json:"already"`
	Nothing  int `json:"nothing"`
	Busy     int `json:"busy"`
	Problems int `json:"problems"`
	// Left counts sessions beyond --limit, not read.
	Left int `json:"left"`
}

// Plan is what a backfill would queue.
type Plan struct {
	Agents   []AgentPlan `json:"agents"`
	Sessions []Session   `json:"sessions"`
	// Problems are directories and files that could not be read.
	Problems []Problem `json:"problems"`
	// Total sums Agents.
	Total AgentPlan `json:"total"`
}

// MakePlan finds the sessions of the chosen agents, keeps those in range
// (Since, Project), and examines them from the most recent: each is
// checked against st, the queue and the ledger (known), and streamed
// through transcript.Condense with the drainer's limits, so the plan's
// condensed size is what the drainer would send. Files that cannot be
// read are named in the plan and the rest goes on.
func MakePlan(ctx context.Context, o Options, st *State, known *queue.Known) (*Plan, error) {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Settle <= 0 {
		o.Settle = DefaultSettle
	}
	agents := o.agents()
	p := &Plan{Sessions: []Session{}, Problems: []Problem{}}
	todo, probs := o.collect(agents)
	p.Problems = append(p.Problems, probs...)
	ex := examiner{o: o, st: st, known: known, now: o.Now()}
	if o.Project != "" {
		ex.projects = projectForms(o.Project)
	}
	byAgent := map[string]*AgentPlan{}
	for _, a := range agents {
		byAgent[a] = &AgentPlan{Agent: a}
	}
	newCount, folded := 0, 0
	// Remembered once the workers are done: they read st meanwhile.
	readings := map[string]Reading{}
	// Folded in order, so --limit keeps the most recent sessions
	// whichever worker finished first.
	err := ex.examineInOrder(ctx, todo, examineWorkers(), func(i int, r examined) bool {
		f := todo[i]
		folded = i + 1
		if r.read != nil {
			readings[f.path] = *r.read
		}
		if o.Progress != nil {
			o.Progress(i+1, len(todo))
		}
		if r.keep {
			if r.s.Status == StatusNew {
				newCount++
			}
			byAgent[f.agent].add(r.s)
			p.Sessions = append(p.Sessions, r.s)
		}
		return o.Limit <= 0 || newCount < o.Limit
	})
	if err != nil {
		return nil, err
	}
	for path, r := range readings {
		if st != nil {
			st.remember(path, r)
		}
	}
	for _, f := range todo[folded:] {
		byAgent[f.agent].Left++ // beyond --limit, not read
	}
	for _, a := range agents {
		ap := *byAgent[a]
		p.Agents = append(p.Agents, ap)
		p.Total.sum(ap)
	}
	p.Total.Agent = "all"
	return p, nil
}

// agents are the agents to plan, each once, in Agents' order.
func (o Options) agents() []string {
	if len(o.Agents) == 0 {
		return Agents
	}
	var out []string
	for _, a := range Agents {
		for _, b := range o.Agents {
			if a == b {
				out = append(out, a)
				break
			}
		}
	}
	return out
}

// collect lists the agents' session files last written since o.Since,
// the most recent first: with --limit, the sessions most worth a
// learning are queued, and the oldest wait.
func (o Options) collect(agents []string) ([]found, []Problem) {
	var todo []found
	var problems []Problem
	for _, a := range agents {
		if src, ok := sourceOf(a); ok && src.prepare != nil {
			problems = append(problems, src.prepare(o)...)
		}
		cands, probs := locate(o.Dirs, a)
		problems = append(problems, probs...)
		for _, c := range cands {
			f := found{candidate: c}
			f.fi, f.err = os.Lstat(c.path)
			if f.err == nil && !o.Since.IsZero() && f.fi.ModTime().Before(o.Since) {
				continue
			}
			todo = append(todo, f)
		}
	}
	sort.SliceStable(todo, func(i, j int) bool { return todo[i].modTime().After(todo[j].modTime()) })
	return todo, problems
}

// batchPerWorker is how many sessions per worker may be examined ahead
// of the one folded next: enough that a large session holds up no
// worker, few enough that --limit reads few sessions it then leaves.
const batchPerWorker = 4

// examineWorkers is how many sessions are condensed at once: the
// condenser is CPU-bound (JSON decoding), and each costs bounded memory.
func examineWorkers() int {
	return max(1, min(runtime.GOMAXPROCS(0), 4))
}

// examined is what examine said of one session: keep=false when it is
// out of --project's range; read, when it condensed the file, what the
// next plan may reuse.
type examined struct {
	s    Session
	keep bool
	read *Reading
}

// examineInOrder examines todo on workers goroutines, at most
// workers*batchPerWorker sessions ahead of the fold, and hands fold each
// result in todo's order until fold returns false or ctx is done. Each
// worker takes the next session as soon as it is free, so a large
// session delays the fold, not the other workers.
func (ex *examiner) examineInOrder(ctx context.Context, todo []found, workers int, fold func(i int, r examined) bool) error {
	// Session i is handed out once session i-window is folded, so the
	// result of i takes the slot that one's result left.
	window := workers * batchPerWorker
	results := make([]chan examined, window)
	for i := range results {
		results[i] = make(chan examined, 1)
	}
	room := make(chan struct{}, window)
	jobs := make(chan int)
	quit := make(chan struct{})
	var wg sync.WaitGroup
	defer wg.Wait()
	defer close(quit)
	wg.Add(1)
	go func() { // hands out the sessions, as far ahead as room allows
		defer wg.Done()
		defer close(jobs)
		for i := range todo {
			select {
			case room <- struct{}{}:
			case <-quit:
				return
			}
			select {
			case jobs <- i:
			case <-quit:
				return
			}
		}
	}()
	for w := 0; w < min(workers, len(todo)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				results[i%window] <- ex.examine(todo[i])
			}
		}()
	}
	for i := range todo {
		if err := ctx.Err(); err != nil {
			return err
		}
		r := <-results[i%window]
		<-room
		if !fold(i, r) {
			return nil
		}
	}
	return nil
}

// found is a candidate and its Lstat.
type found struct {
	candidate
	fi  os.FileInfo
	err error
}

func (f found) modTime() time.Time {
	if f.fi == nil {
		return time.Time{}
	}
	return f.fi.ModTime()
}

func (ap *AgentPlan) add(s Session) {
	ap.Sessions++
	switch s.Status {
	case StatusNew:
		ap.New++
		ap.WriterRuns++
		ap.CondensedChars += int64(s.Condensed)
	case StatusNothing:
		ap.Nothing++
	case StatusBackfilled, StatusQueued, StatusReflected:
		ap.Already++
	case StatusBusy:
		ap.Busy++
	case StatusProblem:
		ap.Problems++
	}
}

func (ap *AgentPlan) sum(o AgentPlan) {
	ap.Sessions += o.Sessions
	ap.New += o.New
	ap.CondensedChars += o.CondensedChars
	ap.WriterRuns += o.WriterRuns
	ap.Already += o.Already
	ap.Nothing += o.Nothing
	ap.Busy += o.Busy
	ap.Problems += o.Problems
	ap.Left += o.Left
}

// examiner decides the status of each session.
type examiner struct {
	o     Options
	st    *State
	known *queue.Known
	now   time.Time
	// projects are Options.Project's forms (projectForms).
	projects []string
}

// examine returns the session f is.
func (ex *examiner) examine(f found) examined {
	s, keep, read := ex.status(f)
	return examined{s: s, keep: keep, read: read}
}

// status gives the session f is, whether it is in --project's range and,
// when it condensed the file, the reading to remember.
func (ex *examiner) status(f found) (s Session, keep bool, read *Reading) {
	s = Session{Agent: f.agent, Path: f.path, SessionID: f.sessionID, Cwd: f.cwdHint}
	// A file that cannot be read is named whatever its project: its
	// directory is not known, and the user should hear of it.
	problem := func(why string) (Session, bool, *Reading) {
		s.Status, s.Reason = StatusProblem, why
		return s, true, nil
	}
	switch {
	case errors.Is(f.err, fs.ErrNotExist):
		return problem("missing (removed while backfill listed it)")
	case f.err != nil:
		return problem("unreadable: " + reason(f.err))
	case !f.fi.Mode().IsRegular():
		return problem("not a regular file: " + fsutil.Kind(f.fi.Mode()))
	}
	s.Size, s.Modified = f.fi.Size(), f.fi.ModTime()
	if r, ok := ex.st.done(f.path, s.Size, s.Modified); ok {
		s.Cwd, s.Status, s.Reason = r.Cwd, StatusBackfilled, r.Outcome
		return s, ex.inProject(s.Cwd), nil
	}
	if f.unsupported != "" {
		return problem(f.unsupported)
	}
	if age := ex.now.Sub(s.Modified); age < ex.o.Settle {
		s.Status = StatusBusy
		s.Reason = fmt.Sprintf("written %s ago, probably still open: skipped, and looked at again by the next backfill", age.Round(time.Second))
		return s, ex.o.Project == "" || ex.inProject(s.Cwd), nil
	}
	r, ok := ex.st.reading(f.path, s.Size, s.Modified)
	if !ok {
		// Condense streams the file with bounded state, however large it is.
		c, err := transcript.Condense(f.path, f.agent, transcript.Limits{})
		if err != nil {
			return problem("unreadable: " + strings.TrimPrefix(err.Error(), "condense "+f.path+": "))
		}
		if fi, err := os.Lstat(f.path); err != nil || fi.Size() != s.Size || !fi.ModTime().Equal(s.Modified) {
			if c.Cwd != "" {
				s.Cwd = c.Cwd
			}
			s.Status, s.Reason = StatusBusy, "changed while backfill read it: skipped, and looked at again by the next backfill"
			return s, ex.inProject(s.Cwd), nil
		}
		r = Reading{Size: s.Size, Modified: s.Modified, SessionID: c.SessionID, Cwd: c.Cwd, Condensed: len(c.Text), Skip: c.Skip}
		read = &r
	}
	if r.Cwd != "" {
		s.Cwd = r.Cwd
	}
	if s.SessionID == "" {
		s.SessionID = r.SessionID
	}
	if !ex.inProject(s.Cwd) {
		return s, false, read
	}
	s.Condensed = r.Condensed
	return ex.settle(s, r.Skip), true, read
}

// settle gives a readable session in range its status: already queued or
// reflected, nothing to reflect, or new.
func (ex *examiner) settle(s Session, skip string) Session {
	if ex.known != nil {
		if ex.known.Pending(s.SessionID, s.Path) {
			s.Status, s.Reason = StatusQueued, "waiting in the queue"
			return s
		}
		covered, err := ex.known.Covered(s.Path, s.Size, func() (string, error) {
			_, sum, err := queue.HashFile(s.Path)
			return sum, err
		})
		if err != nil {
			s.Status, s.Reason = StatusProblem, "unreadable: "+err.Error()
			return s
		}
		if covered {
			s.Status, s.Reason = StatusReflected, "reflected at this size"
			return s
		}
	}
	if skip != "" {
		s.Status, s.Reason = StatusNothing, skip
		return s
	}
	s.Status = StatusNew
	return s
}

// inProject reports whether cwd is the plan's project or below it (true
// when the plan has none). A session whose directory is unknown is not
// in any project.
func (ex *examiner) inProject(cwd string) bool {
	if ex.o.Project == "" {
		return true
	}
	if cwd == "" {
		return false
	}
	cwd = filepath.Clean(cwd)
	for _, p := range ex.projects {
		if cwd == p || strings.HasPrefix(cwd, p+string(filepath.Separator)) || p == string(filepath.Separator) {
			return true
		}
	}
	return false
}

// projectForms is the project as given and with its symbolic links
// resolved: an agent records the directory it ran in either way.
func projectForms(p string) []string {
	p = filepath.Clean(p)
	out := []string{p}
	if r, err := filepath.EvalSymlinks(p); err == nil && r != p {
		out = append(out, r)
	}
	return out
}
