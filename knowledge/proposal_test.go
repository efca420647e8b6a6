package knowledge

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/reflectkb/reflect/index"
	"github.com/reflectkb/reflect/store"
)

// proposalOf is a writer's rewording of l, as the drain would write it.
func proposalOf(l *store.Learning, insight string) *store.Learning {
	p := cookieLearning()
	p.KeyInsight, p.Body = insight, "## Solution\nSet SameSite=Lax on the state cookie.\n"
	p.ID = store.NewID(p.Title, p.KeyInsight)
	p.Type, p.Scope, p.Project = "learning", "global", ""
	p.Tags = []string{"samesite"}
	p.Created = t0.Add(48 * 3600e9)
	return p
}

// activeCookie puts the active learning a proposal targets, with what an
// approval must keep: the user's type, scope, project and feedback.
func activeCookie(t *testing.T, k *Base) *store.Learning {
	t.Helper()
	l := cookieLearning()
	l.Type = "mini"
	l.Feedback = &store.Feedback{Helpful: 2}
	if _, err := k.Put(context.Background(), l, nil, t0); err != nil {
		t.Fatal(err)
	}
	return l
}

// proposed opens a knowledge base holding an active learning and a draft
// that proposes an update of it.
func proposed(t *testing.T) (dirs, *Base, *store.Learning, *store.Learning) {
	t.Helper()
	d := newDirs(t)
	k := d.open(t)
	target := activeCookie(t, k)
	p := proposalOf(target, "Lax, not Strict: the IdP's redirect back is cross-site.")
	if _, err := k.ProposeUpdate(context.Background(), target.ID, p, nil, t0); err != nil {
		t.Fatal(err)
	}
	return d, k, target, p
}

// A proposed update is a pending draft of its own that names the target;
// the target is not touched. A second proposal for the same target
// rewrites the first rather than adding another.
func TestProposeUpdateLeavesTarget(t *testing.T) {
	_, k, target, p := proposed(t)
	ctx := context.Background()
	if p.ID == target.ID || !p.Pending() || p.Updates != target.ID {
		t.Fatalf("proposal id %q status %q updates %q", p.ID, p.Status, p.Updates)
	}
	got, err := k.Store().Read(target.ID)
	if err != nil || got.Pending() || got.KeyInsight != target.KeyInsight || got.Body != target.Body {
		t.Fatalf("target changed: %+v, %v", got, err)
	}
	again := proposalOf(target, "Use SameSite=Lax for the OAuth state cookie.")
	if _, err := k.ProposeUpdate(ctx, target.ID, again, nil, t0); err != nil {
		t.Fatal(err)
	}
	pending, err := k.Pending(ctx)
	if err != nil || len(pending) != 1 || pending[0].ID != p.ID || pending[0].KeyInsight != again.KeyInsight || pending[0].Updates != target.ID {
		t.Fatalf("after a second proposal: %+v, %v; want the first rewritten", pending, err)
	}
	if tg := k.Target(pending[0]); tg == nil || tg.ID != target.ID {
		t.Errorf("Target = %+v, want %s", tg, target.ID)
	}
	if pr := k.ProposalOf(pending[0]); pr == nil || pr.Gone || pr.Title != target.Title || !strings.Contains(pr.Diff, "+key_insight: "+again.KeyInsight) {
		t.Errorf("ProposalOf = %+v", pr)
	}
	if pr := k.ProposalOf(target); pr != nil {
		t.Errorf("ProposalOf an active learning = %+v, want nil", pr)
	}
	// The writer's title and insight are the target's own: the proposal
	// still gets an id of its own.
	d2 := newDirs(t)
	k2 := d2.open(t)
	target2 := activeCookie(t, k2)
	same := cookieLearning()
	same.Body = "## Solution\nA new body.\n"
	if _, err := k2.ProposeUpdate(ctx, target2.ID, same, nil, t0); err != nil {
		t.Fatal(err)
	}
	if same.ID == target2.ID {
		t.Errorf("a proposal with the target's own title and insight took its id")
	}
	if got, _ := k2.Store().Read(target2.ID); got.Body != target2.Body || got.Pending() {
		t.Errorf("target rewritten by a proposal with its id: %+v", got)
	}
}

