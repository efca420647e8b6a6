package recall

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/reflectkb/reflect/importer"
	"github.com/reflectkb/reflect/index"
	"github.com/reflectkb/reflect/internal/gitrepo"
)

// Kind says which moment of a session asks for learnings.
type Kind int

const (
	// Prompt recalls for a user prompt (UserPromptSubmit).
	Prompt Kind = iota + 1
	// SessionStart recalls for a new, resumed, cleared or compacted session
	// from its working directory.
	SessionStart
)

// Default budgets, the same as config's: three learnings in at most 1,500
// characters keep the block a small share of any agent's context.
const (
	DefaultMax   = 3
	DefaultChars = 1500
)

// Request is one recall.
type Request struct {
	Kind Kind
	// Prompt is the user's prompt (Kind Prompt).
	Prompt string
	// Task says Prompt is a task the caller asks learnings for (the MCP
	// recall tool), not a prompt typed to an agent: a task is work to do
	// by nature, so the gate does not hold a request for work to twice
	// the floor as it does a prompt (intent.go), and the agent asked, so
	// a hit that clears the floor is not vetoed (gate.go).
	Task bool
	// Cwd is the session's working directory. At session start it is the
	// query; for a prompt it names the project whose learnings rank first.
	Cwd string
	// SessionID keys the dedupe set. Empty: no dedupe state is read or
	// written.
	SessionID string
	// Source is the SessionStart source: startup, resume, clear or compact.
	// After clear and compact the agent no longer has what was injected, so
	// the session's dedupe set is cleared before recalling.
	Source string
	// Max and Chars bound the block: at most Max new learnings and Chars
	// characters in all. Zero means DefaultMax / DefaultChars.
	Max, Chars int
	// Gate is how readily a prompt gets learnings (gate.go); zero means
	// GateStrict.
	Gate Gate
	// StateDir is $REFLECT_STATE_DIR; empty disables dedupe like an empty
	// SessionID.
	StateDir string
	// Now stamps dedupe entries; zero means time.Now().
	Now time.Time
	// Exclude names learnings never to mention, e.g. the mini-learning just
	// written from this very prompt.
	Exclude []string
	// Agent is the agent asking (claude, codex, gemini, opencode, copilot);
	// a rule imported from a file it loads itself (CLAUDE.md for Claude
	// Code, AGENTS.md for Codex…) is not injected again. Empty: every
	// learning may be.
	Agent string
	// AgentDirs are where the agents keep their own files (the home
	// directory, $CLAUDE_CONFIG_DIR, $CODEX_HOME), for Agent's check.
	AgentDirs importer.Dirs
	// GitTimeout bounds the git work of a session-start query; zero means
	// gitrepo.DefaultTimeout.
	GitTimeout time.Duration
}

// Hit is a learning in the block.
type Hit struct {
	ID         string  `json:"id"`
	Title      string  `json:"title"`
	Confidence string  `json:"confidence"`
	Insight    string  `json:"insight"` // key insight, else a snippet of the body
	Score      float64 `json:"score"`   // the index's fused score
	// Evidence is the BM25F evidence that cleared the relevance floor
	// (see floor.go), in units of the largest idf a word can score (that
	// of a word in one learning, capped at its value in a KB of 1,000).
	Evidence float64 `json:"evidence"`
	// Stale marks a learning whose cited files changed since it was
	// written; rendered as "may be stale".
	Stale bool `json:"stale,omitempty"`
}

// Result is what a recall produced.
type Result struct {
	// Query is the text searched ("" when the request was skipped).
	Query   string `json:"query"`
	Project string `json:"project,omitempty"`
	// Context is the <reflect-learnings> block, "" when there is nothing
	// worth saying.
	Context string `json:"context"`
	// Injected are the new learnings in Context, best first.
	Injected []Hit `json:"injected"`
	// StillRelevant is the id of the best hit when it was already injected
	// in this session; Context names it in one line instead of repeating it.
	StillRelevant string `json:"still_relevant,omitempty"`
	// Skipped says why Context is empty.
	Skipped string `json:"skipped,omitempty"`
	// Warning reports dedupe trouble that did not stop the recall (the
	// lock was busy, the state file could not be written), for the hook
	// log: a learning may be repeated later in the session.
	Warning string `json:"warning,omitempty"`
}

// searchHeadroom is how many results beyond the budget are fetched. The
// index orders by fused score (× confidence, scope), so the strongest
// lexical match of a low-confidence learning can sit well below rank Max;
// and learnings already injected in the session are passed over.
const searchHeadroom = 20

