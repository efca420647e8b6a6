package hooks_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/reflectkb/reflect/bench"
	"github.com/reflectkb/reflect/hooks"
	"github.com/reflectkb/reflect/index"
	"github.com/reflectkb/reflect/internal/config"
	"github.com/reflectkb/reflect/statusline"
)

func benchEnv(b *testing.B) *hookEnv {
	b.Helper()
	if testing.Short() {
		b.Skip("builds a 10,000-learning KB")
	}
	e := newEmptyEnv(b)
	if err := bench.Generate(e.cfg.DocumentsDir(), 10000, 42); err != nil {
		b.Fatal(err)
	}
	ix, err := index.Open(context.Background(), e.cfg.DocumentsDir(), e.cfg.IndexDir())
	if err != nil {
		b.Fatal(err)
	}
	ix.Close()
	return e
}

func benchRun(b *testing.B, cfg *config.Config, event, agent string, in []byte) {
	b.Helper()
	var out bytes.Buffer
	hooks.Run(context.Background(), hooks.Options{
		Event: event, Agent: agent, In: bytes.NewReader(in), Out: &out, Config: cfg,
		Now:   func() time.Time { return t0 },
		Spawn: func(...string) error { return errors.New("no background work in benchmarks") },
	})
	if ev, err := statusline.Read(cfg.StateDir); err != nil || ev.Error {
		b.Fatalf("%s failed: %+v %v\n%s", event, ev, err, hookLog(b, cfg.StateDir))
	}
}

func BenchmarkHookPrompt(b *testing.B) {
	e := benchEnv(b)
	for _, p := range []string{
		"postgres connection pool timeout after the deploy",
		"write a haiku about autumn",
	} {
		b.Run(fmt.Sprintf("%.24s", p), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				// A new session each time, so every run injects and
				// writes its dedupe state.
				in := e.fixture(b, "claude", "user-prompt-submit", map[string]any{"prompt": p, "session_id": fmt.Sprint("s", i)})
				benchRun(b, e.cfg, "prompt", "claude", in)
			}
		})
	}
}

func BenchmarkHookSessionStart(b *testing.B) {
	e := benchEnv(b)
	e.gitRepo(b, "fix/postgres-pool-timeout", "pool: bound postgres connections", "deploy: retry migrations")
	b.Run("git-repo", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			in := e.fixture(b, "codex", "session-start", map[string]any{"session_id": fmt.Sprint("s", i)})
			benchRun(b, e.cfg, "session-start", "codex", in)
		}
	})
}

func BenchmarkHookStop(b *testing.B) {
	e := benchEnv(b)
	in := e.fixture(b, "claude", "stop", map[string]any{"transcript_path": e.transcript(b, "t.jsonl")})
	pendingPath := filepath.Join(e.state, "pending_reflections.jsonl")
	b.Run("queue", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			os.Remove(pendingPath)
			b.StartTimer()
			benchRun(b, e.cfg, "stop", "claude", in)
		}
	})
	b.Run("already-queued", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			benchRun(b, e.cfg, "stop", "claude", in)
		}
	})
}

func BenchmarkHookPostTool(b *testing.B) {
	e := benchEnv(b)
	for _, f := range []string{"post-tool-use", "post-tool-use-failure"} {
		in := e.fixture(b, "claude", f, nil)
		b.Run(f, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				benchRun(b, e.cfg, "post-tool", "claude", in)
			}
		})
	}
}
