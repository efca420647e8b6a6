package drain

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/reflectkb/reflect/drain/writer"
	"github.com/reflectkb/reflect/index"
	"github.com/reflectkb/reflect/internal/config"
	"github.com/reflectkb/reflect/internal/testfs"
	"github.com/reflectkb/reflect/queue"
	"github.com/reflectkb/reflect/store"
	"github.com/reflectkb/reflect/transcript"
)

// drainEnv is one isolated reflect installation: HOME, the state and
// learnings directories, and a directory for transcripts, all in temp dirs.
// Transcripts live outside both reflect directories, so that scanning
// those for the fixture's secrets only finds what reflect wrote.
type drainEnv struct {
	home, state, kb, trans string
	// env is the environment config.Load reads (config.MapLookup): HOME,
	// REFLECT_STATE_DIR and REFLECT_LEARNINGS_DIR, and the settings a test
	// gives with setenv. Nothing of the process's environment leaks in,
	// so tests that only configure the drain run in parallel.
	env map[string]string
	// writerEnv is what the writers' environment adds to this process's
	// (KEY=VALUE, a later one winning), and path the PATH a fake writer
	// is found on (empty: the process's): the drain gets them as
	// Choice.Env and LookPath, so tests with fake writers run in parallel.
	writerEnv []string
	path      string
}

// newDrainEnv points HOME, REFLECT_STATE_DIR and REFLECT_LEARNINGS_DIR at
// fresh temp dirs, in the environment the test's configuration is loaded
// from.
func newDrainEnv(t testing.TB) *drainEnv {
	t.Helper()
	root := t.TempDir()
	e := &drainEnv{
		home:  filepath.Join(root, "home"),
		state: filepath.Join(root, "state"),
		kb:    filepath.Join(root, "kb"),
		trans: filepath.Join(root, "transcripts"),
	}
	for _, d := range []string{e.home, e.state, e.trans} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	e.env = map[string]string{"HOME": e.home, "REFLECT_STATE_DIR": e.state, "REFLECT_LEARNINGS_DIR": e.kb}
	return e
}

// setenv sets a variable of the environment the test's configuration is
// loaded from (not the process's).
func (e *drainEnv) setenv(key, value string) { e.env[key] = value }

// setWriterEnv sets a variable of the environment the writers run with
// (not the process's).
func (e *drainEnv) setWriterEnv(key, value string) {
	e.writerEnv = append(e.writerEnv, key+"="+value)
}

// withWriter gives o the writers' environment and PATH of e, unless o has
// its own.
func (e *drainEnv) withWriter(o Options) Options {
	if o.Choice.Env == nil && len(e.writerEnv) > 0 {
		o.Choice.Env = append(os.Environ(), e.writerEnv...)
	}
	if o.LookPath == nil && e.path != "" {
		o.LookPath = func(name string) (string, error) { return lookIn(e.path, name) }
	}
	return o
}

// config loads the configuration e.env says.
func (e *drainEnv) config(t testing.TB) *config.Config {
	t.Helper()
	c, err := config.Load(config.MapLookup(e.env))
	if err != nil {
		t.Fatal(err)
	}
	if c.StateDir != e.state || c.LearningsDir != e.kb {
		t.Fatalf("config resolved %s and %s, want the test's dirs", c.StateDir, c.LearningsDir)
	}
	return c
}

