package recall

import (
	"context"
	"path/filepath"
	"testing"
)

// BenchmarkSessionStartQuery measures building the session-start query in
// a git repository: two small file reads and one `git log`.
func BenchmarkSessionStartQuery(b *testing.B) {
	GitEnv(b)
	dir := filepath.Join(b.TempDir(), "checkout")
	NewRepo(b, dir, "feature/oauth-state-cookie", "git@github.com:acme/auth-service.git",
		"Set SameSite=Lax on the state cookie", "Pass the OAuth state through the callback",
		"Store the PKCE verifier in the session store", "Document the callback flow",
		"Handle IdP errors on the callback", "Retry token exchange once")
	ctx := context.Background()
	b.Run("git", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if q, _, _ := sessionQuery(ctx, dir, gitWait); q == "" {
				b.Fatal("empty query")
			}
		}
	})
	// What a prompt pays to name its project: the file reads only.
	b.Run("project-only", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if projectName(ctx, dir) != "auth-service" {
				b.Fatal("wrong project")
			}
		}
	})
}
