package backfill

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/reflectkb/reflect/queue"
)

// clock is the tests' now; sessions are written an hour before it, well
// past DefaultSettle.
var clock = time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)

// world is a HOME holding one session of each agent where the agent keeps
// it, copied from real clients' transcripts (testdata/).
type world struct {
	dirs  Dirs
	paths map[string]string // agent → session file
}

func newWorld(t *testing.T) *world {
	t.Helper()
	home := t.TempDir()
	w := &world{dirs: Dirs{Home: home, StateDir: filepath.Join(home, "state")}, paths: map[string]string{
		"claude":   filepath.Join(home, ".claude", "projects", "-home-dev-src-widget-service", "9c19e7ca-363e-4250-8fe4-30525dab65ba.jsonl"),
		"codex":    filepath.Join(home, ".codex", "sessions", "2026", "11", "25", "rollout-2026-11-25T14-30-04-01a2131d-1925-7570-80d3-c8830e3f0982.jsonl"),
		"gemini":   filepath.Join(home, ".gemini", "tmp", "widget-service", "chats", "session-2026-11-25T18-30-53e0fb2d.jsonl"),
		"opencode": filepath.Join(home, "state", "transcripts", "opencode", "ses_dec014aa0ffeSFFF719s2JwSzV.jsonl"),
		"copilot":  filepath.Join(home, ".copilot", "session-state", "11111111-2222-4333-8444-555555555555", "events.jsonl"),
	}}
	fixtures := map[string]string{"claude": "claude-session.jsonl", "codex": "codex-rollout.jsonl",
		"gemini": "gemini-session.jsonl", "opencode": "opencode-session.jsonl", "copilot": "copilot-events.jsonl"}
	for agent, path := range w.paths {
		data, err := os.ReadFile(filepath.Join("testdata", fixtures[agent]))
		if err != nil {
			t.Fatal(err)
		}
		w.write(t, path, data, clock.Add(-time.Hour))
	}
	// Gemini CLI names the project's directory beside its chats.
	w.write(t, filepath.Join(home, ".gemini", "tmp", "widget-service", ".project_root"), []byte("/home/dev/src/widget-service\n"), clock.Add(-time.Hour))
	return w
}

func (w *world) write(t *testing.T, path string, data []byte, mod time.Time) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, mod, mod); err != nil {
		t.Fatal(err)
	}
}

// plan plans w with o's filters, the queue and backfill.json of w's state
// directory, at clock.
func (w *world) plan(t *testing.T, o Options) *Plan {
	t.Helper()
	st, err := LoadState(w.dirs.StateDir)
	if err != nil {
		t.Fatal(err)
	}
	return w.planWith(t, o, st)
}

func (w *world) planWith(t *testing.T, o Options, st *State) *Plan {
	t.Helper()
	known, err := w.queue(t).Known()
	if err != nil {
		t.Fatal(err)
	}
	o.Dirs = w.dirs
	if o.Now == nil {
		o.Now = func() time.Time { return clock }
	}
	p, err := MakePlan(context.Background(), o, st, known)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// run plans and queues, and returns the plan and the result.
func (w *world) run(t *testing.T, o Options) (*Plan, Result) {
	t.Helper()
	st, err := LoadState(w.dirs.StateDir)
	if err != nil {
		t.Fatal(err)
	}
	p := w.planWith(t, o, st)
	res, err := Enqueue(w.queue(t), p, st, clock, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p, res
}

func (w *world) queue(t *testing.T) *queue.Queue {
	t.Helper()
	q, err := queue.Open(w.dirs.StateDir)
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// byPath indexes a plan's sessions.
func byPath(p *Plan) map[string]Session {
	out := map[string]Session{}
	for _, s := range p.Sessions {
		out[s.Path] = s
	}
	return out
}

func agentPlan(t *testing.T, p *Plan, agent string) AgentPlan {
	t.Helper()
	for _, a := range p.Agents {
		if a.Agent == agent {
			return a
		}
	}
	t.Fatalf("plan has no agent %s: %+v", agent, p.Agents)
	return AgentPlan{}
}
