package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reflectkb/reflect/index"
	"github.com/reflectkb/reflect/knowledge"
	"github.com/reflectkb/reflect/store"
)

// supersedingDraft adds an active learning from the CLI and a pending
// draft that supersedes it through the knowledge package, as a drain under
// review writes it; it returns both ids.
func supersedingDraft(t *testing.T, k *testKB) (old, draft string) {
	t.Helper()
	var added struct {
		ID string `json:"id"`
	}
	out := k.mustRun(t, "add", "--json", "--title", "Widget cache needs warming by hand", "--insight", "run warm-cache before the widget benchmark")
	if err := json.Unmarshal([]byte(out), &added); err != nil || added.ID == "" {
		t.Fatalf("add --json: %v\n%s", err, out)
	}
	ctx := context.Background()
	ix, err := index.Open(ctx, k.docs, filepath.Join(filepath.Dir(k.docs), "index"))
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	now := time.Now()
	l := &store.Learning{Title: "Widget cache warms itself since v2", KeyInsight: "v2 warms the widget cache on start; drop the warm-cache step.",
		Confidence: "high", Scope: "global", Status: store.StatusPending, Supersedes: added.ID}
	l.FillDefaults(now)
	if _, err := knowledge.New(ix).Put(ctx, l, nil, now); err != nil {
		t.Fatal(err)
	}
	return added.ID, l.ID
}

// While a pending draft proposes to supersede a learning, show says so and
// the learning is not held; review lists what the draft supersedes;
// approving it holds the learning as superseded. (On the old code the
// learning was held from the moment the draft was written.)
func TestReviewPendingSupersedeWaitsForApproval(t *testing.T) {
	t.Parallel()
	k := tempKB(t)
	old, draft := supersedingDraft(t, k)
	out := k.mustRun(t, "show", old)
	if strings.Contains(out, "Not injected by hooks") || strings.Contains(out, "Superseded by") ||
		!strings.Contains(out, "A pending draft would supersede this: "+draft) {
		t.Errorf("show of a learning a draft would supersede:\n%s", out)
	}
	if out := k.mustRun(t, "search", "widget", "cache", "warming"); !strings.Contains(out, "Widget cache needs warming by hand") || strings.Contains(out, "not injected") {
		t.Errorf("search before approval:\n%s", out)
	}
	var list struct {
		Pending []reviewItem `json:"pending"`
	}
	if err := json.Unmarshal([]byte(k.mustRun(t, "review", "--json")), &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Pending) != 1 || list.Pending[0].Supersedes == nil || list.Pending[0].Supersedes.ID != old ||
		list.Pending[0].Supersedes.Title != "Widget cache needs warming by hand" {
		t.Errorf("review --json: %+v", list.Pending)
	}
	if out := k.mustRun(t, "review"); !strings.Contains(out, "supersedes "+old+": Widget cache needs warming by hand") {
		t.Errorf("review does not say what the draft supersedes:\n%s", out)
	}
	k.mustRun(t, "review", "approve", draft)
	out = k.mustRun(t, "show", old)
	if !strings.Contains(out, "Superseded by:\n  - "+draft) || !strings.Contains(out, "Not injected by hooks: superseded") ||
		strings.Contains(out, "A pending draft would supersede") {
		t.Errorf("show after approval:\n%s", out)
	}
}

// Rejecting the draft leaves the learning as it was: not held, no link.
func TestReviewRejectPendingSupersede(t *testing.T) {
	t.Parallel()
	k := tempKB(t)
	old, draft := supersedingDraft(t, k)
	k.mustRun(t, "review", "reject", draft)
	var shown struct {
		Learning store.Learning `json:"learning"`
		Control  learningChain  `json:"control"`
	}
	if err := json.Unmarshal([]byte(k.mustRun(t, "show", "--json", old)), &shown); err != nil {
		t.Fatal(err)
	}
	if shown.Learning.SupersededBy != "" || shown.Control.Held != "" || len(shown.Control.SupersededBy) != 0 || len(shown.Control.PendingSupersededBy) != 0 {
		t.Errorf("after the reject: superseded_by %q, control %+v", shown.Learning.SupersededBy, shown.Control)
	}
}
