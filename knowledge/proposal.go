package knowledge

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/reflectkb/reflect/index"
	"github.com/reflectkb/reflect/internal/udiff"
	"github.com/reflectkb/reflect/store"
)

// Proposed updates: an LLM writer's rewording of an active learning (one
// the user approved or wrote) is not written over it while review is on.
// It lands as a separate pending draft whose updates field names the
// learning; the learning keeps being injected as it is until the user
// approves the draft (which rewrites it through Update) or rejects it.

// ProposeUpdate writes l as a pending draft that would update the learning
// target once approved. A draft already proposing an update of target is
// rewritten (one proposal per learning, not one per drain); otherwise l
// gets an id of its own, never target's. The caller holds LockDrafts, so
// that a review does not approve the proposal while it is rewritten.
func (k *Base) ProposeUpdate(ctx context.Context, target string, l *store.Learning, sc *store.Sidecar, now time.Time) (PutResult, error) {
	l.Status, l.Updates = store.StatusPending, target
	if l.Supersedes == target {
		// Updating a learning is not replacing it: approval would make
		// it supersede itself.
		l.Supersedes = ""
	}
	if prev, err := k.proposalFor(ctx, target); err != nil {
		return PutResult{ID: l.ID}, err
	} else if prev != "" {
		l.ID = prev
	} else if _, err := k.st.Read(l.ID); l.ID == target || !errors.Is(err, store.ErrNotFound) {
		// The writer's title and insight are the target's own, or those
		// of another document: the proposal needs an id of its own.
		l.ID = store.NewID(l.Title, l.KeyInsight+"\x00update of "+target)
	}
	if sc != nil {
		sc.DocumentID = l.ID
	}
	return k.Put(ctx, l, sc, now)
}

// proposalFor returns the id of the pending draft that proposes an update
// of target, "" when none does.
func (k *Base) proposalFor(ctx context.Context, target string) (string, error) {
	pending, err := k.Pending(ctx)
	if err != nil {
		return "", err
	}
	for _, l := range pending {
		if l.Updates == target {
			return l.ID, nil
		}
	}
	return "", nil
}

// Target returns the learning the draft l proposes to update: nil when l
// proposes none, or when that learning is gone (approving l then adds it
// as a new learning).
func (k *Base) Target(l *store.Learning) *store.Learning {
	if l.Updates == "" {
		return nil
	}
	t, err := k.st.Read(l.Updates)
	if err != nil {
		return nil
	}
	return t
}

// applyProposal approves the draft l, which proposes an update of
// l.Updates: the target is rewritten through Update with the draft's text
// (keeping its id, type, scope, project, created time and feedback) and the
// draft removed. A target forgotten or broken since gets the draft as a
// new learning instead, under the draft's id. l says afterwards what was
// done: Updates still names the target when it was updated, and is empty
// when the draft became a learning of its own. A learning the draft
// supersedes is linked now, to whichever learning the draft became (the
// newest learning of its chain, when it was superseded already).
func (k *Base) applyProposal(ctx context.Context, l *store.Learning, now time.Time) (Approved, error) {
	a := Approved{Learning: l}
	if k.Target(l) == nil {
		l.Status, l.Updates = "", ""
		named := k.resolveSupersedes(l, nil)
		ids := withSuperseded([]*store.Learning{l})
		ch := k.ix.BeginChange(ids...)
		defer ch.Close()
		if err := k.st.Write(l); err != nil {
			return a, err
		}
		linked, err := k.linkSuperseded(l)
		if err != nil {
			return a, errors.Join(err, ch.Commit(ctx, ids...))
		}
		if linked {
			a.Supersedes, a.SupersedesNamed = l.Supersedes, named
		}
		return a, ch.Commit(ctx, ids...)
	}
	patch := *l
	patch.ID, patch.Type, patch.Scope, patch.Project = l.Updates, "", "", ""
	patch.Status, patch.Updates = "", ""
	sc, err := k.st.ReadSidecar(l.ID)
	if err != nil {
		sc = nil // none, or unreadable: the target's own is kept
	} else {
		sc.DocumentID = l.Updates
	}
	// ErrBusy: the target is rewritten on disk and the next refresh
	// indexes it, so the draft has done its work and goes too.
	res, err := k.Update(ctx, l.Updates, &patch, sc, now)
	if err != nil && !errors.Is(err, index.ErrBusy) {
		return a, err
	}
	a.Supersedes, a.SupersedesNamed = res.Supersedes, res.SupersedesNamed
	if ferr := k.Forget(ctx, l.ID); ferr != nil {
		return a, ferr
	}
	return a, err
}

// Proposal is what a draft proposes to update, as review shows it: the
// learning (ID, Title) and Diff, what approving changes in it; Gone when
// that learning was forgotten since, so that approving adds the draft as
// a new learning.
type Proposal struct {
	ID    string `json:"id"`
	Title string `json:"title,omitempty"`
	Diff  string `json:"diff,omitempty"`
	Gone  bool   `json:"gone,omitempty"`
}

// ProposalOf describes what the draft l proposes to update: nil for a
// draft that updates nothing.
func (k *Base) ProposalOf(l *store.Learning) *Proposal {
	if l.Updates == "" {
		return nil
	}
	t := k.Target(l)
	if t == nil {
		return &Proposal{ID: l.Updates, Gone: true}
	}
	return &Proposal{ID: t.ID, Title: t.Title, Diff: ProposalDiff(t, l)}
}

// ProposalDiff is what approving the draft l would change in target: a
// unified diff of their titles, key insights and bodies, the target's
// lines marked '-' and the draft's '+'.
func ProposalDiff(target, l *store.Learning) string {
	text := func(x *store.Learning) []byte {
		return []byte("title: " + x.Title + "\nkey_insight: " + x.KeyInsight + "\n\n" + strings.TrimRight(x.Body, "\n") + "\n")
	}
	return udiff.Unified(target.ID, l.ID, text(target), text(l))
}