func (e *drainEnv) queue(t testing.TB) *queue.Queue {
	t.Helper()
	q, err := queue.Open(e.state)
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// enqueue copies fixture to a transcript of its own (named after session)
// and queues it as a hook would, returning the queued record.
func (e *drainEnv) enqueue(t testing.TB, fixture string, harness queue.Harness, session string) queue.Record {
	t.Helper()
	data, err := os.ReadFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	return e.enqueueData(t, data, harness, session)
}

func (e *drainEnv) enqueueData(t testing.TB, data []byte, harness queue.Harness, session string) queue.Record {
	t.Helper()
	path := filepath.Join(e.trans, session+".jsonl")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return e.enqueuePath(t, path, harness, session)
}

func (e *drainEnv) enqueuePath(t testing.TB, path string, harness queue.Harness, session string) queue.Record {
	t.Helper()
	q := e.queue(t)
	queued, reason, err := q.Enqueue(queue.Record{
		TranscriptPath: path, SessionID: session, Trigger: queue.TriggerStop,
		Harness: harness, Cwd: "/home/dev/auth-service",
	})
	if err != nil || !queued {
		t.Fatalf("Enqueue %s = %v, %q, %v", session, queued, reason, err)
	}
	for _, r := range e.pending(t) {
		if r.SessionID == session {
			return r
		}
	}
	t.Fatalf("queued %s but it is not in the queue", session)
	return queue.Record{}
}

// pending is the queue in file order.
func (e *drainEnv) pending(t testing.TB) []queue.Record {
	t.Helper()
	recs, bad, err := e.queue(t).List()
	if err != nil || len(bad) > 0 {
		t.Fatalf("List: %v (malformed: %+v)", err, bad)
	}
	return recs
}

// run drains once with o (its settings default to e's configuration).
func (e *drainEnv) run(t testing.TB, o Options) *Report {
	t.Helper()
	if o.StateDir == "" {
		o = withConfig(e.config(t), o)
	}
	rep, err := Run(context.Background(), e.withWriter(o))
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return rep
}

// documents are the learning ids in documents/, sorted.
func (e *drainEnv) documents(t testing.TB) []string {
	t.Helper()
	ents, err := os.ReadDir(filepath.Join(e.kb, "documents"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, d := range ents {
		if id, ok := strings.CutSuffix(d.Name(), ".md"); ok {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	return ids
}

func (e *drainEnv) read(t testing.TB, id string) *store.Learning {
	t.Helper()
	l, err := store.Open(filepath.Join(e.kb, "documents")).Read(id)
	if err != nil {
		t.Fatalf("read %s: %v", id, err)
	}
	return l
}

// lines returns the non-empty lines of a state file (none when missing).
func (e *drainEnv) lines(t testing.TB, name string) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(e.state, name))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	return out
}

func (e *drainEnv) costLines(t testing.TB) []costLine {
	t.Helper()
	var out []costLine
	for _, l := range e.lines(t, "drain-cost.jsonl") {
		var c costLine
		if err := json.Unmarshal([]byte(l), &c); err != nil {
			t.Fatalf("drain-cost.jsonl line %q: %v", l, err)
		}
		out = append(out, c)
	}
	return out
}

func (e *drainEnv) processed(t testing.TB) []queue.Processed {
	t.Helper()
	var out []queue.Processed
	for _, l := range e.lines(t, "processed.jsonl") {
		var p queue.Processed
		if err := json.Unmarshal([]byte(l), &p); err != nil {
			t.Fatalf("processed.jsonl line %q: %v", l, err)
		}
		out = append(out, p)
	}
	return out
}

// search opens the index the way a reader does and searches it.
func (e *drainEnv) search(t testing.TB, text string) []index.Result {
	t.Helper()
	ctx := context.Background()
	ix, err := index.Open(ctx, filepath.Join(e.kb, "documents"), filepath.Join(e.kb, "index"))
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	// Drafts awaiting review are found too: what an LLM writer wrote
	// is indexed whether or not it was approved yet.
	res, err := ix.Search(ctx, index.Query{Text: text, Limit: 10, Pending: index.PendingShown})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// snapshot is every file under the dirs, path → content.
func snapshot(t testing.TB, dirs ...string) map[string]string {
	t.Helper()
	files := map[string]string{}
	for _, dir := range dirs {
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if errors.Is(err, fs.ErrNotExist) && p == dir {
				return fs.SkipDir
			}
			if err != nil || d.IsDir() {
				return err
			}
			data, err := os.ReadFile(p)
			files[p] = string(data)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return files
}

// secretPieces are the AWS keys the Claude fixture's `env | grep AWS`
// printed, whole and in recognisable pieces.
var secretPieces = []string{
	"AKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7",
	"wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "wJalrXUtnFEMI", "bPxRfiCYEXAMPLEKEY",
}

// assertNoSecrets reads every file under the dirs (documents, sidecars,
// SQLite catalog and WAL, ledgers, logs, reports) and fails on any secret.
func assertNoSecrets(t *testing.T, dirs ...string) {
	t.Helper()
	files := snapshot(t, dirs...)
	if len(files) == 0 {
		t.Fatal("no files to scan")
	}
	for p, data := range files {
		for _, s := range secretPieces {
			if strings.Contains(data, s) {
				t.Errorf("%s holds the secret %q", p, s)
			}
		}
	}
}

// fixedWriter returns the same drafts every time, after delay.
type fixedWriter struct {
	drafts []writer.Draft
	cost   float64
	delay  time.Duration
	calls  int
}

func (*fixedWriter) Name() string { return "fixed" }

func (w *fixedWriter) Write(ctx context.Context, c *transcript.Condensed) (*writer.Output, error) {
	w.calls++
	if w.delay > 0 {
		select {
		case <-time.After(w.delay):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return &writer.Output{Learnings: append([]writer.Draft(nil), w.drafts...), CostUSD: w.cost}, nil
}

var fixedDrafts = []writer.Draft{
	{
		Title: "Postgres pool exhaustion needs pgbouncer", KeyInsight: "Put pgbouncer in transaction mode in front of Postgres when workers exceed max_connections.",
		Problem: "FATAL: sorry, too many clients already", Solution: "Route the workers through pgbouncer.",
		Confidence: "high", Category: "configuration", Tags: []string{"postgres", "pgbouncer"},
		Symptoms: []string{"too many clients already"},
	},
	{
		Title: "Vite dev server must bind 0.0.0.0 inside Docker", KeyInsight: "Start vite with --host so the container port mapping reaches it.",
		Confidence: "medium", Category: "tooling", Tags: []string{"vite", "docker"},
	},
}

// noonToday is a clock that stays inside the current UTC day however the
// test advances it by minutes.
func noonToday() time.Time {
	y, m, d := time.Now().UTC().Date()
	return time.Date(y, m, d, 12, 0, 0, 0, time.UTC)
}

func hasResult(res []index.Result, id string) bool {
	for _, r := range res {
		if r.ID == id {
			return true
		}
	}
	return false
}

func equalSets(a, b []string) bool {
	a, b = append([]string(nil), a...), append([]string(nil), b...)
	sort.Strings(a)
	sort.Strings(b)
	return strings.Join(a, "\n") == strings.Join(b, "\n")
}

// --- 2. fake claude and codex executables ---

// fakeWriterPath makes a directory holding name (a shell script) the
// first entry of e's writers' PATH, which otherwise has only the system
// directories, so a real claude or codex can never run.
func fakeWriterPath(t *testing.T, e *drainEnv, name, script string) (out string) {
	t.Helper()
	bin := t.TempDir()
	out = t.TempDir()
	writeScript(t, filepath.Join(bin, name), script)
	e.path = bin + ":/usr/bin:/bin"
	e.setWriterEnv("PATH", e.path)
	e.setWriterEnv("FAKE_OUT", out)
	return out
}

// lookIn is exec.LookPath on the PATH list instead of the process's.
func lookIn(list, name string) (string, error) {
	if strings.Contains(name, "/") {
		return name, executable(name)
	}
	for _, dir := range filepath.SplitList(list) {
		if p := filepath.Join(dir, name); executable(p) == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s: %w", name, exec.ErrNotFound)
}

func executable(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	if fi.IsDir() || fi.Mode().Perm()&0o111 == 0 {
		return fs.ErrPermission
	}
	return nil
}

func writeScript(t testing.TB, path, script string) {
	t.Helper()
	// Write then rename: a running script is never rewritten under it.
	tmp := path + ".tmp"
	if err := testfs.WriteExecutable(tmp, []byte("#!/bin/sh\n"+fakeHelp+script)); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// callCount is how many times a fake recorded a call in $FAKE_OUT/calls.
func callCount(t *testing.T, out string) int {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(out, "calls"))
	if errors.Is(err, fs.ErrNotExist) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(data), "\n")
}

const (
	fakeCall       = "echo call >> \"$FAKE_OUT/calls\"\n"
	fakeSuccess    = fakeCall + "cat \"$FIXTURE_OK\"\n"
	fakeErrorEnvel = fakeCall + "cat \"$FIXTURE_ERR\"\n"
	fakeGarbage    = fakeCall + "echo 'I could not find any learnings, sorry!'\n"
	fakeHang       = fakeCall + `echo $$ > "$FAKE_OUT/pid"
sleep 30 &
echo $! > "$FAKE_OUT/child"
echo '{"type":"result",'
sleep 30
`
)

func setWriterFixtures(t *testing.T, e *drainEnv) {
	e.setWriterEnv("FIXTURE_OK", mustAbs(t, "writer/testdata/writers/claude-print-result.json"))
	e.setWriterEnv("FIXTURE_ERR", mustAbs(t, "writer/testdata/writers/claude-print-error.json"))
}

func TestRunFakeClaudeSuccess(t *testing.T) {
	t.Parallel()
	e := newDrainEnv(t)
	setWriterFixtures(t, e)
	out := fakeWriterPath(t, e, "claude", fakeSuccess)
	rec := e.enqueue(t, "../transcript/testdata/claude-session.jsonl", queue.HarnessClaude, "s-ok")

	e.setenv("REFLECT_WRITER", "auto")
	rep := e.run(t, Options{}) // auto: claude is on PATH
	if rep.Writer != "claude" || !strings.HasPrefix(rep.WriterWhy, "claude found on PATH") {
		t.Fatalf("writer %s (%s)", rep.Writer, rep.WriterWhy)
	}
	if len(rep.Entries) != 1 || rep.Entries[0].Outcome != OutcomeWritten || len(rep.Entries[0].Learnings) != 1 {
		t.Fatalf("entries: %+v", rep.Entries)
	}
	en := rep.Entries[0]
	if en.CostUSD != 0.0412 || rep.Today.USD != 0.0412 || rep.Today.Entries != 1 {
		t.Errorf("cost %v, today %+v; want 0.0412", en.CostUSD, rep.Today)
	}
	costs := e.costLines(t)
	if len(costs) != 1 || costs[0].CostUSD != 0.0412 || costs[0].Writer != "claude" || costs[0].Entry != rec.ID {
		t.Errorf("drain-cost.jsonl: %+v", costs)
	}
	if s, err := TodaySpend(e.state, time.Now()); err != nil || s.USD != 0.0412 || s.Entries != 1 {
		t.Errorf("TodaySpend = %+v, %v", s, err)
	}
	l := e.read(t, en.Learnings[0])
	if l.Title != "OAuth state cookie must be SameSite=Lax" || l.Confidence != "high" || l.Category != "debugging" {
		t.Errorf("learning: %+v", l)
	}
	if !l.Pending() || !rep.Review || !en.Written[0].Pending {
		t.Errorf("an LLM writer's learning: status %q, report review %v, written %+v; want pending (drain.review is on by default)", l.Status, rep.Review, en.Written)
	}
	sc, err := store.Open(filepath.Join(e.kb, "documents")).ReadSidecar(l.ID)
	if err != nil || len(sc.Entities) != 2 || len(sc.Relationships) != 1 || sc.Relationships[0].Type != "configured_in" {
		t.Errorf("sidecar: %+v, %v", sc, err)
	}
	if !hasResult(e.search(t, "SameSite"), l.ID) {
		t.Error("not indexed")
	}
	if recs := e.pending(t); len(recs) != 0 {
		t.Errorf("queue: %+v", recs)
	}
	if callCount(t, out) != 1 {
		t.Errorf("claude ran %d times", callCount(t, out))
	}
}

// TestRunNoWriterChosenSpendsNothing: claude is on PATH but no writer was
// chosen, so the builtin writer reflects the entry and claude never runs
// (on the old code it ran unasked and spent).
func TestRunNoWriterChosenSpendsNothing(t *testing.T) {
	t.Parallel()
	e := newDrainEnv(t)
	setWriterFixtures(t, e)
	out := fakeWriterPath(t, e, "claude", fakeSuccess)
	e.enqueue(t, "../transcript/testdata/claude-session.jsonl", queue.HarnessClaude, "s-none")

	rep := e.run(t, Options{})
	if rep.Writer != "builtin" || !strings.Contains(rep.WriterWhy, writer.OptIn) {
		t.Fatalf("writer %s (%s), want builtin naming %q", rep.Writer, rep.WriterWhy, writer.OptIn)
	}
	if n := callCount(t, out); n != 0 {
		t.Errorf("claude ran %d times with no writer chosen", n)
	}
	if rep.Today.USD != 0 {
		t.Errorf("spent $%v with no writer chosen", rep.Today.USD)
	}
}

// failingRun drains one entry with a failing fake claude and checks that
// the entry was scheduled for a retry with nothing written.
func failingRun(t *testing.T, script, wantErr string) (*drainEnv, *Report) {
	t.Helper()
	e := newDrainEnv(t)
	setWriterFixtures(t, e)
	fakeWriterPath(t, e, "claude", script)
	e.setenv("REFLECT_WRITER", "claude")
	rec := e.enqueue(t, "../transcript/testdata/claude-session.jsonl", queue.HarnessClaude, "s-fail")
	now := time.Now()
	rep := e.run(t, Options{Now: func() time.Time { return now }})
	if len(rep.Entries) != 1 {
		t.Fatalf("entries: %+v", rep.Entries)
	}
	en := rep.Entries[0]
	if en.Outcome != OutcomeRetry || !strings.Contains(en.Error, wantErr) || len(en.Learnings) != 0 {
		t.Errorf("entry: outcome %s, error %q; want retry with %q", en.Outcome, en.Error, wantErr)
	}
	recs := e.pending(t)
	if len(recs) != 1 || recs[0].ID != rec.ID || recs[0].Attempts != 1 || recs[0].NotBefore == nil || !recs[0].NotBefore.After(now) {
		t.Fatalf("queue after a failure: %+v", recs)
	}
	if d := recs[0].NotBefore.Sub(now); d < 59*time.Second || d > 61*time.Second {
		t.Errorf("not_before is %s after the failure, want the 1m backoff", d)
	}
	if docs := e.documents(t); len(docs) != 0 {
		t.Errorf("documents written by a failed run: %q", docs)
	}
	if led := e.processed(t); len(led) != 0 {
		t.Errorf("processed.jsonl after a failure: %+v", led)
	}
	if _, err := os.Stat(filepath.Join(e.state, "poison.jsonl")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("poison.jsonl after one failure: %v", err)
	}
	// A retry waits for its backoff: the next drain right away has nothing due.
	if again := e.run(t, Options{Now: func() time.Time { return now.Add(30 * time.Second) }}); len(again.Entries) != 0 || again.Waiting != 1 {
		t.Errorf("drain within the backoff: entries %+v, waiting %d", again.Entries, again.Waiting)
	}
	return e, rep
}

func TestRunFakeClaudeErrorEnvelope(t *testing.T) {
	t.Parallel()
	e, rep := failingRun(t, fakeErrorEnvel, "claude run failed: error_max_turns")
	costs := e.costLines(t)
	if len(costs) != 1 || costs[0].Outcome != OutcomeRetry || rep.Today.Entries != 1 {
		t.Errorf("drain-cost.jsonl: %+v, today %+v", costs, rep.Today)
	}
}

// Guards a fixed bug: a failed claude run is paid for (the error envelope says
// total_cost_usd 0.003), but the drainer records $0 for it, so daily_usd
// never counts failed runs. parseClaudeEnvelope (drain/writer/claude.go) returns
// a nil Output with the error, and entryRun.run (entry.go) only takes the
// cost from a non-nil Output.
func TestRunRecordsCostOfFailedClaudeRun(t *testing.T) {
	t.Parallel()
	e, rep := failingRun(t, fakeErrorEnvel, "error_max_turns")
	costs := e.costLines(t)
	if len(costs) != 1 {
		t.Fatalf("drain-cost.jsonl: %+v", costs)
	}
	if costs[0].CostUSD != 0.003 || rep.Entries[0].CostUSD != 0.003 || rep.Today.USD != 0.003 {
		t.Errorf("a failed run that cost $0.003 is recorded as $%v (entry $%v, today $%v): daily_usd does not see it",
			costs[0].CostUSD, rep.Entries[0].CostUSD, rep.Today.USD)
	}
}

func TestRunFakeClaudeGarbage(t *testing.T) {
	t.Parallel()
	failingRun(t, fakeGarbage, "claude printed no JSON result")
}

func TestRunFakeClaudeSuccessWithoutLearningsKey(t *testing.T) {
	t.Parallel()
	// "success" with a result that is no {"learnings":…} object is a failure.
	failingRun(t, fakeCall+`echo '{"type":"result","subtype":"success","is_error":false,"result":"Done! I fixed it.","total_cost_usd":0.01}'`+"\n",
		`no JSON object with a "learnings" key`)
}

func TestRunFakeClaudeHangTimesOut(t *testing.T) {
	start := time.Now()
	e := newDrainEnv(t)
	setWriterFixtures(t, e)
	out := fakeWriterPath(t, e, "claude", fakeHang)
	e.setenv("REFLECT_DRAIN_TIMEOUT", "1s")
	e.setenv("REFLECT_WRITER", "claude")
	c := e.config(t)
	if c.Drain.Timeout != time.Second {
		t.Fatalf("timeout %s", c.Drain.Timeout)
	}
	e.enqueue(t, "../transcript/testdata/claude-session.jsonl", queue.HarnessClaude, "s-hang")
	rep := e.run(t, withConfig(c, Options{}))
	took := time.Since(start)
	if len(rep.Entries) != 1 || rep.Entries[0].Outcome != OutcomeRetry || !strings.Contains(rep.Entries[0].Error, "killed after") ||
		!strings.Contains(rep.Entries[0].Error, "deadline exceeded") {
		t.Fatalf("entries: %+v", rep.Entries)
	}
	// The fake hangs for 30 s; the margin over the 1 s timeout is for a
	// loaded machine.
	if took > 15*time.Second {
		t.Errorf("the drain took %s with a 1s timeout (the fake hangs for 30 s)", took)
	}
	for _, f := range []string{"pid", "child"} {
		pid, err := strconv.Atoi(strings.TrimSpace(readRecorded(t, out, f)))
		if err != nil {
			t.Fatal(err)
		}
		testfs.WaitGone(t, pid)
	}
	recs := e.pending(t)
	if len(recs) != 1 || recs[0].Attempts != 1 || recs[0].NotBefore == nil {
		t.Errorf("queue: %+v", recs)
	}
	if docs := e.documents(t); len(docs) != 0 {
		t.Errorf("documents: %q", docs)
	}
}

// After max_attempts failures the entry is poisoned; `reflect queue retry`
// (Requeue) re-arms it, and a drain with a working writer then reflects it.
func TestRunPoisonAndRequeue(t *testing.T) {
	t.Parallel()
	e := newDrainEnv(t)
	setWriterFixtures(t, e)
	out := fakeWriterPath(t, e, "claude", fakeGarbage)
	e.setenv("REFLECT_WRITER", "claude")
	e.setenv("REFLECT_DRAIN_MAX_ATTEMPTS", "3")
	rec := e.enqueue(t, "../transcript/testdata/claude-session.jsonl", queue.HarnessClaude, "s-poison")
	clock := noonToday()
	now := func() time.Time { return clock }

	for attempt := 1; attempt <= 3; attempt++ {
		rep := e.run(t, Options{Now: now})
		if len(rep.Entries) != 1 {
			t.Fatalf("attempt %d: entries %+v", attempt, rep.Entries)
		}
		want := OutcomeRetry
		if attempt == 3 {
			want = OutcomePoisoned
		}
		if got := rep.Entries[0].Outcome; got != want {
			t.Fatalf("attempt %d: outcome %s, want %s (%s)", attempt, got, want, rep.Entries[0].Error)
		}
		clock = clock.Add(queue.Backoff(attempt) + time.Second)
	}
	if n := callCount(t, out); n != 3 {
		t.Errorf("claude ran %d times, want 3", n)
	}
	if recs := e.pending(t); len(recs) != 0 {
		t.Fatalf("poisoned entry still queued: %+v", recs)
	}
	poisoned, err := e.queue(t).ListPoisoned()
	if err != nil || len(poisoned) != 1 || poisoned[0].Record.ID != rec.ID || poisoned[0].Attempts != 3 ||
		!strings.Contains(poisoned[0].Reason, "claude printed no JSON result") {
		t.Fatalf("poison.jsonl: %+v, %v", poisoned, err)
	}
	if rep := e.run(t, Options{Now: now}); len(rep.Entries) != 0 {
		t.Errorf("a poisoned entry was drained again: %+v", rep.Entries)
	}

	// The user fixes the writer and re-arms the entry.
	if err := e.queue(t).Requeue(rec.ID); err != nil {
		t.Fatal(err)
	}
	recs := e.pending(t)
	if len(recs) != 1 || recs[0].ID != rec.ID || recs[0].Attempts != 0 || recs[0].NotBefore != nil {
		t.Fatalf("requeued: %+v", recs)
	}
	if p, _ := e.queue(t).ListPoisoned(); len(p) != 0 {
		t.Errorf("still poisoned: %+v", p)
	}
	writeScript(t, filepath.Join(filepath.Dir(mustLook(t, e, "claude")), "claude"), fakeSuccess)
	rep := e.run(t, Options{Now: now})
	if len(rep.Entries) != 1 {
		t.Fatalf("entries after requeue: %+v", rep.Entries)
	}
	// Guarded fixed bug: Retry appended a "poisoned" ledger line for the
	// transcript at its size and hash, and entryRun.run treats every
	// ledger outcome as "already reflected", so the re-armed entry is
	// acked as skipped without the writer ever running.
	if en := rep.Entries[0]; en.Outcome != OutcomeWritten || len(en.Learnings) != 1 {
		t.Errorf("re-armed entry: outcome %s (%s), learnings %q; want it reflected", en.Outcome, en.Error, en.Learnings)
	}
	if n := callCount(t, out); n != 4 {
		t.Errorf("claude ran %d times in all, want 4 (3 failures, then the re-armed run)", n)
	}
	if recs := e.pending(t); len(recs) != 0 {
		t.Errorf("queue: %+v", recs)
	}
}

func mustLook(t *testing.T, e *drainEnv, name string) string {
	t.Helper()
	for _, dir := range filepath.SplitList(e.path) {
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			return p
		}
	}
	t.Fatalf("%s not on PATH", name)
	return ""
}

// codexFake writes $ANSWER to the -o file, as codex exec does, or fails.
const codexFake = fakeCall + `cat > /dev/null
while [ $# -gt 0 ]; do
  case "$1" in -o) out="$2"; shift ;; esac
  shift
done
if [ "$CODEX_FAIL" = 1 ]; then echo '{"type":"error","message":"stream disconnected"}'; exit 1; fi
echo '{"type":"turn.completed","usage":{"input_tokens":4000,"output_tokens":200}}'
printf '%s' "$ANSWER" > "$out"
`

func TestRunFakeCodex(t *testing.T) {
	t.Parallel()
	e := newDrainEnv(t)
	var env struct {
		Result *string `json:"result"`
	}
	data, err := os.ReadFile("writer/testdata/writers/claude-print-result.json")
	if err != nil || json.Unmarshal(data, &env) != nil || env.Result == nil {
		t.Fatalf("fixture: %v", err)
	}
	e.setWriterEnv("ANSWER", *env.Result)
	e.setWriterEnv("CODEX_FAIL", "1")
	e.setenv("REFLECT_WRITER", "auto")
	out := fakeWriterPath(t, e, "codex", codexFake) // no claude: auto picks codex
	e.enqueue(t, "../transcript/testdata/codex-rollout.jsonl", queue.HarnessCodex, "s-codex")
	now := noonToday()

	rep := e.run(t, Options{Now: func() time.Time { return now }})
	if rep.Writer != "codex" || len(rep.Entries) != 1 || rep.Entries[0].Outcome != OutcomeRetry ||
		!strings.Contains(rep.Entries[0].Error, "codex failed") {
		t.Fatalf("failing codex: writer %s, entries %+v", rep.Writer, rep.Entries)
	}
	if docs := e.documents(t); len(docs) != 0 {
		t.Errorf("documents: %q", docs)
	}

	e.setWriterEnv("CODEX_FAIL", "")
	rep = e.run(t, Options{Now: func() time.Time { return now.Add(2 * time.Minute) }})
	if len(rep.Entries) != 1 || rep.Entries[0].Outcome != OutcomeWritten || len(rep.Entries[0].Learnings) != 1 {
		t.Fatalf("codex: entries %+v", rep.Entries)
	}
	if l := e.read(t, rep.Entries[0].Learnings[0]); l.Title != "OAuth state cookie must be SameSite=Lax" || l.Source.Harness != "codex" {
		t.Errorf("learning: %+v", l)
	}
	if rep.Entries[0].CostUSD != 0 || rep.Today.Entries != 2 {
		t.Errorf("codex reports no price: cost %v, today %+v", rep.Entries[0].CostUSD, rep.Today)
	}
	if callCount(t, out) != 2 || len(e.pending(t)) != 0 {
		t.Errorf("calls %d, queue %+v", callCount(t, out), e.pending(t))
	}
}
