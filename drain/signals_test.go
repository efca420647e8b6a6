package drain

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/reflectkb/reflect/index"
	"github.com/reflectkb/reflect/knowledge"
	"github.com/reflectkb/reflect/queue"
	"github.com/reflectkb/reflect/recall"
	"github.com/reflectkb/reflect/store"
)

// sessionLines is a Claude Code transcript of session in cwd running
// each command with its output (failed when the output starts "FAIL:").
func sessionLines(session, cwd string, runs ...[2]string) string {
	meta := `"sessionId":` + quote(session) + `,"cwd":` + quote(cwd) + `,"gitBranch":"main"`
	user := func(content string) string {
		return `{"type":"user",` + meta + `,"message":{"role":"user","content":` + content + `}}`
	}
	asst := func(content string) string {
		return `{"type":"assistant",` + meta + `,"message":{"role":"assistant","content":` + content + `}}`
	}
	ls := []string{user(quote("fix the build"))}
	for i, r := range runs {
		id := "t" + string(rune('a'+i))
		out, failed := strings.CutPrefix(r[1], "FAIL:")
		ls = append(ls,
			asst(`[{"type":"tool_use","id":"`+id+`","name":"Bash","input":{"command":`+quote(r[0])+`}}]`),
			user(`[{"type":"tool_result","tool_use_id":"`+id+`","content":`+quote(out)+`,"is_error":`+map[bool]string{true: "true", false: "false"}[failed]+`}]`))
	}
	ls = append(ls, asst(`[{"type":"text","text":"Done."}]`))
	return lines(ls...)
}

// signalsEnv is a drain environment with a project checkout and a
// knowledge base of learnings written a day ago.
type signalsEnv struct {
	*drainEnv
	repo string
}

