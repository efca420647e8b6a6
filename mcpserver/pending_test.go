package mcpserver

import (
	"context"
	"testing"
	"time"

	"github.com/reflectkb/reflect/index"
	"github.com/reflectkb/reflect/knowledge"
	"github.com/reflectkb/reflect/store"
)

// A draft awaiting review is not injected by the recall tool, not found by
// search unless include_pending asks, and then marked pending.
func TestPendingDraftOnlyFoundWhenAsked(t *testing.T) {
	t.Parallel()
	c := kb(t)
	ctx := context.Background()
	ix, err := index.Open(ctx, c.DocumentsDir(), c.IndexDir())
	if err != nil {
		t.Fatal(err)
	}
	l := &store.Learning{Title: "Use SameSite=Lax for the OAuth state cookie", KeyInsight: "SameSite=Strict drops the state cookie on the redirect back",
		Confidence: "high", Scope: "global", Status: store.StatusPending}
	l.FillDefaults(time.Now())
	if _, err := knowledge.New(ix).Put(ctx, l, nil, time.Now()); err != nil {
		t.Fatal(err)
	}
	ix.Close()
	cs := connect(t, c)
	var rec RecallOutput
	mustOK(t, cs, "recall", map[string]any{"task": "the oauth state cookie samesite strict redirect"}, &rec)
	if len(rec.Injected) != 0 {
		t.Errorf("recall injected a pending draft: %+v", rec)
	}
	var found SearchOutput
	mustOK(t, cs, "search", map[string]any{"query": "oauth state cookie samesite"}, &found)
	if len(found.Results) != 0 {
		t.Errorf("search found a pending draft unasked: %+v", found)
	}
	mustOK(t, cs, "search", map[string]any{"query": "oauth state cookie samesite", "include_pending": true}, &found)
	if len(found.Results) != 1 || found.Results[0].ID != l.ID || found.Results[0].Held != "pending" {
		t.Errorf("search with include_pending: %+v", found)
	}
}
