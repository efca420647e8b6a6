package recall_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/reflectkb/reflect/bench"
	"github.com/reflectkb/reflect/recall"
)

// BenchmarkRecallPrompt measures a prompt recall on a 10,000-learning KB:
// query building, search, floor, render, and with a session the dedupe
// lock, read and atomic write.
func BenchmarkRecallPrompt(b *testing.B) {
	ix := recall.NewKB(b, func(docs string) {
		if err := bench.Generate(docs, 10000, 42); err != nil {
			b.Fatal(err)
		}
	})
	ctx := context.Background()
	state := filepath.Join(b.TempDir(), "state")
	for _, p := range []string{
		"postgres connection pool timeout after the deploy",
		"how do I stop the kafka consumer from dropping messages after a deploy, it started when we upgraded",
		"write a haiku about autumn",
	} {
		for _, session := range []bool{false, true} {
			name := fmt.Sprintf("%.24s", p)
			if session {
				name += "/session"
			}
			b.Run(name, func(b *testing.B) {
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					req := recall.Request{Kind: recall.Prompt, Prompt: p}
					if session {
						// A new session each time, so every run injects
						// and writes its state.
						req.SessionID, req.StateDir = fmt.Sprint("s", i), state
					}
					if _, err := recall.Recall(ctx, ix, req); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
