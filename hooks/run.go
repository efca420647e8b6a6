package hooks

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	"github.com/reflectkb/reflect/importer"
	"github.com/reflectkb/reflect/index"
	"github.com/reflectkb/reflect/internal/config"
	"github.com/reflectkb/reflect/internal/fsutil"
	"github.com/reflectkb/reflect/internal/gitrepo"
	"github.com/reflectkb/reflect/internal/proc"
	"github.com/reflectkb/reflect/knowledge"
	"github.com/reflectkb/reflect/queue"
	"github.com/reflectkb/reflect/recall"
	"github.com/reflectkb/reflect/statusline"
)

// DefaultDeadline is how long a hook may work before it gives up and
// returns what it has: agents wait for hooks, and a slow memory is worse
// than none.
const DefaultDeadline = 1500 * time.Millisecond

// Options are the inputs of one hook run.
type Options struct {
	Event, Agent string
	In           io.Reader
	Out          io.Writer
	// Config is the loaded configuration; nil when loading failed (the hook
	// then does nothing, as it must not break the agent).
	Config   *config.Config
	Now      func() time.Time
	Deadline time.Duration
	// Start is when the deadline starts: the process start, so that
	// reading and decoding a huge payload counts against it too. Zero
	// means when Run is called.
	Start time.Time
	// Spawn starts `reflect ARGS...` in the background (a drain, a
	// reindex); nil means proc.SpawnDetached. Tests replace it.
	Spawn func(args ...string) error
	// InlineRefreshMax is the largest knowledge base (in learnings) whose
	// index a hook brings up to date itself when documents/ changed; a
	// larger one is refreshed by a background `reflect reindex` while the
	// hook recalls from the index as it stands. Zero means
	// DefaultInlineRefreshMax.
	InlineRefreshMax int
	// TranscriptWait bounds how long a Stop waits for a transcript the
	// agent is still creating (see awaitTranscript); zero means
	// DefaultTranscriptWait. Tests on a loaded machine raise it for the
	// writer they stand in for.
	TranscriptWait time.Duration
	// GitTimeout bounds the git work of a session-start recall; zero means
	// gitrepo.DefaultTimeout. Tests raise it to check what git returns on
	// a loaded machine.
	GitTimeout time.Duration
}

// DefaultInlineRefreshMax bounds the refresh a hook does in its own time.
// A refresh stats every document, so its cost grows with the knowledge
// base; past this size it would not fit in the hook's deadline, and a hook
// that gives up recalls nothing until something else reindexes.
const DefaultInlineRefreshMax = 2000

// refreshEvery debounces the background refreshes hooks start: one
// `reflect reindex` catches up with every change made before it lists
// documents/, and hooks arrive faster than it finishes at 100,000.
const refreshEvery = 30 * time.Second

// answer is what a handler produced.
type answer struct {
	context string // text to inject; "" for none
	detail  string // one line for last-event.json and the status line
}

// handler handles one event for a parsed payload.
type handler func(ctx context.Context, r *invocation) (answer, error)

var handlers = map[string]handler{
	"session-start": sessionStart,
	"prompt":        prompt,
	"pre-tool":      preTool,
	"post-tool":     postTool,
	"pre-compact":   enqueue,
	"stop":          enqueue,
	"session-end":   enqueue,
}

// invocation carries one hook invocation through its handler.
type invocation struct {
	Options
	payload *Payload
	now     time.Time
}

