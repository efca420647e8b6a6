package knowledge

import (
	"bytes"
	"context"
	"os"
	"testing"
	"time"

	"github.com/reflectkb/reflect/store"
)

// supersedingDraft puts the active learning X and a pending draft that
// supersedes it, as a drain under review writes them; it returns both and
// X's file as it was before the draft.
func supersedingDraft(t *testing.T, d dirs, k *Base) (x, draft *store.Learning, before []byte) {
	t.Helper()
	ctx := context.Background()
	x = cookieLearning()
	if _, err := k.Put(ctx, x, nil, t0); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(d.docPath(x.ID))
	if err != nil {
		t.Fatal(err)
	}
	draft = pendingLearning("OAuth state cookie: use SameSite=Lax, or None with Secure")
	draft.Supersedes = x.ID
	res, err := k.Put(ctx, draft, nil, t0.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if res.Supersedes != "" {
		t.Errorf("Put of a pending draft says it superseded %q", res.Supersedes)
	}
	return x, draft, before
}

// A pending draft that supersedes X leaves X active (injected, searched
// unmarked) until the user approves the draft; the draft keeps its
// supersedes, so that approving it applies the supersession. (On the old
// code X was held as superseded the moment the draft was written.)
func TestPendingDraftLeavesSupersededActive(t *testing.T) {
	d := newDirs(t)
	k := d.open(t)
	x, draft, before := supersedingDraft(t, d, k)
	after, err := os.ReadFile(d.docPath(x.ID))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(before, after) {
		t.Errorf("X was rewritten by a pending draft:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	if got, _ := k.Store().Read(x.ID); got.SupersededBy != "" || got.Held() != "" {
		t.Errorf("X: superseded_by %q, held %q; want active", got.SupersededBy, got.Held())
	}
	if r, ok := heldOf(t, k, "SameSite state cookie", x.ID); !ok || r.Held != "" {
		t.Errorf("X in search: found %v, held %q; want found and not held", ok, r.Held)
	}
	if got, _ := k.Store().Read(draft.ID); got.Supersedes != x.ID || !got.Pending() {
		t.Errorf("draft: supersedes %q, status %q", got.Supersedes, got.Status)
	}
	if c := k.SupersedesOf(draft); c == nil || c.ID != x.ID || c.Title != x.Title || c.Missing {
		t.Errorf("SupersedesOf(draft) = %+v; want %s", c, x.ID)
	}
	if c := k.SupersedesOf(x); c != nil {
		t.Errorf("SupersedesOf(X) = %+v; want nil", c)
	}
	sups, err := k.PendingSupersessors(context.Background(), x.ID)
	if err != nil || len(sups) != 1 || sups[0] != draft.ID {
		t.Errorf("PendingSupersessors(X) = %v, %v; want [%s]", sups, err, draft.ID)
	}
}

// Approving the draft applies the supersession: X is held as superseded
// and the chain links both ways.
func TestApproveAppliesSupersession(t *testing.T) {
	d := newDirs(t)
	k := d.open(t)
	ctx := context.Background()
	x, draft, _ := supersedingDraft(t, d, k)
	if _, err := k.Approve(ctx, draft.ID); err != nil {
		t.Fatal(err)
	}
	got, _ := k.Store().Read(x.ID)
	if got.SupersededBy != draft.ID || got.Held() != "superseded" {
		t.Errorf("X after approval: superseded_by %q, held %q", got.SupersededBy, got.Held())
	}
	if r, ok := heldOf(t, k, "SameSite state cookie", x.ID); !ok || r.Held != "superseded" {
		t.Errorf("X in search after approval: found %v, held %q", ok, r.Held)
	}
	nl, _ := k.Store().Read(draft.ID)
	if nl.Pending() || nl.Supersedes != x.ID || nl.Held() != "" {
		t.Errorf("approved draft: status %q, supersedes %q, held %q", nl.Status, nl.Supersedes, nl.Held())
	}
	sup, by := k.Store().Chain(nl)
	if len(sup) != 1 || sup[0].ID != x.ID || len(by) != 0 {
		t.Errorf("chain of the approved draft: %+v / %+v", sup, by)
	}
	if sups, err := k.PendingSupersessors(ctx, x.ID); err != nil || len(sups) != 0 {
		t.Errorf("PendingSupersessors after approval = %v, %v", sups, err)
	}
}

// Rejecting the draft leaves X exactly as it was.
func TestRejectLeavesSupersededUntouched(t *testing.T) {
	d := newDirs(t)
	k := d.open(t)
	x, draft, before := supersedingDraft(t, d, k)
	if _, err := k.Reject(context.Background(), NewRejections(t.TempDir()), draft.ID); err != nil {
		t.Fatal(err)
	}
	after, err := os.ReadFile(d.docPath(x.ID))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(before, after) {
		t.Errorf("X changed by a rejected draft:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	if r, ok := heldOf(t, k, "SameSite state cookie", x.ID); !ok || r.Held != "" {
		t.Errorf("X in search after the reject: found %v, held %q", ok, r.Held)
	}
}

// A link an older reflect wrote at once (X superseded_by a draft still
// pending) is undone when that draft is rejected: the draft's proposal
// is refused, and nothing may point at a document that is gone.
func TestRejectUndoesAnEarlyLink(t *testing.T) {
	d := newDirs(t)
	k := d.open(t)
	ctx := context.Background()
	x, draft, _ := supersedingDraft(t, d, k)
	x.SupersededBy = draft.ID
	if _, err := k.Put(ctx, x, nil, t0); err != nil {
		t.Fatal(err)
	}
	if got, _ := k.Store().Read(x.ID); got.Held() != "superseded" {
		t.Fatalf("setup: X held %q", got.Held())
	}
	if _, err := k.Reject(ctx, NewRejections(t.TempDir()), draft.ID); err != nil {
		t.Fatal(err)
	}
	if got, _ := k.Store().Read(x.ID); got.SupersededBy != "" {
		t.Errorf("X after the reject: superseded_by %q", got.SupersededBy)
	}
	if r, ok := heldOf(t, k, "SameSite state cookie", x.ID); !ok || r.Held != "" {
		t.Errorf("X in search after the reject: found %v, held %q", ok, r.Held)
	}
}

// proposedSuperseding is proposed with an active learning Y that the
// proposal also supersedes.
func proposedSuperseding(t *testing.T) (k *Base, target, p, y *store.Learning) {
	t.Helper()
	_, k, target, p = proposed(t)
	ctx := context.Background()
	y = pendingLearning("Old cookie advice")
	y.Status = ""
	if _, err := k.Put(ctx, y, nil, t0); err != nil {
		t.Fatal(err)
	}
	p.Supersedes = y.ID
	if _, err := k.ProposeUpdate(ctx, target.ID, p, nil, t0); err != nil {
		t.Fatal(err)
	}
	return k, target, p, y
}

// A proposed update that also supersedes another learning Y leaves Y
// active while it waits; approving it makes the updated learning
// supersede Y.
func TestProposalSupersedesOnApproval(t *testing.T) {
	k, target, p, y := proposedSuperseding(t)
	ctx := context.Background()
	if got, _ := k.Store().Read(y.ID); got.SupersededBy != "" {
		t.Errorf("Y superseded by a pending proposal: %q", got.SupersededBy)
	}
	if _, err := k.Approve(ctx, p.ID); err != nil {
		t.Fatal(err)
	}
	if got, _ := k.Store().Read(y.ID); got.SupersededBy != target.ID {
		t.Errorf("Y after approval: superseded_by %q, want %s", got.SupersededBy, target.ID)
	}
	if got, _ := k.Store().Read(target.ID); got.Supersedes != y.ID {
		t.Errorf("target after approval: supersedes %q", got.Supersedes)
	}
}

// Approving a proposal whose target was forgotten adds the draft as a new
// learning, and the supersession it carries is applied then.
func TestProposalTargetGoneSupersedesOnApproval(t *testing.T) {
	k, target, p, y := proposedSuperseding(t)
	ctx := context.Background()
	if err := k.Forget(ctx, target.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := k.Approve(ctx, p.ID); err != nil {
		t.Fatal(err)
	}
	if got, _ := k.Store().Read(y.ID); got.SupersededBy != p.ID {
		t.Errorf("Y after approval: superseded_by %q, want %s", got.SupersededBy, p.ID)
	}
}

// Forgetting the learning that superseded X brings X back: a replacement
// that is gone replaces nothing, and X must not stay held (never injected)
// by a learning that no longer exists. A learning superseded by another
// one stays as it is.
func TestForgetSupersederRestoresSuperseded(t *testing.T) {
	d := newDirs(t)
	k := d.open(t)
	ctx := context.Background()
	x := cookieLearning()
	if _, err := k.Put(ctx, x, nil, t0); err != nil {
		t.Fatal(err)
	}
	y := pendingLearning("OAuth state cookie: use SameSite=Lax, or None with Secure")
	y.Status, y.Supersedes = "", x.ID
	if _, err := k.Put(ctx, y, nil, t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if got, _ := k.Store().Read(x.ID); got.SupersededBy != y.ID || got.Held() != "superseded" {
		t.Fatalf("X before: superseded_by %q, held %q; want superseded by %s", got.SupersededBy, got.Held(), y.ID)
	}
	other := pendingLearning("Unrelated note on cookie sizes")
	other.Status = ""
	if _, err := k.Put(ctx, other, nil, t0); err != nil {
		t.Fatal(err)
	}
	if err := k.Forget(ctx, other.ID); err != nil {
		t.Fatal(err)
	}
	if got, _ := k.Store().Read(x.ID); got.SupersededBy != y.ID {
		t.Errorf("forgetting an unrelated learning changed X: superseded_by %q", got.SupersededBy)
	}

	if err := k.Forget(ctx, y.ID); err != nil {
		t.Fatal(err)
	}
	if got, err := k.Store().Read(x.ID); err != nil || got.SupersededBy != "" || got.Held() != "" {
		t.Errorf("X after its superseder was forgotten: %v, superseded_by %q, held %q; want active", err, got.SupersededBy, got.Held())
	}
	if r, ok := heldOf(t, k, "SameSite state cookie", x.ID); !ok || r.Held != "" {
		t.Errorf("X in search: found %v, held %q; want found and not held", ok, r.Held)
	}
}

// A draft whose superseded learning was forgotten while it waited names
// nothing once approved: forget relinks active learnings only and leaves
// the draft's link to its approval, which drops a link to a learning that
// is gone (linkSuperseded).
func TestApproveAfterTheSupersededIsForgotten(t *testing.T) {
	d := newDirs(t)
	k := d.open(t)
	ctx := context.Background()
	x, draft, _ := supersedingDraft(t, d, k)
	if err := k.Forget(ctx, x.ID); err != nil {
		t.Fatal(err)
	}
	if got, _ := k.Store().Read(draft.ID); got.Supersedes != x.ID {
		t.Fatalf("setup: the waiting draft names %q, want %s (left to its approval)", got.Supersedes, x.ID)
	}
	approved, err := k.ApproveDrafts(ctx, draft.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(approved) != 1 || approved[0].Supersedes != "" || approved[0].SupersedesNamed != "" {
		t.Errorf("ApproveDrafts = %+v; want it to supersede nothing", approved)
	}
	nl, err := k.Store().Read(draft.ID)
	if err != nil {
		t.Fatal(err)
	}
	if nl.Pending() || nl.Supersedes != "" {
		t.Errorf("approved draft: status %q, supersedes %q; want active, naming nothing", nl.Status, nl.Supersedes)
	}
}
