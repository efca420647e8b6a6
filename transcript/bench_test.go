package transcript

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkCondenseFixtures condenses each agent's backfill fixture
// repeated 20 times, the shape of the synthetic history that the backfill
// benchmark in docs/benchmarks.md plans.
func BenchmarkCondenseFixtures(b *testing.B) {
	fixtures := []struct{ harness, file string }{
		{"claude", "claude-session.jsonl"}, {"codex", "codex-rollout.jsonl"},
		{"gemini", "gemini-session.jsonl"}, {"opencode", "opencode-session.jsonl"},
		{"copilot", "copilot-events.jsonl"},
	}
	dir := b.TempDir()
	for _, fx := range fixtures {
		body, err := os.ReadFile(filepath.Join("..", "backfill", "testdata", fx.file))
		if err != nil {
			b.Fatal(err)
		}
		path := filepath.Join(dir, fx.file)
		if err := os.WriteFile(path, bytes.Repeat(body, 20), 0o600); err != nil {
			b.Fatal(err)
		}
		b.Run(fx.harness, func(b *testing.B) {
			b.SetBytes(int64(len(body) * 20))
			for i := 0; i < b.N; i++ {
				if _, err := Condense(path, fx.harness, Limits{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
