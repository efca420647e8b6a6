package hooks_test

import (
	"context"
	"strings"
	"testing"

	"github.com/reflectkb/reflect/index"
	"github.com/reflectkb/reflect/knowledge"
)

// A draft awaiting review is injected by neither the session start nor a
// prompt; the session start says how many wait instead (and the status
// line's count is recorded); once approved, the prompt injects it.
func TestPendingDraftNotInjectedUntilApproved(t *testing.T) {
	e := newHookEnv(t)
	e.gitRepo(t, "main", "cookie: set SameSite on the OAuth state cookie")
	samesite := e.ids["samesite"]
	ctx := context.Background()
	ix, err := index.Open(ctx, e.cfg.DocumentsDir(), e.cfg.IndexDir())
	if err != nil {
		t.Fatal(err)
	}
	k := knowledge.New(ix)
	l, err := k.Store().Read(samesite)
	if err != nil {
		t.Fatal(err)
	}
	l.Status = "pending"
	if _, err := k.Put(ctx, l, nil, l.Updated); err != nil {
		t.Fatal(err)
	}
	ix.Close()

	out := run(t, e.cfg, "session-start", "claude", e.fixture(t, "claude", "session-start", nil))
	if strings.Contains(out, samesite) || strings.Contains(out, "SameSite=Lax") {
		t.Errorf("session start injected the pending draft:\n%s", out)
	}
	if !strings.Contains(out, "1 learning waits for review: reflect review") {
		t.Errorf("session start does not say a draft waits:\n%s", out)
	}
	if n := knowledge.RecordedPending(e.state); n != 1 {
		t.Errorf("recorded pending count %d, want 1", n)
	}
	prompt := e.fixture(t, "claude", "user-prompt-submit", map[string]any{"prompt": "login fails with an OAuth state mismatch: is the SameSite state cookie dropped?"})
	if out := run(t, e.cfg, "prompt", "claude", prompt); strings.Contains(out, samesite) {
		t.Errorf("prompt injected the pending draft:\n%s", out)
	}

	ix, err = index.Open(ctx, e.cfg.DocumentsDir(), e.cfg.IndexDir())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := knowledge.New(ix).Approve(ctx, samesite); err != nil {
		t.Fatal(err)
	}
	ix.Close()
	if out := run(t, e.cfg, "prompt", "claude", prompt); !strings.Contains(out, samesite) {
		t.Errorf("prompt after approval does not inject %s:\n%s", samesite, out)
	}
}
