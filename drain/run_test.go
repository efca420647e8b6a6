package drain

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/reflectkb/reflect/drain/writer"
	"github.com/reflectkb/reflect/transcript"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/reflectkb/reflect/index"
	"github.com/reflectkb/reflect/internal/config"
	"github.com/reflectkb/reflect/queue"
	"github.com/reflectkb/reflect/store"
)

// drainEnv is one isolated reflect installation: HOME, the state and
// learnings directories, and a directory for transcripts, all in temp dirs.
// Transcripts live outside both reflect directories, so that scanning
// those for the fixture's secrets only finds what reflect wrote.
type drainEnv struct {
	home, state, kb, trans string
}

// newDrainEnv points HOME, REFLECT_STATE_DIR and REFLECT_LEARNINGS_DIR at
// fresh temp dirs and clears every other setting the environment could
// leak into config.Load (an empty variable counts as unset).
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
	t.Setenv("HOME", e.home)
	t.Setenv("REFLECT_STATE_DIR", e.state)
	t.Setenv("REFLECT_LEARNINGS_DIR", e.kb)
	for _, k := range []string{
		"REFLECT_DISABLE", "REFLECT_WRITER", "REFLECT_WRITER_COMMAND", "REFLECT_EMBEDDER",
		"REFLECT_DRAIN_MAX_PER_RUN", "REFLECT_DRAIN_DAILY_MAX", "REFLECT_DRAIN_DAILY_USD",
		"REFLECT_DRAIN_TIMEOUT", "REFLECT_DRAIN_MAX_ATTEMPTS",
	} {
		t.Setenv(k, "")
	}
	return e
}