// Run handles one hook event. It never fails: whatever happens (bad input,
// a broken index, a panic, the deadline) it prints either a valid answer for
// the agent or nothing, logs problems to logs/hooks.log, and records the
// event in last-event.json. `reflect hook` exits 0 after it.
func Run(ctx context.Context, o Options) {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Deadline <= 0 {
		o.Deadline = DefaultDeadline
	}
	if o.Start.IsZero() {
		o.Start = time.Now()
	}
	if o.Spawn == nil {
		o.Spawn = proc.SpawnDetached
	}
	if o.TranscriptWait <= 0 {
		o.TranscriptWait = DefaultTranscriptWait
	}
	if o.Config == nil || o.Config.Disabled {
		return
	}
	r := &invocation{Options: o, now: o.Now()}
	res, err := r.handle(ctx)
	ev := statusline.Event{Event: o.Event, TS: r.now, Detail: res.detail}
	if r.payload != nil {
		ev.SessionID = r.payload.SessionID
	}
	if err != nil {
		ev.Error = true
		ev.Detail = err.Error()
		logf(o.Config.StateDir, r.now, "%s --agent %s: %v", o.Event, o.Agent, err)
	} else if werr := writeContext(o.Out, o.Agent, o.Event, res.context); werr != nil {
		logf(o.Config.StateDir, r.now, "%s --agent %s: write answer: %v", o.Event, o.Agent, werr)
	}
	// Every event shows the session's running count, not only the events
	// that recall: a Stop after three recalls still reads "recalled 3".
	if r.payload != nil {
		ev.Counts.Recalled = recall.InjectedCount(o.Config.StateDir, r.payload.SessionID)
	}
	if q, qerr := queue.Open(o.Config.StateDir); qerr == nil {
		ev.Counts.Queued = q.Depth()
	}
	if werr := statusline.Write(o.Config.StateDir, ev); werr != nil {
		logf(o.Config.StateDir, r.now, "%s: record last event: %v", o.Event, werr)
	}
}

// handle parses the payload and runs the event's handler under the
// deadline, turning panics into errors.
func (r *invocation) handle(ctx context.Context) (answer, error) {
	if err := ValidEvent(r.Event, r.Agent); err != nil {
		return answer{}, err
	}
	// The deadline runs from the process start: otherwise reading a
	// payload of megabytes, or one arriving slowly, would be free, and
	// could take longer than the whole deadline before the clock started.
	ctx, cancel := context.WithDeadline(ctx, r.Start.Add(r.Deadline))
	defer cancel()
	data, err := readPayload(ctx, r.In)
	if errors.Is(err, errPayloadTooLarge) {
		// Not an error: a tool call with a huge output is legitimate, it
		// just is not worth reading.
		return answer{detail: fmt.Sprintf("payload over %d MB ignored", maxPayload>>20)}, nil
	}
	if err != nil {
		return answer{}, err
	}
	if r.payload, err = ParsePayload(data); err != nil {
		return answer{}, err
	}
	r.payload.normalize(r.Agent)
	r.payload.bound()
	h := handlers[r.Event]
	if h == nil {
		return answer{}, nil
	}
	if ctx.Err() != nil {
		// The deadline passed before the handler could start (a slow
		// process start or payload read): starting it anyway would leave
		// it writing after the hook has answered, for nothing.
		r.keepCapture()
		return answer{}, fmt.Errorf("gave up after %s", r.Deadline)
	}
	type result struct {
		out answer
		err error
	}
	done := make(chan result, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- result{err: fmt.Errorf("internal error: %v\n%s", p, debug.Stack())}
			}
		}()
		// The deadline is enforced by the select below, not inside the
		// handler: a cancellable context makes database/sql and go-sqlite3
		// start a watcher goroutine for every statement, which cost a hook
		// on the order of a millisecond in thread switches.
		out, err := h(context.WithoutCancel(ctx), r)
		done <- result{out, err}
	}()
	select {
	case res := <-done:
		if res.err != nil && ctx.Err() != nil {
			return answer{}, fmt.Errorf("gave up after %s: %w", r.Deadline, res.err)
		}
		return res.out, res.err
	case <-ctx.Done():
		// The handler may still be writing an atomic file or a SQLite
		// transaction; both survive the process exiting mid-way.
		r.keepCapture()
		return answer{}, fmt.Errorf("gave up after %s", r.Deadline)
	}
}

var errPayloadTooLarge = errors.New("payload too large")

