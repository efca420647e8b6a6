package hooks_test

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gofrs/flock"
	"github.com/reflectkb/reflect/hooks"
	"github.com/reflectkb/reflect/queue"
)

// A handler that outlives Options.Deadline is abandoned: nothing printed,
// "gave up" in the log, last-event.json an error — and Run returns on
// time. Here the Stop handler waits for a queue lock another process holds
// (it would wait up to queue.LockWait, 1 s).
func TestRunDeadline(t *testing.T) {
	e := newHookEnv(t)
	in := e.fixture(t, "codex", "stop", map[string]any{"transcript_path": e.transcript(t, "t.jsonl")})
	lock := flock.New(filepath.Join(e.state, "queue.lock"))
	if err := lock.Lock(); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	out := run(t, e.cfg, "stop", "codex", in, func(o *hooks.Options) { o.Deadline = 100 * time.Millisecond })
	took := time.Since(start)
	lock.Unlock()
	waitHandlers(t)
	if out != "" {
		t.Errorf("printed %q after giving up", out)
	}
	// Run must not wait for the handler, which waits queue.LockWait for
	// the lock held above; how soon after the deadline Run returns is up
	// to the scheduler of a possibly loaded machine, so that is the bound.
	if took >= queue.LockWait {
		t.Errorf("Run took %s with a 100 ms deadline: it waited for the handler", took)
	}
	if log := hookLog(t, e.state); !strings.Contains(log, "stop --agent codex: gave up after 100ms") {
		t.Errorf("hooks.log does not say it gave up:\n%s", log)
	}
	if ev := lastEvent(t, e.state); !ev.Error || ev.Event != "stop" || ev.Detail != "gave up after 100ms" ||
		ev.SessionID != codexSID || !ev.TS.Equal(t0) {
		t.Errorf("last event = %+v, want an error that gave up", ev)
	}
}

// A deadline that has passed before the recall could start (1 ns) stops
// session-start and prompt the same way. Which notices first, Run ("gave
// up after 1ns") or the handler's own context ("context deadline
// exceeded"), is a race; either way nothing is printed and the error is
// recorded.
func TestRunDeadlineExpired(t *testing.T) {
	e := newHookEnv(t)
	e.gitRepo(t, "fix/oauth-state-cookie", "callback: keep the OAuth state cookie on redirect")
	for _, f := range []struct{ agent, fixture, event string }{
		{"claude", "user-prompt-submit", "prompt"},
		{"codex", "session-start", "session-start"},
		{"codex", "user-prompt-submit", "prompt"},
	} {
		t.Run(f.agent+"/"+f.fixture, func(t *testing.T) {
			cfg := e.withState(t)
			start := time.Now()
			out := run(t, cfg, f.event, f.agent, e.fixture(t, f.agent, f.fixture, nil),
				func(o *hooks.Options) { o.Deadline = time.Nanosecond })
			took := time.Since(start)
			waitHandlers(t)
			if out != "" {
				t.Errorf("printed %q after giving up", out)
			}
			if took > time.Second {
				t.Errorf("Run took %s with a 1 ns deadline", took)
			}
			deadline := func(s string) bool {
				return strings.Contains(s, "gave up after 1ns") || strings.Contains(s, "context deadline exceeded")
			}
			if log := hookLog(t, cfg.StateDir); !deadline(log) {
				t.Errorf("hooks.log does not name the deadline:\n%s", log)
			}
			if ev := lastEvent(t, cfg.StateDir); !ev.Error || ev.Event != f.event || !deadline(ev.Detail) || ev.SessionID == "" {
				t.Errorf("last event = %+v, want an error for the deadline", ev)
			}
		})
	}
}

// A handler abandoned at the deadline still cleans up after itself: once
// it has finished, it leaves no open database behind (each one keeps a
// goroutine and, once used, a file descriptor). A hook process exits
// anyway, but Run is also called in-process (tests, benchmarks).
func TestRunDeadlineLeavesNoOpenDatabase(t *testing.T) {
	e := newHookEnv(t)
	openers := func() int { return strings.Count(stacks(), "database/sql.(*DB).connectionOpener") }
	before := openers()
	for i := 0; i < 3; i++ {
		run(t, e.withState(t), "prompt", "claude", e.fixture(t, "claude", "user-prompt-submit", nil),
			func(o *hooks.Options) { o.Deadline = time.Nanosecond })
	}
	waitHandlers(t)
	// A closed database's goroutine ends soon after Close returns.
	after := openers()
	for deadline := time.Now().Add(time.Second); after > before && time.Now().Before(deadline); after = openers() {
		time.Sleep(5 * time.Millisecond)
	}
	if after > before {
		t.Errorf("%d databases left open by 3 hooks that gave up (index.Open does not close the "+
			"database when its first query fails)", after-before)
	}
}