// maxSearch bounds the search however long the session: each result costs
// the index a body read for its snippet.
const maxSearch = 60

// Recall finds the learnings worth injecting for req and renders them. It
// returns an empty Context (and Skipped saying why) when the request is not
// worth a search or nothing passes the relevance floor and the gate. Only a
// failing index is an error; dedupe state that cannot be read or written
// degrades to repeating a learning, never to a failed hook.
func Recall(ctx context.Context, ix *index.Index, req Request) (Result, error) {
	req = withDefaults(req)
	res := Result{Injected: []Hit{}}
	var skip string
	switch req.Kind {
	case Prompt:
		res.Query, skip = promptQuery(req.Prompt)
		if skip == "" {
			res.Project = projectName(ctx, req.Cwd)
		}
	case SessionStart:
		res.Query, res.Project, skip = sessionQuery(ctx, req.Cwd, req.GitTimeout)
	default:
		return res, fmt.Errorf("recall: unknown request kind %d", req.Kind)
	}

	dedupe := req.SessionID != "" && req.StateDir != ""
	var path string
	var injected map[string]string
	if dedupe {
		path = sessionPath(req.StateDir, req.SessionID)
		res.Warning = resetSession(ctx, req, path)
		// A first look without the lock sizes the search; the set is read
		// again under the lock before anything is chosen. The file is
		// replaced atomically, so this read sees a whole version.
		injected = loadInjected(path)
	}
	if skip != "" {
		res.Skipped = skip
		return res, nil
	}
	kept, ev, err := candidates(ctx, ix, req, res.Query, res.Project, len(injected))
	if err != nil {
		return res, err
	}
	if len(kept) == 0 {
		res.Skipped = "no learning passes the relevance floor and the gate"
		return res, nil
	}
	if dedupe {
		// The lock covers only the read-choose-write of the dedupe set, not
		// the search: held for microseconds, it is there within lockWait
		// even under load (held across searches, half the prompt hooks of a
		// loaded machine timed out and went ahead without it). If it is
		// not, nothing is injected: a missed recall beats a repeated one.
		unlock, locked := lockSessions(ctx, req.StateDir)
		defer unlock()
		if !locked {
			res.Skipped = "session dedupe lock busy; injected nothing rather than risk a repeat"
			res.Warning = res.Skipped
			return res, nil
		}
		injected = loadInjected(path)
	}
	return inject(res, req, kept, ev, injected, path, dedupe), nil
}

// withDefaults fills in the budgets and the clock a request left zero.
func withDefaults(req Request) Request {
	if req.Max <= 0 {
		req.Max = DefaultMax
	}
	if req.Chars <= 0 {
		req.Chars = DefaultChars
	}
	if req.Now.IsZero() {
		req.Now = time.Now()
	}
	return req
}

// resetSession clears the session's dedupe set after compact and clear,
// when the agent no longer holds what was injected; it returns the error
// as a warning ("" if none).
func resetSession(ctx context.Context, req Request, path string) string {
	if req.Kind != SessionStart || (req.Source != "compact" && req.Source != "clear") {
		return ""
	}
	// Under the lock, so that a save in flight cannot bring the old set
	// back; without it the file goes all the same.
	unlock, _ := lockSessions(ctx, req.StateDir)
	defer unlock()
	if err := removeSession(path); err != nil {
		return err.Error()
	}
	return ""
}

// candidates searches for query and keeps what clears the floor (a
// prompt: the gate; a session's start: the floor and the project's
// briefing), with its evidence, best first. seen is how many learnings the
// session was given already: the search looks past them.
func candidates(ctx context.Context, ix *index.Index, req Request, query, project string, seen int) ([]index.Result, []float64, error) {
	var brief []index.Result
	if req.Kind == SessionStart {
		var err error
		if brief, err = projectBriefing(ctx, ix, project, req.Now); err != nil {
			return nil, nil, err
		}
	}
	results, err := ix.Search(ctx, index.Query{
		Text:    query,
		Limit:   min(req.Max+seen+searchHeadroom, maxSearch),
		Project: project,
		// Writers cite files relative to the session's directory.
		Root: req.Cwd,
		// Only what clears the lexical floor is injected, so the vector
		// signal need only order the candidates, not scan for more.
		Rerank: true,
		IDFCap: IDFCap,
		Now:    req.Now,
	})
	if err != nil {
		return nil, nil, err
	}
	// A held learning (superseded, or marked wrong, outdated or never) is
	// never injected; search still lists it, marked.
	results = slices.DeleteFunc(results, func(r index.Result) bool { return r.Held != "" || slices.Contains(req.Exclude, r.ID) })
	results = withoutLoaded(ctx, ix, results, req, project)
	brief = withoutLoaded(ctx, ix, brief, req, project)
	var kept []index.Result
	var ev []float64
	if anyLexical(results) {
		docs, err := ix.DocCount(ctx)
		if err != nil {
			return nil, nil, err
		}
		// A prompt goes through the gate; a session's start, whose query is
		// the project's and branch's words rather than a question, through
		// the floor alone: the gate was calibrated on prompts.
		if req.Kind == Prompt {
			kept, ev = throughGate(results, docs, query, !req.Task && isRequest(cleanPrompt(req.Prompt)), req.Task, req.Gate)
		} else {
			kept, ev = aboveFloor(results, docs, len(index.Terms(query)))
		}
	}
	if req.Kind == SessionStart {
		brief = slices.DeleteFunc(brief, func(r index.Result) bool { return slices.Contains(req.Exclude, r.ID) })
		kept, ev = withBriefing(brief, kept, ev, project, req.Max)
	}
	return kept, ev, nil
}