// readPayload reads stdin up to maxPayload bytes, giving up at ctx's
// deadline when stdin is a pipe or terminal (as from an agent): an agent
// that never finishes writing, or megabytes arriving slowly, must not hold
// the hook past it. A larger payload is drained (so the agent's write ends)
// within the same deadline and reported as errPayloadTooLarge. Other
// readers (tests, in-process callers) are read as they come.
func readPayload(ctx context.Context, in io.Reader) ([]byte, error) {
	var data []byte
	var err error
	deadline, hasDeadline := ctx.Deadline()
	if f, ok := in.(*os.File); ok && hasDeadline {
		data, err = readFileBy(f, deadline, maxPayload+1)
	} else {
		data, err = io.ReadAll(io.LimitReader(in, maxPayload+1))
	}
	if err != nil {
		return nil, err
	}
	if len(data) > maxPayload {
		if f, ok := in.(*os.File); ok && hasDeadline {
			_, _ = readFileBy(f, deadline, -1)
		} else {
			_, _ = io.Copy(io.Discard, in)
		}
		return nil, errPayloadTooLarge
	}
	return data, nil
}

// errReadDeadline is readFileBy giving up.
var errReadDeadline = errors.New("gave up reading the payload at the deadline")

// enqueue queues the session's transcript for reflection (PreCompact, Stop,
// SessionEnd). Stop fires after every turn: the queue skips a session
// already waiting and a transcript already reflected at its current size.
func enqueue(ctx context.Context, r *invocation) (answer, error) {
	h := harnessOf(r.Agent)
	if h.prepare != nil {
		if a, done, err := h.prepare(r); done || err != nil {
			return a, err
		}
	}
	if err := checkTranscript(r.payload.TranscriptPath); err != nil {
		return answer{}, err
	}
	if h.awaitTranscript {
		r.awaitTranscript()
	}
	q, err := queue.Open(r.Config.StateDir)
	if err != nil {
		return answer{}, err
	}
	queued, reason, err := q.Enqueue(r.record())
	if err != nil {
		return answer{}, err
	}
	if queued && reason != "" {
		// Worth a log line: a queue that is often busy is worth a look.
		logf(r.Config.StateDir, r.now, "%s: %s", r.Event, reason)
		return answer{detail: "queued session (" + reason + ")"}, nil
	}
	if queued {
		return answer{detail: "queued session"}, nil
	}
	return answer{detail: "not queued: " + reason}, nil
}

// transcriptWait is how often awaitTranscript looks, and enqueueMargin
// the part of the deadline it leaves for the enqueue itself.
const (
	transcriptWait = 20 * time.Millisecond
	enqueueMargin  = 400 * time.Millisecond
)

// DefaultTranscriptWait is the longest awaitTranscript waits: a transcript
// still missing after it is not one the agent is about to write.
const DefaultTranscriptWait = time.Second

// awaitTranscript waits, within the hook's deadline, for the payload's
// transcript to exist and hold something. Copilot CLI (1.0.102) runs the
// Stop hook of a session's first turn while it is still creating
// session-state/<id>/events.jsonl: enqueued at once, a one-turn session
// (copilot -p) was "not queued: transcript not found" about two runs in
// three, and never captured, since its SessionEnd names no transcript.
func (r *invocation) awaitTranscript() {
	path := r.payload.TranscriptPath
	if path == "" {
		return
	}
	until := r.Start.Add(r.Deadline - enqueueMargin)
	if limit := time.Now().Add(r.TranscriptWait); limit.Before(until) {
		until = limit
	}
	for {
		if fi, err := os.Stat(path); err == nil && fi.Size() > 0 {
			return
		}
		if time.Now().Add(transcriptWait).After(until) {
			return
		}
		time.Sleep(transcriptWait)
	}
}

// record is the queue record of an enqueueing event.
func (r *invocation) record() queue.Record {
	p := r.payload
	trigger := queue.Trigger(r.Event)
	if r.Event == "pre-compact" {
		trigger = queue.TriggerPreCompactAuto
		if p.Trigger == "manual" {
			trigger = queue.TriggerPreCompactManual
		}
	}
	return queue.Record{
		TranscriptPath: p.TranscriptPath,
		SessionID:      p.SessionID,
		Trigger:        trigger,
		Harness:        queue.Harness(r.Agent),
		Cwd:            p.Cwd,
		QueuedAt:       r.now.UTC().Truncate(time.Second),
	}
}