// config loads the configuration the environment (and t.Setenv) says.
func (e *drainEnv) config(t testing.TB) *config.Config {
	t.Helper()
	c, err := config.Load(os.LookupEnv)
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
	rep, err := Run(context.Background(), o)
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
	res, err := ix.Search(ctx, index.Query{Text: text, Limit: 10})
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

// --- 1. builtin writer over the fixtures ---

func TestRunBuiltinClaudeFixture(t *testing.T) {
	e := newDrainEnv(t)
	rec := e.enqueue(t, "../transcript/testdata/claude-session.jsonl", queue.HarnessClaude, "8f14e45f-ceea-467f-a8e0-2c1d1b1e6a01")
	size, sum, err := queue.HashFile(rec.TranscriptPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("REFLECT_WRITER", "builtin")

	rep := e.run(t, Options{})
	if !rep.Ran || rep.Reason != "" || rep.Writer != "builtin" || rep.WriterWhy != "builtin, set by env REFLECT_WRITER" {
		t.Fatalf("report: ran %v (%s), writer %s (%s)", rep.Ran, rep.Reason, rep.Writer, rep.WriterWhy)
	}
	if len(rep.Entries) != 1 {
		t.Fatalf("entries: %+v", rep.Entries)
	}
	en := rep.Entries[0]
	if en.ID != rec.ID || en.Outcome != OutcomeWritten || en.Error != "" || en.RawBytes != size || en.SentChars == 0 || en.Harness != "claude" {
		t.Fatalf("entry: %+v", en)
	}
	if rep.Waiting != 0 || rep.Today.Entries != 1 || rep.Today.USD != 0 {
		t.Errorf("waiting %d, today %+v", rep.Waiting, rep.Today)
	}

	// The SameSite fix and the --insecure correction, as documents.
	var sameSite, insecure string
	for _, id := range en.Learnings {
		l := e.read(t, id)
		text := l.Title + " " + l.KeyInsight
		switch {
		case strings.Contains(text, "SameSite=Lax"):
			sameSite = id
			if l.Source == nil || l.Source.Harness != "claude" || l.Source.SessionID != rec.SessionID || l.Source.Trigger != "stop" {
				t.Errorf("SameSite learning provenance: %+v", l.Source)
			}
			if len(l.Cites) != 1 || l.Cites[0].Path != "callback/cookie.go" {
				t.Errorf("SameSite cites: %+v", l.Cites)
			}
		case strings.Contains(text, "--insecure"):
			insecure = id
		}
	}
	if sameSite == "" || insecure == "" {
		t.Fatalf("learnings %q lack the SameSite fix or the --insecure correction", en.Learnings)
	}
	if got := e.documents(t); !equalSets(got, en.Learnings) {
		t.Errorf("documents %q, want exactly the learnings %q", got, en.Learnings)
	}
	for _, id := range en.Learnings {
		if _, err := os.Stat(filepath.Join(e.kb, "documents", id+".entities.yaml")); err != nil {
			t.Errorf("no sidecar for %s: %v", id, err)
		}
	}

	// Indexed: a reader finds them.
	if !hasResult(e.search(t, "SameSite"), sameSite) {
		t.Errorf("search SameSite does not find %s", sameSite)
	}
	if !hasResult(e.search(t, "insecure self-signed cert"), insecure) {
		t.Errorf("search insecure does not find %s", insecure)
	}

	// Acked: gone from the queue, in the ledger at the size and hash reflected.
	if recs := e.pending(t); len(recs) != 0 {
		t.Errorf("queue still holds %+v", recs)
	}
	led := e.processed(t)
	if len(led) != 1 || led[0].Path != rec.TranscriptPath || led[0].Size != size || led[0].SHA256 != sum ||
		led[0].Outcome != fmt.Sprintf("written %d", len(en.Learnings)) {
		t.Errorf("processed.jsonl: %+v", led)
	}
	if costs := e.costLines(t); len(costs) != 1 || costs[0].Entry != rec.ID || costs[0].Writer != "builtin" ||
		costs[0].Outcome != OutcomeWritten || costs[0].Learnings != len(en.Learnings) || costs[0].CostUSD != 0 {
		t.Errorf("drain-cost.jsonl: %+v", costs)
	}
	last, err := LastRun(e.state)
	if err != nil || last == nil || !last.Ran || len(last.Entries) != 1 || last.Entries[0].ID != rec.ID ||
		last.Entries[0].Outcome != OutcomeWritten || last.Finished.IsZero() {
		t.Errorf("last-drain.json: %+v, %v", last, err)
	}
	if log := e.lines(t, "drain.log"); len(log) != 1 || !strings.Contains(log[0], rec.ID) || !strings.Contains(log[0], "outcome=written") {
		t.Errorf("drain.log: %q", log)
	}
	if _, err := os.Stat(filepath.Join(e.state, "drain.pid")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("drain.pid left behind: %v", err)
	}
	// The transcript is queued no more: its content is covered.
	if queued, reason, err := e.queue(t).Enqueue(queue.Record{TranscriptPath: rec.TranscriptPath, SessionID: rec.SessionID,
		Trigger: queue.TriggerSessionEnd, Harness: queue.HarnessClaude}); queued || reason != queue.ReasonAlreadyReflected || err != nil {
		t.Errorf("Enqueue after the drain = %v, %q, %v; want %q", queued, reason, err, queue.ReasonAlreadyReflected)
	}

	assertNoSecrets(t, e.state, e.kb)
}

func TestRunBuiltinCodexFixture(t *testing.T) {
	e := newDrainEnv(t)
	rec := e.enqueue(t, "../transcript/testdata/codex-rollout.jsonl", queue.HarnessCodex, "019aad50-a7e6-7422-b7a8-0b384290624f")
	rep := e.run(t, Options{Writer: writer.Builtin{}, WriterWhy: "test"})
	if !rep.Ran || len(rep.Entries) != 1 {
		t.Fatalf("report: %+v", rep)
	}
	en := rep.Entries[0]
	if en.Outcome != OutcomeWritten || len(en.Learnings) != 1 || en.Harness != "codex" {
		t.Fatalf("entry: %+v", en)
	}
	l := e.read(t, en.Learnings[0])
	if !strings.Contains(l.Title+l.KeyInsight, "inject a clock") || l.Source.Harness != "codex" ||
		len(l.Cites) != 1 || l.Cites[0].Path != "refresh/token.go" {
		t.Errorf("learning: %+v", l)
	}
	if !hasResult(e.search(t, "inject clock time.Now"), l.ID) {
		t.Errorf("search does not find %s", l.ID)
	}
	if recs := e.pending(t); len(recs) != 0 {
		t.Errorf("queue still holds %+v", recs)
	}
	if led := e.processed(t); len(led) != 1 || led[0].Path != rec.TranscriptPath || led[0].Outcome != "written 1" {
		t.Errorf("processed.jsonl: %+v", led)
	}
	if costs := e.costLines(t); len(costs) != 1 || costs[0].Outcome != OutcomeWritten {
		t.Errorf("drain-cost.jsonl: %+v", costs)
	}
	if last, err := LastRun(e.state); err != nil || last == nil || len(last.Entries) != 1 {
		t.Errorf("last-drain.json: %+v, %v", last, err)
	}
	assertNoSecrets(t, e.state, e.kb)
}

// A secret a writer echoes (in any field, in a form the redactor knows:
// a labelled KEY=value or a vendor key shape) never reaches disk either.
// A bare 40-character AWS secret with no label cannot be told from any
// other base64 text; the condenser redacts it where it has its label, so
// a writer never sees it bare.
func TestRunRedactsWriterOutput(t *testing.T) {
	e := newDrainEnv(t)
	e.enqueue(t, "../transcript/testdata/claude-session.jsonl", queue.HarnessClaude, "s-leak")
	const id, secret = "AKIAIOSFODNN7EXAMPLE", "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
	leak := writer.Draft{
		Title:      "AWS key " + id + " must stay out of tests",
		KeyInsight: "The env had " + secret + " in it.",
		Problem:    "export AWS_ACCESS_KEY_ID=" + id, Solution: "unset " + secret,
		Category: id, Tags: []string{id}, Symptoms: []string{secret},
		Entities:  []store.Entity{{Name: id, Type: "config", Description: "set with " + secret}},
		Relations: []store.Relationship{{Source: id, Target: "env", Type: "configured_in", Description: secret, Strength: 3}},
	}
	rep := e.run(t, Options{Writer: &fixedWriter{drafts: []writer.Draft{leak}}})
	if len(rep.Entries) != 1 || rep.Entries[0].Outcome != OutcomeWritten {
		t.Fatalf("entries: %+v", rep.Entries)
	}
	assertNoSecrets(t, e.state, e.kb)
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
// first entry of a PATH that otherwise has only the system directories, so
// a real claude or codex can never run.
func fakeWriterPath(t *testing.T, name, script string) (out string) {
	t.Helper()
	bin := t.TempDir()
	out = t.TempDir()
	writeScript(t, filepath.Join(bin, name), script)
	t.Setenv("PATH", bin+":/usr/bin:/bin")
	t.Setenv("FAKE_OUT", out)
	return out
}

func writeScript(t testing.TB, path, script string) {
	t.Helper()
	// Write then rename: a running script is never rewritten under it.
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte("#!/bin/sh\n"+fakeHelp+script), 0o755); err != nil {
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

func setWriterFixtures(t *testing.T) {
	t.Setenv("FIXTURE_OK", mustAbs(t, "writer/testdata/writers/claude-print-result.json"))
	t.Setenv("FIXTURE_ERR", mustAbs(t, "writer/testdata/writers/claude-print-error.json"))
}

func TestRunFakeClaudeSuccess(t *testing.T) {
	e := newDrainEnv(t)
	setWriterFixtures(t)
	out := fakeWriterPath(t, "claude", fakeSuccess)
	rec := e.enqueue(t, "../transcript/testdata/claude-session.jsonl", queue.HarnessClaude, "s-ok")

	t.Setenv("REFLECT_WRITER", "auto")
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
	e := newDrainEnv(t)
	setWriterFixtures(t)
	out := fakeWriterPath(t, "claude", fakeSuccess)
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
	setWriterFixtures(t)
	fakeWriterPath(t, "claude", script)
	t.Setenv("REFLECT_WRITER", "claude")
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
	failingRun(t, fakeGarbage, "claude printed no JSON result")
}

func TestRunFakeClaudeSuccessWithoutLearningsKey(t *testing.T) {
	// "success" with a result that is no {"learnings":…} object is a failure.
	failingRun(t, fakeCall+`echo '{"type":"result","subtype":"success","is_error":false,"result":"Done! I fixed it.","total_cost_usd":0.01}'`+"\n",
		`no JSON object with a "learnings" key`)
}

func TestRunFakeClaudeHangTimesOut(t *testing.T) {
	start := time.Now()
	e := newDrainEnv(t)
	setWriterFixtures(t)
	out := fakeWriterPath(t, "claude", fakeHang)
	t.Setenv("REFLECT_DRAIN_TIMEOUT", "1s")
	t.Setenv("REFLECT_WRITER", "claude")
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
		waitGone(t, pid)
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
	e := newDrainEnv(t)
	setWriterFixtures(t)
	out := fakeWriterPath(t, "claude", fakeGarbage)
	t.Setenv("REFLECT_WRITER", "claude")
	t.Setenv("REFLECT_DRAIN_MAX_ATTEMPTS", "3")
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
	writeScript(t, filepath.Join(filepath.Dir(mustLook(t, "claude")), "claude"), fakeSuccess)
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

func mustLook(t *testing.T, name string) string {
	t.Helper()
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
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
	e := newDrainEnv(t)
	var env struct {
		Result *string `json:"result"`
	}
	data, err := os.ReadFile("writer/testdata/writers/claude-print-result.json")
	if err != nil || json.Unmarshal(data, &env) != nil || env.Result == nil {
		t.Fatalf("fixture: %v", err)
	}
	t.Setenv("ANSWER", *env.Result)
	t.Setenv("CODEX_FAIL", "1")
	t.Setenv("REFLECT_WRITER", "auto")
	out := fakeWriterPath(t, "codex", codexFake) // no claude: auto picks codex
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

	t.Setenv("CODEX_FAIL", "")
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

// --- 3. crash recovery (in-process half; the kill -9 half is in proc_test.go) ---

// A drainer that dies after writing the learnings but before the ack
// leaves the entry pending with its ledger line unwritten. The next drain
// reflects it again and must update the same documents, not add copies.
func TestRunCrashBeforeAckUpdatesInPlace(t *testing.T) {
	e := newDrainEnv(t)
	rec := e.enqueue(t, "../transcript/testdata/claude-session.jsonl", queue.HarnessClaude, "s-crash")
	before := snapshot(t, e.state)
	clock := noonToday()
	rep := e.run(t, Options{Writer: writer.Builtin{}, Now: func() time.Time { return clock }})
	if len(rep.Entries) != 1 || rep.Entries[0].Outcome != OutcomeWritten {
		t.Fatalf("entries: %+v", rep.Entries)
	}
	ids := rep.Entries[0].Learnings
	docs := e.documents(t)
	if len(docs) != len(ids) || len(ids) < 2 {
		t.Fatalf("documents %q for learnings %q", docs, ids)
	}
	created := map[string]time.Time{}
	for _, id := range ids {
		created[id] = e.read(t, id).Created
	}

	// Undo the ack: the queue and the ledger as they were before it.
	for _, name := range []string{"pending_reflections.jsonl", "processed.jsonl"} {
		p := filepath.Join(e.state, name)
		if data, ok := before[p]; ok {
			if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
				t.Fatal(err)
			}
		} else if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
	}
	if recs := e.pending(t); len(recs) != 1 || recs[0].ID != rec.ID {
		t.Fatalf("queue after the simulated crash: %+v", recs)
	}

	clock = clock.Add(time.Hour)
	rep = e.run(t, Options{Writer: writer.Builtin{}, Now: func() time.Time { return clock }})
	if len(rep.Entries) != 1 || rep.Entries[0].Outcome != OutcomeWritten {
		t.Fatalf("second drain: %+v", rep.Entries)
	}
	if !equalSets(rep.Entries[0].Learnings, ids) {
		t.Errorf("second drain wrote %q, want the same ids %q", rep.Entries[0].Learnings, ids)
	}
	if got := e.documents(t); !equalSets(got, docs) {
		t.Errorf("documents after the second drain %q, want %q (no duplicates)", got, docs)
	}
	for _, id := range ids {
		l := e.read(t, id)
		if !l.Created.Equal(created[id]) || !l.Updated.Equal(clock) {
			t.Errorf("%s: created %s (was %s), updated %s (want %s)", id, l.Created, created[id], l.Updated, clock)
		}
	}
	for _, id := range ids {
		if n := countResults(e.search(t, e.read(t, id).Title), id); n != 1 {
			t.Errorf("%s found %d times in the index", id, n)
		}
	}
	if recs := e.pending(t); len(recs) != 0 {
		t.Errorf("queue: %+v", recs)
	}
	if led := e.processed(t); len(led) != 1 {
		t.Errorf("processed.jsonl: %+v", led)
	}
}

func countResults(res []index.Result, id string) int {
	n := 0
	for _, r := range res {
		if r.ID == id {
			n++
		}
	}
	return n
}

// A duplicate record for content already reflected (a hook's race, or a
// crash after the ledger line but before the queue rewrite) is acked as
// skipped without running the writer.
func TestRunSkipsContentAlreadyReflected(t *testing.T) {
	e := newDrainEnv(t)
	rec := e.enqueue(t, "../transcript/testdata/claude-session.jsonl", queue.HarnessClaude, "s-dup")
	line, err := json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	e.run(t, Options{Writer: writer.Builtin{}})
	docs := e.documents(t)
	// Put the acked record back, as a crash between the ledger append and
	// the queue rewrite would leave it.
	if err := os.WriteFile(filepath.Join(e.state, "pending_reflections.jsonl"), append(line, '\n'), 0o600); err != nil {
		t.Fatal(err)
	}
	w := &fixedWriter{drafts: fixedDrafts}
	rep := e.run(t, Options{Writer: w})
	if len(rep.Entries) != 1 || rep.Entries[0].Outcome != OutcomeSkipped || w.calls != 0 {
		t.Fatalf("entries %+v, writer calls %d", rep.Entries, w.calls)
	}
	if got := e.documents(t); !equalSets(got, docs) {
		t.Errorf("documents %q, want %q", got, docs)
	}
	if len(e.pending(t)) != 0 {
		t.Errorf("queue: %+v", e.pending(t))
	}
	// Skipped entries do not count against the daily budget.
	if costs := e.costLines(t); len(costs) != 1 || rep.Today.Entries != 1 {
		t.Errorf("drain-cost.jsonl: %+v, today %+v", costs, rep.Today)
	}
}

// A reworded learning (near-duplicate) updates the existing document.
func TestRunNearDuplicateUpdatesExisting(t *testing.T) {
	e := newDrainEnv(t)
	e.enqueue(t, "../transcript/testdata/claude-session.jsonl", queue.HarnessClaude, "s-a")
	first := e.run(t, Options{Writer: &fixedWriter{drafts: fixedDrafts[:1]}})
	if len(first.Entries) != 1 || len(first.Entries[0].Learnings) != 1 {
		t.Fatalf("first: %+v", first.Entries)
	}
	e.enqueue(t, "../transcript/testdata/codex-rollout.jsonl", queue.HarnessCodex, "s-b")
	reworded := fixedDrafts[0]
	reworded.Title = "Postgres pool exhaustion needs pgbouncer in front"
	second := e.run(t, Options{Writer: &fixedWriter{drafts: []writer.Draft{reworded}}})
	if len(second.Entries) != 1 || !equalSets(second.Entries[0].Learnings, first.Entries[0].Learnings) {
		t.Fatalf("reworded learning got %+v, want the id %q", second.Entries, first.Entries[0].Learnings)
	}
	if docs := e.documents(t); len(docs) != 1 {
		t.Errorf("documents: %q", docs)
	}
	if l := e.read(t, first.Entries[0].Learnings[0]); l.Title != reworded.Title {
		t.Errorf("title %q, want the update", l.Title)
	}
}

// A writer that repeats itself lists each learning once, saying whether
// the entry added or updated it: drain listed one id up to 7 times for an
// entry ("→ 10 learning(s)") whose knowledge base got 3 documents.
func TestRunListsEachLearningOnce(t *testing.T) {
	e := newDrainEnv(t)
	e.enqueue(t, "../transcript/testdata/claude-session.jsonl", queue.HarnessClaude, "s-before")
	before := e.run(t, Options{Writer: &fixedWriter{drafts: fixedDrafts[:1]}})
	if len(before.Entries) != 1 || len(before.Entries[0].Learnings) != 1 {
		t.Fatalf("first drain: %+v", before.Entries)
	}
	existing := before.Entries[0].Learnings[0]
	if w := before.Entries[0].Written; len(w) != 1 || w[0].ID != existing || w[0].Action != "added" {
		t.Fatalf("first drain wrote %+v, want %s added", w, existing)
	}

	vite := fixedDrafts[1]
	viteReworded := vite
	viteReworded.Title = "Vite dev server must bind 0.0.0.0 inside Docker containers"
	pgReworded := fixedDrafts[0]
	pgReworded.Title = "Postgres pool exhaustion needs pgbouncer in front"
	flyway := writer.Draft{Title: "Flyway migrations run out of order on a fresh clone",
		KeyInsight: "Set outOfOrder=false and number migrations by timestamp.", Confidence: "medium"}
	drafts := []writer.Draft{vite, vite, pgReworded, viteReworded, flyway, fixedDrafts[0], vite}
	e.enqueue(t, "../transcript/testdata/codex-rollout.jsonl", queue.HarnessCodex, "s-repeats")
	rep := e.run(t, Options{Writer: &fixedWriter{drafts: drafts}})
	if len(rep.Entries) != 1 || rep.Entries[0].Outcome != OutcomeWritten {
		t.Fatalf("entries: %+v", rep.Entries)
	}
	en := rep.Entries[0]
	docs := e.documents(t)
	if len(docs) != 3 {
		t.Fatalf("documents %q, want pgbouncer, vite and flyway", docs)
	}
	if !equalSets(en.Learnings, docs) || len(en.Learnings) != len(docs) {
		t.Fatalf("learnings %q, want each of %q once", en.Learnings, docs)
	}
	actions := map[string]string{}
	for i, w := range en.Written {
		if w.ID != en.Learnings[i] {
			t.Errorf("written[%d] = %s, learnings[%d] = %s: want the same order", i, w.ID, i, en.Learnings[i])
		}
		actions[w.ID] = w.Action
	}
	if len(en.Written) != len(en.Learnings) {
		t.Fatalf("written %+v does not match learnings %q", en.Written, en.Learnings)
	}
	if actions[existing] != "updated" {
		t.Errorf("%s existed before the entry: action %q, want updated (%+v)", existing, actions[existing], en.Written)
	}
	for id, a := range actions {
		if id != existing && a != "added" {
			t.Errorf("%s is new in this entry (written again later in it): action %q, want added", id, a)
		}
	}
	if costs := e.costLines(t); len(costs) != 2 || costs[1].Learnings != 3 {
		t.Errorf("drain-cost.jsonl: %+v, want 3 learnings for the second entry", costs)
	}
	if log := e.lines(t, "drain.log"); len(log) != 2 || !strings.Contains(log[1], " learnings=3 ") {
		t.Errorf("drain.log: %q, want learnings=3 for the second entry", log)
	}
}

// --- 5. budgets ---

func TestRunMaxPerRun(t *testing.T) {
	e := newDrainEnv(t)
	t.Setenv("REFLECT_DRAIN_MAX_PER_RUN", "2")
	var ids []string
	for i := 0; i < 5; i++ {
		ids = append(ids, e.enqueue(t, "../transcript/testdata/claude-session.jsonl", queue.HarnessClaude, fmt.Sprintf("s-%d", i)).ID)
	}
	w := &fixedWriter{drafts: fixedDrafts}
	rep := e.run(t, Options{Writer: w})
	if len(rep.Entries) != 2 || w.calls != 2 || rep.Waiting != 3 || rep.Entries[0].ID != ids[0] || rep.Entries[1].ID != ids[1] {
		t.Fatalf("max_per_run 2: entries %+v, calls %d, waiting %d", rep.Entries, w.calls, rep.Waiting)
	}
	// --max overrides it.
	rep = e.run(t, Options{Writer: w, Max: 1})
	if len(rep.Entries) != 1 || rep.Entries[0].ID != ids[2] || rep.Waiting != 2 {
		t.Fatalf("--max 1: entries %+v, waiting %d", rep.Entries, rep.Waiting)
	}
	rep = e.run(t, Options{Writer: w, Max: 10})
	if len(rep.Entries) != 2 || rep.Waiting != 0 || w.calls != 5 || rep.Today.Entries != 5 {
		t.Fatalf("--max 10: entries %+v, waiting %d, calls %d, today %+v", rep.Entries, rep.Waiting, w.calls, rep.Today)
	}
	if n := len(e.costLines(t)); n != 5 {
		t.Errorf("drain-cost.jsonl has %d lines", n)
	}
}

func TestRunDailyMax(t *testing.T) {
	e := newDrainEnv(t)
	t.Setenv("REFLECT_DRAIN_DAILY_MAX", "3")
	for i := 0; i < 5; i++ {
		e.enqueue(t, "../transcript/testdata/claude-session.jsonl", queue.HarnessClaude, fmt.Sprintf("s-%d", i))
	}
	w := &fixedWriter{drafts: fixedDrafts}
	clock := noonToday()
	now := func() time.Time { return clock }
	if rep := e.run(t, Options{Writer: w, Max: 2, Now: now}); len(rep.Entries) != 2 {
		t.Fatalf("first: %+v", rep.Entries)
	}
	if rep := e.run(t, Options{Writer: w, Max: 2, Now: now}); len(rep.Entries) != 1 || rep.Today.Entries != 3 || rep.Waiting != 2 {
		t.Fatalf("second: entries %+v, today %+v, waiting %d", rep.Entries, rep.Today, rep.Waiting)
	}
	rep := e.run(t, Options{Writer: w, Max: 2, Now: now})
	if rep.Ran || rep.Reason != "daily budget reached: 3 of 3 entries reflected today" || rep.Waiting != 2 || len(rep.Entries) != 0 {
		t.Fatalf("third: %+v", rep)
	}
	if w.calls != 3 {
		t.Errorf("writer calls %d", w.calls)
	}
	// A new UTC day has a new budget.
	clock = clock.Add(24 * time.Hour)
	if rep := e.run(t, Options{Writer: w, Max: 2, Now: now}); !rep.Ran || len(rep.Entries) != 2 || rep.Today.Entries != 2 {
		t.Fatalf("next day: %+v", rep)
	}
}

func TestRunDailyUSD(t *testing.T) {
	e := newDrainEnv(t)
	setWriterFixtures(t)
	out := fakeWriterPath(t, "claude", fakeCall+`sed 's/"total_cost_usd":0.0412/"total_cost_usd":0.5/' "$FIXTURE_OK"`+"\n")
	t.Setenv("REFLECT_WRITER", "claude")
	t.Setenv("REFLECT_DRAIN_DAILY_USD", "1.0")
	t.Setenv("REFLECT_DRAIN_MAX_PER_RUN", "10")
	for i := 0; i < 4; i++ {
		e.enqueue(t, "../transcript/testdata/claude-session.jsonl", queue.HarnessClaude, fmt.Sprintf("s-%d", i))
	}
	rep := e.run(t, Options{})
	if len(rep.Entries) != 2 || rep.Today.USD != 1.0 || rep.Today.Entries != 2 || rep.Waiting != 2 || callCount(t, out) != 2 {
		t.Fatalf("entries %+v, today %+v, waiting %d, calls %d; want 2 entries at $0.50", rep.Entries, rep.Today, rep.Waiting, callCount(t, out))
	}
	for _, en := range rep.Entries {
		if en.Outcome != OutcomeWritten || en.CostUSD != 0.5 {
			t.Errorf("entry %+v", en)
		}
	}
	var usd float64
	for _, c := range e.costLines(t) {
		usd += c.CostUSD
	}
	if usd != 1.0 {
		t.Errorf("drain-cost.jsonl sums to $%v", usd)
	}
	rep = e.run(t, Options{})
	if rep.Ran || rep.Reason != "daily budget reached: $1.00 of $1.00 spent today" || callCount(t, out) != 2 || rep.Waiting != 2 {
		t.Errorf("after the budget: %+v, calls %d", rep, callCount(t, out))
	}
}

// dryRunEnv has three queued entries, one of them reflected by a real
// drain so that every file a drain writes exists.
func dryRunEnv(t *testing.T) *drainEnv {
	e := newDrainEnv(t)
	for i := 0; i < 3; i++ {
		e.enqueue(t, "../transcript/testdata/claude-session.jsonl", queue.HarnessClaude, fmt.Sprintf("s-%d", i))
	}
	e.run(t, Options{Writer: writer.Builtin{}, Max: 1})
	return e
}

// dryRun runs a dry drain and returns the files it changed or created
// (except skip).
func dryRun(t *testing.T, e *drainEnv, wantEntries int, skip ...string) []string {
	t.Helper()
	before := snapshot(t, e.state, e.kb)
	w := &fixedWriter{drafts: fixedDrafts}
	rep := e.run(t, Options{Writer: w, DryRun: true})
	if !rep.Ran || !rep.DryRun || len(rep.Entries) != wantEntries || w.calls != 0 {
		t.Fatalf("dry run: %+v, writer calls %d", rep, w.calls)
	}
	for _, en := range rep.Entries {
		if en.Outcome != OutcomeWouldRun || en.RawBytes == 0 {
			t.Errorf("entry %+v", en)
		}
	}
	if rep.Today.Entries != 1 {
		t.Errorf("a dry run counted against today: %+v", rep.Today)
	}
	after := snapshot(t, e.state, e.kb)
	var changed []string
	for p, data := range after {
		if slicesContains(skip, filepath.Base(p)) {
			continue
		}
		if old, ok := before[p]; !ok {
			changed = append(changed, "created "+p)
		} else if old != data {
			changed = append(changed, "changed "+p)
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			changed = append(changed, "removed "+p)
		}
	}
	sort.Strings(changed)
	return changed
}

func slicesContains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// --dry-run lists what would run and leaves the queue, the ledgers, the
// documents and the index byte-identical.
func TestRunDryRunChangesNothing(t *testing.T) {
	e := dryRunEnv(t)
	if changed := dryRun(t, e, 2, "drain.log"); len(changed) > 0 {
		t.Errorf("dry run:\n%s", strings.Join(changed, "\n"))
	}
}

// Guards a fixed bug: a dry run appends its would-run entries to drain.log: run.go calls
// logEntry for every entry, dry or not.
func TestRunDryRunWritesNoLog(t *testing.T) {
	e := dryRunEnv(t)
	if changed := dryRun(t, e, 2); len(changed) > 0 {
		t.Errorf("dry run:\n%s", strings.Join(changed, "\n"))
	}
}

// Guards a fixed bug: a dry run compacts the queue: Run skips q.Compact when dry, but
// q.Claim compacts in the same critical section, so a malformed line is
// moved to malformed.jsonl and duplicates are merged by a run that
// promised to change nothing.
func TestRunDryRunDoesNotCompactQueue(t *testing.T) {
	e := dryRunEnv(t)
	qpath := filepath.Join(e.state, "pending_reflections.jsonl")
	f, err := os.OpenFile(qpath, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	recs := e.pending(t)
	dup, _ := json.Marshal(recs[0])
	fmt.Fprintf(f, "not json\n%s\n", bytes.Replace(dup, []byte(recs[0].ID), []byte("q-duplicate"), 1))
	f.Close()
	if changed := dryRun(t, e, 2, "drain.log"); len(changed) > 0 {
		t.Errorf("dry run:\n%s", strings.Join(changed, "\n"))
	}
}

// Another drain holding drain.lock makes Run return at once, untouched.
func TestRunLockedReportsHolder(t *testing.T) {
	e := newDrainEnv(t)
	e.enqueue(t, "../transcript/testdata/claude-session.jsonl", queue.HarnessClaude, "s-1")
	entered, release := make(chan struct{}), make(chan struct{})
	w := &blockingWriter{entered: entered, release: release}
	done := make(chan *Report)
	c := e.config(t)
	go func() {
		rep, _ := Run(context.Background(), withConfig(c, Options{Writer: w}))
		done <- rep
	}()
	<-entered
	pid := strings.TrimSpace(readRecorded(t, e.state, "drain.pid"))
	if pid != strconv.Itoa(os.Getpid()) {
		t.Errorf("drain.pid = %q", pid)
	}
	rep := e.run(t, Options{Writer: &fixedWriter{}})
	if rep.Ran || rep.Reason != "another drain is running (pid "+pid+")" || len(rep.Entries) != 0 {
		t.Errorf("second drain: %+v", rep)
	}
	close(release)
	if first := <-done; first == nil || len(first.Entries) != 1 || first.Entries[0].Outcome != OutcomeWritten {
		t.Errorf("first drain: %+v", first)
	}
}

type blockingWriter struct{ entered, release chan struct{} }

func (*blockingWriter) Name() string { return "blocking" }

func (w *blockingWriter) Write(ctx context.Context, c *transcript.Condensed) (*writer.Output, error) {
	close(w.entered)
	<-w.release
	return &writer.Output{Learnings: fixedDrafts[:1]}, nil
}

// An empty writer answer is "nothing": acked, counted, no documents.
func TestRunNothingToWrite(t *testing.T) {
	e := newDrainEnv(t)
	rec := e.enqueue(t, "../transcript/testdata/codex-rollout.jsonl", queue.HarnessCodex, "s-none")
	w := &fixedWriter{}
	rep := e.run(t, Options{Writer: w})
	if len(rep.Entries) != 1 || rep.Entries[0].Outcome != OutcomeNothing || w.calls != 1 {
		t.Fatalf("entries %+v, calls %d", rep.Entries, w.calls)
	}
	if len(e.pending(t)) != 0 || len(e.documents(t)) != 0 {
		t.Errorf("queue %+v, documents %q", e.pending(t), e.documents(t))
	}
	if led := e.processed(t); len(led) != 1 || led[0].Path != rec.TranscriptPath || led[0].Outcome != "nothing 0" {
		t.Errorf("processed.jsonl: %+v", led)
	}
	if rep.Today.Entries != 1 {
		t.Errorf("today %+v", rep.Today)
	}
}

// Guards a fixed bug: an entry whose transcript was deleted is never removed from the
// queue. entry.go acks it with a ledger entry that has no sha256, which
// Ack refuses ("path and sha256 are required"); the ack error is then
// overwritten by "transcript no longer exists". Every drain claims the
// entry again, and max_per_run such entries at the head of the queue block
// everything behind them forever.
func TestRunDropsEntryOfDeletedTranscript(t *testing.T) {
	e := newDrainEnv(t)
	t.Setenv("REFLECT_DRAIN_MAX_PER_RUN", "2")
	for i := 0; i < 2; i++ {
		gone := e.enqueue(t, "../transcript/testdata/claude-session.jsonl", queue.HarnessClaude, fmt.Sprintf("s-gone-%d", i))
		if err := os.Remove(gone.TranscriptPath); err != nil {
			t.Fatal(err)
		}
	}
	live := e.enqueue(t, "../transcript/testdata/codex-rollout.jsonl", queue.HarnessCodex, "s-live")
	w := &fixedWriter{drafts: fixedDrafts}
	rep := e.run(t, Options{Writer: w})
	if len(rep.Entries) != 2 || rep.Entries[0].Outcome != OutcomeSkipped || rep.Entries[1].Outcome != OutcomeSkipped || w.calls != 0 {
		t.Fatalf("first drain: %+v", rep.Entries)
	}
	if recs := e.pending(t); len(recs) != 1 || recs[0].ID != live.ID {
		t.Errorf("after the first drain the queue holds %d entries, want only the live one: %+v", len(recs), recs)
	}
	rep = e.run(t, Options{Writer: w})
	if len(rep.Entries) != 1 || rep.Entries[0].ID != live.ID || rep.Entries[0].Outcome != OutcomeWritten {
		t.Errorf("second drain: %+v; the live entry behind the deleted ones is never reached", rep.Entries)
	}
}

// growingWriter appends a turn to the transcript while it "thinks", as a
// live session does between Stop hooks.
type growingWriter struct {
	writer.Writer
	path string
}

func (g *growingWriter) Write(ctx context.Context, c *transcript.Condensed) (*writer.Output, error) {
	f, err := os.OpenFile(g.path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return nil, err
	}
	fmt.Fprintln(f, cUser(`"one more thing: also log the callback latency"`))
	f.Close()
	return g.Writer.Write(ctx, c)
}

// Turns added while the writer ran are not lost: the ack re-queues the
// transcript, and reflecting it again updates the same learnings.
func TestRunTranscriptGrowsDuringWrite(t *testing.T) {
	e := newDrainEnv(t)
	rec := e.enqueue(t, "../transcript/testdata/claude-session.jsonl", queue.HarnessClaude, "s-live")
	before, _, err := queue.HashFile(rec.TranscriptPath)
	if err != nil {
		t.Fatal(err)
	}
	rep := e.run(t, Options{Writer: &growingWriter{Writer: writer.Builtin{}, path: rec.TranscriptPath}})
	if len(rep.Entries) != 1 || rep.Entries[0].Outcome != OutcomeWritten {
		t.Fatalf("entries: %+v", rep.Entries)
	}
	ids := rep.Entries[0].Learnings
	if led := e.processed(t); len(led) != 1 || led[0].Size != before {
		t.Errorf("the ledger must cover what was reflected (%d bytes), not what is on disk now: %+v", before, led)
	}
	recs := e.pending(t)
	if len(recs) != 1 || recs[0].ID == rec.ID || recs[0].TranscriptPath != rec.TranscriptPath || recs[0].Attempts != 0 || rep.Waiting != 1 {
		t.Fatalf("queue after the transcript grew: %+v (waiting %d); want a fresh record", recs, rep.Waiting)
	}
	rep = e.run(t, Options{Writer: writer.Builtin{}})
	if len(rep.Entries) != 1 || rep.Entries[0].Outcome != OutcomeWritten || !equalSets(rep.Entries[0].Learnings, ids) {
		t.Fatalf("second drain: %+v; want the same learnings %q updated", rep.Entries, ids)
	}
	if docs := e.documents(t); !equalSets(docs, ids) {
		t.Errorf("documents %q, want %q", docs, ids)
	}
	if len(e.pending(t)) != 0 || len(e.processed(t)) != 2 {
		t.Errorf("queue %+v, ledger %+v", e.pending(t), e.processed(t))
	}
}

// The transcript of one of reflect's own writer runs is acked as skipped:
// no writer run, no budget spent, nothing written.
func TestRunSkipsWriterTranscript(t *testing.T) {
	e := newDrainEnv(t)
	prompt := writer.Prompt(&transcript.Condensed{Harness: "claude", Text: "USER: fix the login\n"})
	data := lines(
		`{"type":"user","sessionId":"w1","cwd":"/tmp/somewhere","message":{"role":"user","content":`+quote(prompt)+`}}`,
		cAsst(`[{"type":"text","text":"{\"learnings\":[]}"}]`),
	)
	rec := e.enqueueData(t, []byte(data), queue.HarnessClaude, "s-writer")
	w := &fixedWriter{drafts: fixedDrafts}
	rep := e.run(t, Options{Writer: w})
	if len(rep.Entries) != 1 || rep.Entries[0].Outcome != OutcomeSkipped || w.calls != 0 || rep.Today.Entries != 0 {
		t.Fatalf("entries %+v, calls %d, today %+v", rep.Entries, w.calls, rep.Today)
	}
	if led := e.processed(t); len(led) != 1 || led[0].Path != rec.TranscriptPath || led[0].Outcome != "skipped: "+transcript.SkipWriterRun {
		t.Errorf("processed.jsonl: %+v", led)
	}
	if len(e.pending(t)) != 0 || len(e.documents(t)) != 0 || len(e.costLines(t)) != 0 {
		t.Errorf("queue %+v, documents %q, cost %+v", e.pending(t), e.documents(t), e.costLines(t))
	}
}

// `reflect queue retry ID` on an entry waiting for its backoff makes it due
// at once, attempts kept.
func TestRunRequeueWaitingEntry(t *testing.T) {
	e, rep := failingRun(t, fakeGarbage, "claude printed no JSON result")
	id := rep.Entries[0].ID
	if err := e.queue(t).Requeue(id); err != nil {
		t.Fatal(err)
	}
	writeScript(t, filepath.Join(filepath.Dir(mustLook(t, "claude")), "claude"), fakeSuccess)
	again := e.run(t, Options{})
	if len(again.Entries) != 1 || again.Entries[0].ID != id || again.Entries[0].Outcome != OutcomeWritten {
		t.Fatalf("re-armed entry: %+v", again.Entries)
	}
	if len(e.pending(t)) != 0 || len(e.documents(t)) != 1 {
		t.Errorf("queue %+v, documents %q", e.pending(t), e.documents(t))
	}
}

// A dry run leaves the entry of a deleted transcript where it is.
func TestRunDryRunKeepsDeletedTranscriptEntry(t *testing.T) {
	e := newDrainEnv(t)
	gone := e.enqueue(t, "../transcript/testdata/claude-session.jsonl", queue.HarnessClaude, "s-gone")
	if err := os.Remove(gone.TranscriptPath); err != nil {
		t.Fatal(err)
	}
	e.enqueue(t, "../transcript/testdata/codex-rollout.jsonl", queue.HarnessCodex, "s-live")
	e.run(t, Options{Writer: &fixedWriter{}, DryRun: true}) // creates drain.lock
	before := snapshot(t, e.state, e.kb)
	rep := e.run(t, Options{Writer: &fixedWriter{}, DryRun: true})
	if len(rep.Entries) != 2 || rep.Entries[1].Outcome != OutcomeWouldRun {
		t.Fatalf("entries: %+v", rep.Entries)
	}
	after := snapshot(t, e.state, e.kb)
	for p, data := range before {
		if filepath.Base(p) != "drain.log" && after[p] != data {
			t.Errorf("dry run changed %s", p)
		}
	}
	if recs := e.pending(t); len(recs) != 2 || recs[0].ID != gone.ID {
		t.Errorf("queue after a dry run: %+v", recs)
	}
}

// The time a writer takes reaches drain-cost.jsonl, last-drain.json and
// drain.log: it used to read 0 whatever the writer took.
func TestRunRecordsEntryDuration(t *testing.T) {
	e := newDrainEnv(t)
	e.enqueue(t, "../transcript/testdata/claude-session.jsonl", queue.HarnessClaude, "s-slow")
	const delay = 60 * time.Millisecond
	rep := e.run(t, Options{Writer: &fixedWriter{drafts: fixedDrafts[:1], delay: delay}})
	if len(rep.Entries) != 1 || rep.Entries[0].DurationMS < delay.Milliseconds() {
		t.Fatalf("entries %+v, want a duration of at least %v", rep.Entries, delay)
	}
	if costs := e.costLines(t); len(costs) != 1 || costs[0].DurationMS < delay.Milliseconds() {
		t.Errorf("drain-cost.jsonl: %+v", costs)
	}
	last, err := LastRun(e.state)
	if err != nil || last == nil || len(last.Entries) != 1 || last.Entries[0].DurationMS < delay.Milliseconds() {
		t.Errorf("last-drain.json: %+v, %v", last, err)
	}
	logLines := e.lines(t, "drain.log")
	if len(logLines) != 1 || strings.Contains(logLines[0], " ms=0") {
		t.Errorf("drain.log: %q", logLines)
	}
}

// budgetFor is the plan a run claims by: the per-run budget (or --max),
// capped by what today has left, and the reason when a daily budget is
// spent.
func TestBudgetFor(t *testing.T) {
	o := Options{MaxPerRun: 3, DailyMax: 20, DailyUSD: 1}
	for _, tt := range []struct {
		max    int
		today  Spend
		n      int
		reason string
	}{
		{0, Spend{}, 3, ""},
		{10, Spend{}, 10, ""},
		{10, Spend{Entries: 18}, 2, ""},
		{0, Spend{Entries: 20}, 0, "daily budget reached: 20 of 20 entries reflected today"},
		{0, Spend{Entries: 1, USD: 1}, 3, "daily budget reached: $1.00 of $1.00 spent today"},
	} {
		o.Max = tt.max
		n, reason := budgetFor(o, tt.today)
		if n != tt.n || reason != tt.reason {
			t.Errorf("max %d, today %+v: %d %q, want %d %q", tt.max, tt.today, n, reason, tt.n, tt.reason)
		}
	}
}