// inject chooses the learnings not yet injected in the session among kept,
// renders them into res.Context within the budget, and records them in the
// session's dedupe set at path (when dedupe, under the caller's lock).
func inject(res Result, req Request, kept []index.Result, ev []float64, injected map[string]string, path string, dedupe bool) Result {
	fresh, still := choose(kept, ev, injected, req.Max)
	if still == nil && len(fresh) == 0 {
		res.Skipped = "every relevant learning was already injected in this session"
		return res
	}
	var shown []Hit
	res.Context, shown = render(fresh, still, req.Chars)
	if res.Context == "" {
		res.Skipped = fmt.Sprintf("a %d-character budget holds no learning", req.Chars)
		return res
	}
	if still != nil {
		res.StillRelevant = still.ID
	}
	res.Injected = append(res.Injected, shown...)
	if dedupe && len(res.Injected) > 0 {
		ts := req.Now.UTC().Format(time.RFC3339)
		for _, h := range res.Injected {
			injected[h.ID] = ts
		}
		// A dedupe file that cannot be written costs a repeat later, not
		// this recall: the caller still gets its context.
		if err := saveInjected(path, injected); err != nil {
			res.Warning = err.Error()
		}
		if err := recordHits(req.StateDir, req.Now, len(res.Injected)); err != nil && res.Warning == "" {
			res.Warning = err.Error()
		}
	}
	return res
}

// choose splits the hits that cleared the floor (best first) into up to
// limit not yet injected in the session, and the best hit when it was
// injected already: that one is named, not repeated.
func choose(kept []index.Result, ev []float64, injected map[string]string, limit int) (fresh []Hit, still *Hit) {
	for i, r := range kept {
		h := Hit{ID: r.ID, Title: r.Title, Confidence: r.Confidence, Insight: r.KeyInsight, Score: r.Score, Evidence: ev[i], Stale: r.Stale}
		if h.Insight == "" {
			h.Insight = r.Snippet
		}
		if _, seen := injected[r.ID]; seen {
			if i == 0 {
				still = &h
			}
			continue
		}
		if len(fresh) < limit {
			fresh = append(fresh, h)
		}
	}
	return fresh, still
}

// anyLexical reports whether some result matched words of the query; the
// floor needs the KB's size only then, and counting costs a table scan.
func anyLexical(results []index.Result) bool {
	for _, r := range results {
		if r.Why.BM25 > 0 {
			return true
		}
	}
	return false
}

// withoutLoaded drops the rules the agent already has in its context
// because it loaded the file they were imported from itself: injecting
// them again would spend the budget on what the agent was told at start.
// Only rules are looked at (a document read each), and a rule whose
// document cannot be read stays.
func withoutLoaded(ctx context.Context, ix *index.Index, results []index.Result, req Request, project string) []index.Result {
	if req.Agent == "" {
		return results
	}
	var sess *importer.Session
	return slices.DeleteFunc(results, func(r index.Result) bool {
		if r.Type != "rule" {
			return false
		}
		l, err := ix.Store().Read(r.ID)
		if err != nil || l.Source == nil || l.Source.File == "" {
			return false
		}
		if sess == nil {
			sess = &importer.Session{Agent: req.Agent, Cwd: req.Cwd, Root: gitrepo.Root(req.Cwd), Project: project, Dirs: req.AgentDirs}
			if sess.Project == "" && sess.Root != "" {
				sess.Project = projectName(ctx, req.Cwd)
			}
		}
		return sess.Loads(l.Source.File, l.Project)
	})
}