// keepCapture is what an enqueueing hook does when its deadline passes
// before Enqueue finished (a loaded machine, a huge ledger): the process is
// about to exit and would take the capture with it, so the record is
// spilled (one small atomic write) for the next enqueue or drain to fold
// in. If the abandoned Enqueue completes after all, the fold finds the
// session pending and drops the copy.
func (r *invocation) keepCapture() {
	if r.payload == nil || (r.Event != "pre-compact" && r.Event != "stop" && r.Event != "session-end") {
		return
	}
	if checkTranscript(r.payload.TranscriptPath) != nil {
		return // what enqueue refuses is not kept for later either
	}
	q, err := queue.Open(r.Config.StateDir)
	if err != nil {
		return
	}
	kept, err := q.Spill(r.record())
	switch {
	case err != nil:
		logf(r.Config.StateDir, r.now, "%s: keep the capture past the deadline: %v", r.Event, err)
	case kept:
		logf(r.Config.StateDir, r.now, "%s: deadline passed; kept the capture in spill/ for the next enqueue or drain", r.Event)
	}
}

// postTool arms a watcher when a shell command failed, so that the user's
// next prompt, if it corrects the agent, becomes a mini-learning.
//
// Gemini CLI gives its BeforeTool hooks no channel to the model (a
// decision or new tool input only), but appends an AfterTool hook's
// additionalContext to the tool result the model reads next. So for
// Gemini the warning a pre-tool hook would give comes here, once the
// command has failed: the moment the fix it names is needed. A command
// that succeeded gets nothing, as the warning would be noise then.
func postTool(ctx context.Context, r *invocation) (answer, error) {
	h := harnessOf(r.Agent)
	f, failed := FailedBash(r.Agent, r.payload.Raw)
	if !failed && h.failure != nil {
		f, failed = h.failure(r.payload.Raw)
	}
	if !failed {
		return answer{detail: "tool call ok"}, nil
	}
	if err := Arm(r.Config.StateDir, r.payload.SessionID, f, r.now); err != nil {
		return answer{}, err
	}
	prog, _ := programOf(f.Command)
	watching := fmt.Sprintf("watching: %s exited %d", prog, f.ExitCode)
	if !h.warnAfterTool {
		return answer{detail: watching}, nil
	}
	warn, err := warnAbout(ctx, r, f.Command)
	if err != nil {
		// The watcher is armed; a warning the index cannot give is only
		// logged, as for every hook.
		return answer{detail: watching}, err
	}
	return answer{context: warn.context, detail: watching + "; " + warn.detail}, nil
}

// openIndex opens the catalog without ever rebuilding it inside a hook: a
// rebuild the deadline cuts short would be rolled back and restarted by
// every following hook. A catalog that needs one is rebuilt by a detached
// `reflect reindex`, and this hook recalls nothing.
func (r *invocation) openIndex(ctx context.Context) (*index.Index, error) {
	c := r.Config
	opts, err := index.SettingsOptions(index.Settings(c.Index), true)
	if err != nil {
		return nil, err
	}
	ix, err := index.Open(ctx, c.DocumentsDir(), c.IndexDir(), append(opts, index.NoRebuild(), index.BusyWait(busyWait))...)
	if errors.Is(err, index.ErrNeedsRebuild) {
		if serr := r.Spawn("reindex"); serr != nil {
			return nil, fmt.Errorf("%w; starting it failed: %w", err, serr)
		}
		return nil, fmt.Errorf("%w; rebuilding in the background", err)
	}
	if err != nil {
		return nil, err
	}
	// Pick up documents added on disk (a git pull) since the last reindex;
	// while another process updates the index, recall from it as it stands.
	// A full disk likewise: the failed update was rolled back whole. A
	// large knowledge base is refreshed in the background instead.
	if r.refreshInBackground(ctx, ix) {
		return ix, nil
	}
	if _, _, err := ix.Refresh(ctx); err != nil && !errors.Is(err, index.ErrBusy) && !index.NoSpace(err) {
		ix.Close()
		if errors.Is(err, index.ErrNeedsRebuild) {
			if serr := r.Spawn("reindex"); serr != nil {
				return nil, fmt.Errorf("%w; starting it failed: %w", err, serr)
			}
			return nil, fmt.Errorf("%w; rebuilding in the background", err)
		}
		return nil, err
	}
	return ix, nil
}

