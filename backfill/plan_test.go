package backfill

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/reflectkb/reflect/internal/testfs"
	"github.com/reflectkb/reflect/queue"
	"github.com/reflectkb/reflect/transcript"
)

func TestPlanFindsEveryAgentsSessions(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	p := w.plan(t, Options{})
	got := byPath(p)
	want := map[string]struct{ sid, cwd string }{
		"claude":   {"9c19e7ca-363e-4250-8fe4-30525dab65ba", "/home/dev/src/widget-service"},
		"codex":    {"01a2131d-1925-7570-80d3-c8830e3f0982", "/home/dev/src/widget-service"},
		"gemini":   {"53e0fb2d-02fe-4555-a75b-0f478d419ca4", "/home/dev/src/widget-service"},
		"opencode": {"ses_dec014aa0ffeSFFF719s2JwSzV", "/home/dev/proj"},
		"copilot":  {"11111111-2222-4333-8444-555555555555", "/home/dev/proj"},
	}
	for agent, path := range w.paths {
		s, ok := got[path]
		if !ok {
			t.Errorf("%s: session %s not in the plan", agent, path)
			continue
		}
		if s.Agent != agent || s.Status != StatusNew || s.SessionID != want[agent].sid || s.Cwd != want[agent].cwd {
			t.Errorf("%s: %+v, want new, session %s in %s", agent, s, want[agent].sid, want[agent].cwd)
		}
		// The condensed size is what the drainer would send: the same
		// condensation, with the drainer's limits.
		c, err := transcript.Condense(path, agent, transcript.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		if s.Condensed == 0 || s.Condensed != len(c.Text) {
			t.Errorf("%s: condensed %d, the drainer's condensation is %d", agent, s.Condensed, len(c.Text))
		}
		a := agentPlan(t, p, agent)
		if a.Sessions != 1 || a.New != 1 || a.WriterRuns != 1 || a.CondensedChars != int64(s.Condensed) {
			t.Errorf("%s: summary %+v", agent, a)
		}
	}
	if p.Total.New != 5 || p.Total.WriterRuns != 5 || len(p.Problems) != 0 {
		t.Errorf("total %+v, problems %v", p.Total, p.Problems)
	}
}

func TestPlanMissingAgentDirectoriesAreEmpty(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	p := (&world{dirs: Dirs{Home: home, StateDir: filepath.Join(home, "state")}}).plan(t, Options{})
	if p.Total.Sessions != 0 || len(p.Problems) != 0 || len(p.Agents) != len(Agents) {
		t.Errorf("an empty HOME: %+v", p)
	}
}

func TestPlanFilters(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	old := clock.AddDate(0, 0, -40)
	if err := os.Chtimes(w.paths["codex"], old, old); err != nil {
		t.Fatal(err)
	}
	statuses := func(p *Plan) map[string]bool {
		out := map[string]bool{}
		for _, s := range p.Sessions {
			out[s.Agent] = true
		}
		return out
	}
	for _, tc := range []struct {
		name string
		o    Options
		want []string
	}{
		{"agent", Options{Agents: []string{"gemini", "copilot", "gemini"}}, []string{"gemini", "copilot"}},
		{"since", Options{Since: clock.AddDate(0, 0, -30)}, []string{"claude", "gemini", "opencode", "copilot"}},
		{"project", Options{Project: "/home/dev/src/widget-service"}, []string{"claude", "codex", "gemini"}},
		{"project below", Options{Project: "/home/dev"}, []string{"claude", "codex", "gemini", "opencode", "copilot"}},
		{"project prefix is no parent", Options{Project: "/home/dev/pro"}, nil},
		{"all three", Options{Agents: []string{"claude", "codex"}, Since: clock.AddDate(0, 0, -30), Project: "/home/dev/src/widget-service"}, []string{"claude"}},
	} {
		p := w.plan(t, tc.o)
		got := statuses(p)
		// One session per agent: an agent named twice is read once.
		if len(got) != len(tc.want) || len(p.Sessions) != len(tc.want) {
			t.Errorf("%s: sessions of %v, want %v", tc.name, got, tc.want)
		}
		for _, a := range tc.want {
			if !got[a] {
				t.Errorf("%s: no %s session in %v", tc.name, a, got)
			}
		}
	}
}

func TestPlanSkipsSessionsBeingWritten(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	recent := clock.Add(-10 * time.Second)
	if err := os.Chtimes(w.paths["claude"], recent, recent); err != nil {
		t.Fatal(err)
	}
	p, res := w.run(t, Options{})
	s := byPath(p)[w.paths["claude"]]
	if s.Status != StatusBusy || !strings.Contains(s.Reason, "written 10s ago") || !strings.Contains(s.Reason, "next backfill") {
		t.Fatalf("a session written 10 s ago: %+v", s)
	}
	if res.Queued != 4 {
		t.Errorf("queued %d, want the 4 others", res.Queued)
	}
	// The next run, once the session was left alone, queues it.
	later := Options{Now: func() time.Time { return clock.Add(time.Hour) }}
	p, res = w.run(t, later)
	if s := byPath(p)[w.paths["claude"]]; s.Status != StatusNew || res.Queued != 1 {
		t.Errorf("next run: %+v, queued %d", s, res.Queued)
	}
}

func TestPlanNamesUnreadableFilesAndGoesOn(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	dir := filepath.Dir(w.paths["claude"])
	// A link where a session should be, a FIFO (a read would hang), a
	// directory named like a session, and an older Gemini chat format.
	if err := os.Symlink("/etc/passwd", filepath.Join(dir, "link.jsonl")); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo.jsonl")
	if err := testfs.Mkfifo(fifo); err != nil {
		fifo = "" // no FIFOs on this system
	}
	if err := os.Mkdir(filepath.Join(dir, "dir.jsonl"), 0o700); err != nil {
		t.Fatal(err)
	}
	oldGemini := filepath.Join(filepath.Dir(w.paths["gemini"]), "session-old.json")
	w.write(t, oldGemini, []byte("{\n  \"sessionId\": \"x\",\n  \"messages\": []\n}\n"), clock.Add(-time.Hour))
	p, res := w.run(t, Options{})
	got := byPath(p)
	for path, why := range map[string]string{filepath.Join(dir, "link.jsonl"): "not a regular file: a symlink",
		fifo: "not a regular file: a FIFO", oldGemini: "format before 0.61"} {
		if path == "" {
			continue
		}
		if s := got[path]; s.Status != StatusProblem || !strings.Contains(s.Reason, why) {
			t.Errorf("%s: %+v, want a problem saying %q", path, s, why)
		}
	}
	if _, ok := got[filepath.Join(dir, "dir.jsonl")]; ok {
		t.Errorf("a directory named like a session was planned")
	}
	if res.Queued != 5 {
		t.Errorf("queued %d, want the 5 readable sessions", res.Queued)
	}
}

func TestPlanNamesUnreadableDirectories(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	// Claude's projects directory is a file: named, and the others go on.
	projects := filepath.Join(w.dirs.Home, ".claude", "projects")
	if err := os.RemoveAll(projects); err != nil {
		t.Fatal(err)
	}
	w.write(t, projects, []byte("x"), clock)
	p := w.plan(t, Options{})
	if len(p.Problems) != 1 || p.Problems[0].Path != projects || p.Problems[0].Reason != "not a directory" {
		t.Errorf("problems %+v", p.Problems)
	}
	if p.Total.New != 4 {
		t.Errorf("%d new, want the 4 other agents' sessions", p.Total.New)
	}
}

func TestPlanLimitTakesTheMostRecent(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	for i, agent := range []string{"codex", "gemini", "claude", "copilot", "opencode"} {
		mod := clock.Add(-time.Duration(i+1) * time.Hour)
		if err := os.Chtimes(w.paths[agent], mod, mod); err != nil {
			t.Fatal(err)
		}
	}
	p, res := w.run(t, Options{Limit: 2})
	got := byPath(p)
	if got[w.paths["codex"]].Status != StatusNew || got[w.paths["gemini"]].Status != StatusNew || res.Queued != 2 {
		t.Errorf("limit 2 queued %d: %+v", res.Queued, p.Sessions)
	}
	if p.Total.Left != 3 || len(p.Sessions) != 2 {
		t.Errorf("left %d (want 3 not read), sessions %d", p.Total.Left, len(p.Sessions))
	}
	// The next run takes the next two.
	p, res = w.run(t, Options{Limit: 2})
	if res.Queued != 2 || byPath(p)[w.paths["claude"]].Status != StatusNew {
		t.Errorf("second run queued %d: %+v", res.Queued, p.Sessions)
	}
}

func TestPlanSkipsWhatTheHooksCaptured(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	q := w.queue(t)
	// Claude's Stop hook queued its session; Codex's was reflected.
	if ok, reason, err := q.Enqueue(queue.Record{TranscriptPath: w.paths["claude"], SessionID: "9c19e7ca-363e-4250-8fe4-30525dab65ba",
		Trigger: queue.TriggerStop, Harness: queue.HarnessClaude}); !ok || err != nil {
		t.Fatalf("enqueue: %v %s %v", ok, reason, err)
	}
	size, sum, err := queue.HashFile(w.paths["codex"])
	if err != nil {
		t.Fatal(err)
	}
	if err := q.MarkProcessed(queue.Processed{Path: w.paths["codex"], Size: size, SHA256: sum, Outcome: "written 1"}); err != nil {
		t.Fatal(err)
	}
	p, res := w.run(t, Options{})
	got := byPath(p)
	if s := got[w.paths["claude"]]; s.Status != StatusQueued {
		t.Errorf("queued by a hook: %+v", s)
	}
	if s := got[w.paths["codex"]]; s.Status != StatusReflected {
		t.Errorf("reflected: %+v", s)
	}
	if res.Queued != 3 || p.Total.Already != 2 {
		t.Errorf("queued %d, already %d", res.Queued, p.Total.Already)
	}
	recs, _, err := q.List()
	if err != nil || len(recs) != 4 {
		t.Fatalf("queue holds %d records (%v), want the hook's and 3 backfilled", len(recs), err)
	}
	// A reflected session that grew since has new turns: it is new.
	f, err := os.OpenFile(w.paths["codex"], os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"type":"event_msg","payload":{"type":"user_message","message":"one more turn"}}` + "\n")
	f.Close()
	old := clock.Add(-time.Hour)
	os.Chtimes(w.paths["codex"], old, old)
	if s := byPath(w.plan(t, Options{}))[w.paths["codex"]]; s.Status != StatusNew {
		t.Errorf("a reflected session that grew: %+v", s)
	}
}

func TestPlanNothingToReflect(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	// One of reflect's own writer runs, kept by an agent that persisted it.
	writerRun := filepath.Join(filepath.Dir(w.paths["claude"]), "writer-run.jsonl")
	w.write(t, writerRun, []byte(`{"type":"user","sessionId":"w1","cwd":"/tmp","message":{"role":"user","content":"`+transcript.WriterPromptMarker+` reflect on this"}}`+"\n"), clock.Add(-time.Hour))
	p, res := w.run(t, Options{})
	if s := byPath(p)[writerRun]; s.Status != StatusNothing || s.Reason != transcript.SkipWriterRun {
		t.Fatalf("a writer run: %+v", s)
	}
	if res.Queued != 5 {
		t.Errorf("queued %d", res.Queued)
	}
	// Recorded, so the next plan does not read it again.
	if s := byPath(w.plan(t, Options{}))[writerRun]; s.Status != StatusBackfilled || s.Reason != "nothing" {
		t.Errorf("next plan: %+v", s)
	}
}

func TestPlanProjectThroughASymbolicLink(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	real := filepath.Join(w.dirs.Home, "src", "real")
	link := filepath.Join(w.dirs.Home, "link")
	if err := os.MkdirAll(filepath.Join(real, "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	// The agent recorded the resolved directory; the user names the link.
	path := filepath.Join(w.dirs.Home, ".claude", "projects", "-real", "s1.jsonl")
	w.write(t, path, []byte(`{"type":"user","sessionId":"s1","cwd":"`+filepath.Join(real, "sub")+`","message":{"role":"user","content":"run the tests"}}`+"\n"), clock.Add(-time.Hour))
	p := w.plan(t, Options{Project: link})
	if len(p.Sessions) != 1 || p.Sessions[0].Path != path || p.Sessions[0].Status != StatusNew {
		t.Errorf("--project through a link: %+v", p.Sessions)
	}
}

func TestPlanLimitAcrossBatches(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	w := &world{dirs: Dirs{Home: home, StateDir: filepath.Join(home, "state")}}
	data, err := os.ReadFile(filepath.Join("testdata", "claude-session.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	// More sessions than one batch holds, whatever the number of workers.
	n := 3*examineWorkers()*batchPerWorker + 5
	for i := 0; i < n; i++ {
		w.write(t, filepath.Join(home, ".claude", "projects", "p", fmt.Sprintf("s%03d.jsonl", i)), data, clock.Add(-time.Duration(i+1)*time.Hour))
	}
	limit := examineWorkers()*batchPerWorker + 3
	p := w.plan(t, Options{Limit: limit})
	if p.Total.New != limit || p.Total.Left != n-limit || len(p.Sessions) != limit {
		t.Fatalf("limit %d of %d: %+v", limit, n, p.Total)
	}
	for i, s := range p.Sessions {
		if want := fmt.Sprintf("s%03d.jsonl", i); filepath.Base(s.Path) != want || s.Status != StatusNew {
			t.Errorf("session %d: %s %s, want %s, the most recent first", i, filepath.Base(s.Path), s.Status, want)
		}
	}
}

// A plan cancelled while its workers read stops with the context's error
// and leaves no worker waiting. Not parallel: it counts goroutines.
func TestPlanStopsWhenCancelled(t *testing.T) {
	home := t.TempDir()
	w := &world{dirs: Dirs{Home: home, StateDir: filepath.Join(home, "state")}}
	data, err := os.ReadFile(filepath.Join("testdata", "claude-session.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	n := 3*examineWorkers()*batchPerWorker + 5
	for i := 0; i < n; i++ {
		w.write(t, filepath.Join(home, ".claude", "projects", "p", fmt.Sprintf("s%03d.jsonl", i)), data, clock.Add(-time.Duration(i+1)*time.Hour))
	}
	st, err := LoadState(w.dirs.StateDir)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	seen := 0
	o := Options{Dirs: w.dirs, Now: func() time.Time { return clock }, Progress: func(done, total int) {
		seen = done
		if done == 2 {
			cancel()
		}
	}}
	before := runtime.NumGoroutine()
	p, err := MakePlan(ctx, o, st, nil)
	if !errors.Is(err, context.Canceled) || p != nil {
		t.Fatalf("cancelled plan: %v, %v", p, err)
	}
	if seen != 2 {
		t.Errorf("the plan folded %d sessions after it was cancelled at 2", seen)
	}
	after := runtime.NumGoroutine()
	for deadline := time.Now().Add(5 * time.Second); after > before && time.Now().Before(deadline); after = runtime.NumGoroutine() {
		time.Sleep(10 * time.Millisecond)
	}
	if after > before {
		t.Errorf("%d goroutines before the plan, %d after it", before, after)
	}
}