// Approving a proposal rewrites the target with the draft's text, keeping
// its id, type, scope, project, created time and feedback, and removes the
// draft.
func TestApproveProposal(t *testing.T) {
	d, k, target, p := proposed(t)
	ctx := context.Background()
	done, err := k.Approve(ctx, p.ID)
	if err != nil || len(done) != 1 || done[0].Updates != target.ID {
		t.Fatalf("Approve: %+v, %v", done, err)
	}
	if _, err := os.Stat(d.docPath(p.ID)); !os.IsNotExist(err) {
		t.Errorf("the approved proposal is still on disk: %v", err)
	}
	got, err := k.Store().Read(target.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.KeyInsight != p.KeyInsight || got.Body != p.Body || got.Pending() || got.Updates != "" {
		t.Errorf("target not updated: insight %q body %q status %q updates %q", got.KeyInsight, got.Body, got.Status, got.Updates)
	}
	if got.Type != "mini" || got.Scope != "project" || got.Project != "auth-service" || !got.Created.Equal(t0) ||
		got.Feedback == nil || got.Feedback.Helpful != 2 {
		t.Errorf("target lost what it keeps: type %q scope %q project %q created %v feedback %+v", got.Type, got.Scope, got.Project, got.Created, got.Feedback)
	}
	if pending, _ := k.Pending(ctx); len(pending) != 0 {
		t.Errorf("still pending after approval: %+v", pending)
	}
	if res := search(t, k, index.Query{Text: "SameSite state cookie", Pending: index.PendingShown}); len(res) != 1 || res[0].ID != target.ID {
		t.Errorf("search after approval: %q, want only the target", ids(res))
	}
}

// Rejecting a proposal removes it and remembers its fingerprint; the
// target is left as it was.
func TestRejectProposal(t *testing.T) {
	d, k, target, p := proposed(t)
	ctx := context.Background()
	rej := NewRejections(t.TempDir())
	if _, err := k.Reject(ctx, rej, p.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(d.docPath(p.ID)); !os.IsNotExist(err) {
		t.Errorf("the rejected proposal is still on disk: %v", err)
	}
	if fps, err := rej.Load(); err != nil || !fps[Fingerprint(p)] {
		t.Errorf("the proposal's fingerprint was not remembered: %v", err)
	}
	if got, _ := k.Store().Read(target.ID); got.KeyInsight != target.KeyInsight || got.Pending() {
		t.Errorf("target changed by a rejection: %+v", got)
	}
}

// A proposal whose target was forgotten meanwhile becomes a learning of
// its own on approval.
func TestApproveProposalTargetGone(t *testing.T) {
	_, k, target, p := proposed(t)
	ctx := context.Background()
	if err := k.Forget(ctx, target.ID); err != nil {
		t.Fatal(err)
	}
	if k.Target(p) != nil {
		t.Error("Target of a forgotten learning is not nil")
	}
	if pr := k.ProposalOf(p); pr == nil || !pr.Gone || pr.ID != target.ID || pr.Diff != "" {
		t.Errorf("ProposalOf with the target gone: %+v", pr)
	}
	done, err := k.Approve(ctx, p.ID)
	if err != nil || len(done) != 1 || done[0].Updates != "" {
		t.Fatalf("Approve: %+v, %v", done, err)
	}
	got, err := k.Store().Read(p.ID)
	if err != nil || got.Pending() || got.Updates != "" || got.KeyInsight != p.KeyInsight {
		t.Fatalf("the proposal as a new learning: %+v, %v", got, err)
	}
	if res := search(t, k, index.Query{Text: "SameSite state cookie", Pending: index.PendingShown}); len(res) != 1 || res[0].ID != p.ID {
		t.Errorf("search after approval: %q, want the new learning", ids(res))
	}
}

// ProposalDiff shows the target's insight going and the draft's coming,
// and leaves out what they share.
func TestProposalDiff(t *testing.T) {
	target := cookieLearning()
	p := proposalOf(target, "Lax, not Strict.")
	diff := ProposalDiff(target, p)
	for _, want := range []string{"--- " + target.ID, "+++ " + p.ID, "-key_insight: " + target.KeyInsight, "+key_insight: Lax, not Strict.", "+## Solution", " title: " + target.Title} {
		if !strings.Contains(diff, want+"\n") {
			t.Errorf("diff lacks %q:\n%s", want, diff)
		}
	}
}