// busyWait bounds each wait of a hook for another process's index update
// (a refresh, then a mini-learning's Put): two of them still leave the
// recall inside DefaultDeadline while a reindex runs.
const busyWait = 400 * time.Millisecond

// recallAnswer turns a recall into the hook's answer.
func (r *invocation) recallAnswer(res recall.Result) answer {
	if res.Warning != "" {
		logf(r.Config.StateDir, r.now, "%s: %s", r.Event, res.Warning)
	}
	a := answer{context: res.Context}
	// The ledger is an append to today's file ('reflect log' reads it); a
	// failure to record costs the record, never the injection.
	if err := recall.RecordInjection(r.Config.StateDir, r.Agent, r.Event, r.payload.SessionID, res, r.now); err != nil {
		logf(r.Config.StateDir, r.now, "%s: %v", r.Event, err)
	}
	switch {
	case len(res.Injected) > 0:
		a.detail = fmt.Sprintf("recalled %d", len(res.Injected))
	case res.StillRelevant != "":
		a.detail = "still relevant: " + res.StillRelevant
	default:
		a.detail = "nothing to recall"
	}
	return a
}

func (r *invocation) request(kind recall.Kind) recall.Request {
	p := r.payload
	return recall.Request{
		Kind: kind, Prompt: p.Prompt, Cwd: p.Cwd, SessionID: p.SessionID, Source: p.Source,
		Max: r.Config.Recall.Max, Chars: r.Config.Recall.Chars, Gate: recall.Gate(r.Config.Recall.Gate), StateDir: r.Config.StateDir, Now: r.now,
		Agent:      r.Agent,
		AgentDirs:  importer.Dirs{Home: r.Config.Agents.Home, Claude: r.Config.Agents.Claude, Codex: r.Config.Agents.Codex},
		GitTimeout: r.GitTimeout,
	}
}

// sessionStart recalls learnings for the project, branch and recent
// commits of the session's directory. After a compaction or /clear the
// agent has lost what was injected, so the session's dedupe set starts over.
func sessionStart(ctx context.Context, r *invocation) (answer, error) {
	ix, err := r.openIndex(ctx)
	if err != nil {
		return answer{}, err
	}
	defer ix.Close()
	res, err := recall.Recall(ctx, ix, r.request(recall.SessionStart))
	if err != nil {
		return answer{}, err
	}
	a := r.recallAnswer(res)
	// An unreviewed inbox is never silent: the count (no title of a
	// draft: those are not to be injected) goes to the agent, which can
	// tell the user, and to the status line's event.
	if n, err := knowledge.New(ix).CountPending(ctx, r.Config.StateDir); err == nil && n > 0 {
		note := ReviewNote(n)
		a.context = strings.TrimLeft(a.context+"\n<reflect-learnings>\nFor the user: "+note+"\n</reflect-learnings>", "\n")
		a.detail += "; " + note
	}
	if r.startDrain() {
		a.detail += "; draining in the background"
	}
	if r.startSync() {
		a.detail += "; syncing in the background"
	}
	return a, nil
}

// ReviewNote says how many drafts wait for review and the command that
// reviews them: "3 learnings wait for review: reflect review".
func ReviewNote(n int) string {
	if n == 1 {
		return "1 learning waits for review: reflect review"
	}
	return fmt.Sprintf("%d learnings wait for review: reflect review", n)
}