func newSignalsEnv(t *testing.T) *signalsEnv {
	e := &signalsEnv{drainEnv: newDrainEnv(t), repo: filepath.Join(t.TempDir(), "auth-service")}
	if err := os.MkdirAll(e.repo, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.repo, "main.go"), []byte("package main\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return e
}

func (e *signalsEnv) open(t *testing.T) *knowledge.Base {
	t.Helper()
	c := e.config(t)
	ix, err := index.Open(context.Background(), c.DocumentsDir(), c.IndexDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	return knowledge.New(ix)
}

// put writes learnings a day old (before any session the test queues).
func (e *signalsEnv) put(t *testing.T, ls ...*store.Learning) {
	t.Helper()
	k := e.open(t)
	defer k.Index().Close()
	when := time.Now().Add(-24 * time.Hour).UTC().Truncate(time.Second)
	for _, l := range ls {
		if l.Project == "" {
			l.Project = "auth-service"
		}
		if l.Scope == "" {
			l.Scope = "project"
		}
		l.Confidence, l.Created = "high", when
		l.FillDefaults(when)
		if _, err := k.Put(context.Background(), l, nil, when); err != nil {
			t.Fatal(err)
		}
	}
}

func (e *signalsEnv) inject(t *testing.T, session string, ids ...string) {
	t.Helper()
	res := recall.Result{Query: "x"}
	for _, id := range ids {
		res.Injected = append(res.Injected, recall.Hit{ID: id})
	}
	if err := recall.RecordInjection(e.state, "claude", "pre-tool", session, res, time.Now()); err != nil {
		t.Fatal(err)
	}
}

func (e *signalsEnv) drainSession(t *testing.T, session, transcript string) Entry {
	t.Helper()
	e.enqueueData(t, []byte(transcript), queue.HarnessClaude, session)
	rep := e.run(t, Options{Writer: &fixedWriter{}})
	if len(rep.Entries) != 1 || rep.Entries[0].Outcome != OutcomeNothing {
		t.Fatalf("entries %+v", rep.Entries)
	}
	return rep.Entries[0]
}

var (
	npmLearning = &store.Learning{Title: "`npm ci` fails with ERESOLVE on a fresh clone",
		KeyInsight: "Run npm ci --legacy-peer-deps until the peer ranges are fixed.",
		Symptoms:   []string{"npm ERR! code ERESOLVE unable to resolve dependency tree"}}
	goLearning = &store.Learning{Title: "`go test ./...` fails without the sqlite_fts5 tag",
		KeyInsight: "Always pass -tags sqlite_fts5 to go test.",
		Symptoms:   []string{"undefined: sqlite3.FTS5"}}
)

func clone(l *store.Learning) *store.Learning {
	c := *l
	return &c
}

// A learning injected in a session whose command then failed the same way
// is refuted; one whose command then worked is confirmed; draining the
// session again as its transcript grows does not count it twice.
func TestDrainSignalsFromInjectedSession(t *testing.T) {
	t.Parallel()
	e := newSignalsEnv(t)
	npm, gol := clone(npmLearning), clone(goLearning)
	e.put(t, npm, gol)
	e.inject(t, "s1", npm.ID, gol.ID)
	runs := [][2]string{
		{"npm ci", "FAIL:npm ERR! code ERESOLVE\nnpm ERR! unable to resolve dependency tree"},
		{"npm ci --legacy-peer-deps", "added 12 packages"},
		{"go test -tags sqlite_fts5 ./...", "ok  \tauth\t0.2s"},
	}
	en := e.drainSession(t, "s1", sessionLines("s1", e.repo, runs...))
	if got := e.read(t, npm.ID).Feedback; got == nil || got.Refuted != 1 || got.Confirmed != 0 {
		t.Errorf("npm learning feedback %+v, want refuted 1", got)
	}
	if got := e.read(t, gol.ID).Feedback; got == nil || got.Confirmed != 1 || got.Refuted != 0 {
		t.Errorf("go learning feedback %+v, want confirmed 1", got)
	}
	if len(en.Signals) != 2 {
		t.Errorf("entry signals %+v", en.Signals)
	}

	// The same session, drained again when its transcript grew.
	e.drainSession(t, "s1", sessionLines("s1", e.repo, append(runs, [2]string{"ls", "main.go"})...))
	if got := e.read(t, npm.ID).Feedback; got.Refuted != 1 {
		t.Errorf("a session drained twice counted twice: %+v", got)
	}
	// A second session refutes it again: now it is held.
	e.inject(t, "s2", npm.ID)
	e.drainSession(t, "s2", sessionLines("s2", e.repo, runs[0]))
	if got := e.read(t, npm.ID); got.Held() != "refuted" {
		t.Errorf("after two refutations Held = %q (%+v)", got.Held(), got.Feedback)
	}
	// A session the learning was not injected in says nothing of it.
	e.drainSession(t, "s3", sessionLines("s3", e.repo, runs[0]))
	if got := e.read(t, npm.ID).Feedback; got.Refuted != 2 {
		t.Errorf("a session without the injection counted: %+v", got)
	}
}

// A learning of the project whose failing command has since worked in a
// session it was not injected in, or whose cited files are all gone, is
// held as stale; the hook's command lookup no longer finds it; a review
// ('fresh') brings it back and older evidence does not hold it again.
func TestDrainStaleness(t *testing.T) {
	t.Parallel()
	e := newSignalsEnv(t)
	makeL := &store.Learning{Title: "`make idp` fails when port 8443 is taken",
		KeyInsight: "Stop the old IdP container first.", Symptoms: []string{"bind: address already in use"}}
	other := &store.Learning{Title: "`make idp` fails on the billing repo",
		KeyInsight: "Billing's IdP needs docker login first.", Project: "billing"}
	global := &store.Learning{Title: "`make idp` fails without docker running",
		KeyInsight: "Start the docker daemon before make idp anywhere.", Scope: "global"}
	gone := &store.Learning{Title: "Session store lives in the old cache package",
		KeyInsight: "Sessions are kept by cache/old.go.", Cites: []store.Cite{{Path: "cache/old.go"}, {Path: "cache/older.go"}}}
	here := &store.Learning{Title: "Entry point wires the router",
		KeyInsight: "main.go builds the router.", Cites: []store.Cite{{Path: "main.go"}, {Path: "cache/old.go"}}}
	elsewhere := &store.Learning{Title: "Teammate's checkout keeps the cache in vendor",
		KeyInsight: "The vendored cache is in their tree.", Cites: []store.Cite{{Path: "/home/alice/src/auth-service/cache/old.go"}}}
	goneAbs := &store.Learning{Title: "Old cache kept sessions in memory",
		KeyInsight: "Sessions lived in cache/mem.go.", Cites: []store.Cite{{Path: filepath.Join(e.repo, "cache", "mem.go")}}}
	e.put(t, makeL, other, global, gone, here, elsewhere, goneAbs)

	e.drainSession(t, "s1", sessionLines("s1", e.repo, [2]string{"make idp", "idp up on :8443"}))
	if h := e.read(t, makeL.ID).Held(); !strings.HasPrefix(h, "stale: `make idp` succeeded in this project") {
		t.Errorf("make learning Held = %q", h)
	}
	if h := e.read(t, other.ID).Held(); h != "" {
		t.Errorf("another project's learning was held: %q", h)
	}
	if h := e.read(t, global.ID).Held(); h != "" {
		t.Errorf("a global learning was held by one project's success: %q", h)
	}
	if h := e.read(t, gone.ID).Held(); h != "stale: cited files gone: cache/old.go, cache/older.go" {
		t.Errorf("learning citing gone files Held = %q", h)
	}
	if h := e.read(t, here.ID).Held(); h != "" {
		t.Errorf("learning citing a file still there was held: %q", h)
	}
	if h := e.read(t, elsewhere.ID).Held(); h != "" {
		t.Errorf("learning citing another checkout's absolute path was held: %q", h)
	}
	if h := e.read(t, goneAbs.ID).Held(); !strings.HasPrefix(h, "stale: cited files gone: ") {
		t.Errorf("learning citing a gone absolute path in the checkout: Held = %q", h)
	}
	k := e.open(t)
	hits, err := k.Index().FailedCommands(context.Background(), []string{"make idp"}, 5)
	if err != nil {
		t.Fatal(err)
	}
	if slices.ContainsFunc(hits, func(h index.CommandHit) bool { return h.ID == makeL.ID }) {
		t.Error("the pre-tool hook's lookup still finds the stale learning")
	}
	for _, id := range []string{makeL.ID, gone.ID} {
		if _, err := k.Mark(context.Background(), id, "fresh"); err != nil {
			t.Fatal(err)
		}
	}
	k.Index().Close()
	// A session queued before the review: its success is older evidence.
	e.enqueueData(t, []byte(sessionLines("s0", e.repo, [2]string{"make idp", "ok"})), queue.HarnessClaude, "s0")
	time.Sleep(1100 * time.Millisecond) // the review is at second precision
	if _, err := e.open(t).Mark(context.Background(), makeL.ID, "fresh"); err != nil {
		t.Fatal(err)
	}
	e.run(t, Options{Writer: &fixedWriter{}})
	for _, id := range []string{makeL.ID, gone.ID} {
		if h := e.read(t, id).Held(); h != "" {
			t.Errorf("%s held again after a review: %q", id, h)
		}
	}
}

// An injected learning whose command worked is confirmed, not stale.
func TestDrainInjectedSuccessIsNotStale(t *testing.T) {
	t.Parallel()
	e := newSignalsEnv(t)
	makeL := &store.Learning{Title: "`make idp` fails when port 8443 is taken",
		KeyInsight: "Stop the old IdP container first.", Symptoms: []string{"bind: address already in use"}}
	e.put(t, makeL)
	e.inject(t, "s1", makeL.ID)
	e.drainSession(t, "s1", sessionLines("s1", e.repo, [2]string{"make idp", "ok"}))
	if got := e.read(t, makeL.ID); got.Held() != "" || got.Feedback.Confirmed != 1 {
		t.Errorf("Held %q, feedback %+v", got.Held(), got.Feedback)
	}
}

// A learning the session itself wrote (a mini-learning from its failure,
// injected before the next run) is not refuted by the failure it was
// written from.
func TestDrainSignalsSkipTheSessionsOwnLearning(t *testing.T) {
	t.Parallel()
	e := newSignalsEnv(t)
	npm := clone(npmLearning)
	npm.Type, npm.Source = "mini", &store.Source{Harness: "claude", SessionID: "s1", Trigger: "correction"}
	e.put(t, npm)
	e.inject(t, "s1", npm.ID)
	e.drainSession(t, "s1", sessionLines("s1", e.repo,
		[2]string{"npm ci", "FAIL:npm ERR! code ERESOLVE\nnpm ERR! unable to resolve dependency tree"},
		[2]string{"npm ci --legacy-peer-deps", "added 12 packages"}))
	if fb := e.read(t, npm.ID).Feedback; fb != nil {
		t.Errorf("the session's own learning got feedback %+v", fb)
	}
}