// refreshInBackground reports whether documents/ changed since the index
// was last brought up to date in a knowledge base too large for the hook
// to refresh in its own time (InlineRefreshMax), having started `reflect
// reindex` to do it unless one was started in the last refreshEvery.
func (r *invocation) refreshInBackground(ctx context.Context, ix *index.Index) bool {
	limit := r.InlineRefreshMax
	if limit <= 0 {
		limit = DefaultInlineRefreshMax
	}
	if behind, err := ix.Behind(ctx); err != nil || !behind {
		return false
	}
	if n, err := ix.DocCount(ctx); err != nil || n <= limit {
		return false
	}
	r.spawnDebounced("reindex-started", refreshEvery, "reindex")
	return true
}

// spawnDebounced starts `reflect args...` in the background unless the
// file stamp in the state directory says one was started in the last
// every, and reports whether it started one. The stamp is written only
// once a start succeeded: a failed start is retried by the next hook
// instead of waiting out the debounce.
func (r *invocation) spawnDebounced(stamp string, every time.Duration, args ...string) bool {
	path := filepath.Join(r.Config.StateDir, stamp)
	if fi, err := os.Stat(path); err == nil && r.now.Sub(fi.ModTime()) < every {
		return false
	}
	if err := r.Spawn(args...); err != nil {
		logf(r.Config.StateDir, r.now, "%s: start %s: %v", r.Event, args[0], err)
		return false
	}
	// The stamp's mtime is the hook's clock, which the next hook compares.
	err := fsutil.WriteAtomicNoSync(path, []byte(r.now.UTC().Format(time.RFC3339)+"\n"), fsutil.FilePerm)
	if err == nil {
		err = os.Chtimes(path, r.now, r.now)
	}
	if err != nil {
		logf(r.Config.StateDir, r.now, "%s: %v", r.Event, err)
	}
	return true
}

// startSync starts `reflect sync --background` when sync.auto is set, the
// learnings directory is a git repository ('reflect sync init' ran), and
// no sync was started in the last sync.pull_interval. The sync runs
// detached, never in the hook's own time; its lock lets one run at a time.
func (r *invocation) startSync() bool {
	if !r.Config.Sync.Auto {
		return false
	}
	if _, err := os.Stat(filepath.Join(r.Config.LearningsDir, ".git")); err != nil {
		return false
	}
	return r.spawnDebounced("sync-started", r.Config.Sync.PullInterval, "sync", "--background")
}

// drainEvery debounces the background drains SessionStart starts: agents
// open many sessions, and a drain that just ran has nothing new to do.
const drainEvery = 10 * time.Minute

// startDrain starts a background drain when transcripts are waiting and
// none was started in the last drainEvery. Two sessions starting at once
// may both start one; the drain's own lock lets only one run.
func (r *invocation) startDrain() bool {
	q, err := queue.Open(r.Config.StateDir)
	if err != nil || q.Depth() == 0 {
		return false
	}
	return r.spawnDebounced("drain-started", drainEvery, "drain")
}

// prompt first turns a correction of a just-failed command into a
// mini-learning, then recalls learnings for the prompt.
func prompt(ctx context.Context, r *invocation) (answer, error) {
	ix, err := r.openIndex(ctx)
	if err != nil {
		return answer{}, err
	}
	defer ix.Close()
	p := r.payload
	var mini string
	if _, armed := Armed(r.Config.StateDir, p.SessionID, r.now); armed {
		ev := PromptEvent{Agent: r.Agent, SessionID: p.SessionID, Prompt: p.Prompt, Cwd: p.Cwd,
			Project: gitrepo.Project(ctx, p.Cwd)}
		id, ok, err := CaptureCorrection(ctx, ix, r.Config.StateDir, ev, r.now)
		if err != nil {
			logf(r.Config.StateDir, r.now, "prompt: mini-learning: %v", err)
		} else if ok {
			mini = id
		}
	}
	req := r.request(recall.Prompt)
	if mini != "" {
		// the user just said it; repeating it back adds nothing
		req.Exclude = []string{mini}
	}
	res, err := recall.Recall(ctx, ix, req)
	if err != nil {
		return answer{}, err
	}
	a := r.recallAnswer(res)
	if mini != "" {
		a.detail = "learned " + mini + "; " + a.detail
	}
	return a, nil
}
