package index

import (
	"context"
	"testing"
	"time"

	"github.com/reflectkb/reflect/store"
)

var t0 = time.Date(2026, 11, 22, 11, 5, 0, 0, time.UTC)

func cookieLearning() *store.Learning {
	title := "OAuth state cookie must be SameSite=Lax"
	insight := "A SameSite=Strict state cookie is dropped on the cross-site redirect back from the IdP."
	return &store.Learning{
		ID:         store.NewID(title, insight),
		Title:      title,
		KeyInsight: insight,
		Confidence: "high",
		Tags:       []string{"oauth", "cookies"},
		Scope:      "project",
		Project:    "auth-service",
		Created:    t0,
		Body:       "## Problem\nThe state cookie set in `callback/cookie.go` was lost; Chrome logged ERR_BLOCKED_BY_CLIENT.\n",
	}
}

type putResult struct{ ID string }

// put writes l and its sidecar (sc, or the entities extracted from l)
// through the store between BeginChange and Commit, as knowledge's Put
// does (its tests check what Put keeps of a document it replaces; these
// check the index's side of the change).
func put(ctx context.Context, ix *Index, l *store.Learning, sc *store.Sidecar, now time.Time) (putResult, error) {
	l.Redact()
	ch := ix.BeginChange(l.ID)
	defer ch.Close()
	if old, err := ix.store.Read(l.ID); err == nil {
		l.Created, l.Updated = old.Created, now
		l.KeepExtra(old)
		l.Tags = store.MergeTags(old.Tags, l.Tags)
	} else if l.Updated.IsZero() {
		l.Updated = l.Created
	}
	if err := ix.store.Write(l); err != nil {
		return putResult{}, err
	}
	if sc == nil {
		sc = &store.Sidecar{Entities: store.ExtractEntities(l)}
	}
	sc.DocumentID = l.ID
	if err := ix.store.WriteSidecar(sc); err != nil {
		return putResult{}, err
	}
	return putResult{ID: l.ID}, ch.Commit(ctx, l.ID)
}

// forget deletes the documents of ids through the store between
// BeginChange and Commit, as knowledge's Forget does.
func forget(ctx context.Context, ix *Index, ids ...string) error {
	ch := ix.BeginChange(ids...)
	defer ch.Close()
	for _, id := range ids {
		if err := ix.store.Delete(id); err != nil {
			return err
		}
	}
	return ch.Commit(ctx, ids...)
}

// A Change indexes the documents written between BeginChange and Commit
// and drops the ones deleted, and nothing else: a document written without
// one stays unindexed until a Refresh.
func TestChangeIndexesWhatItCovers(t *testing.T) {
	ctx := context.Background()
	k := newKB(t)
	k.write(t, simple("lrn-seed", "seed words"))
	ix := k.open(t)
	l := cookieLearning()
	ch := ix.BeginChange(l.ID)
	l.Updated = l.Created
	if err := ix.store.Write(l); err != nil {
		t.Fatal(err)
	}
	k.write(t, simple("lrn-foreign", "zanzibar quokka"))
	if err := ch.Commit(ctx, l.ID); err != nil {
		t.Fatal(err)
	}
	ch.Close()
	if r := search(t, ix, Query{Text: "SameSite state cookie"}); len(r) != 1 || r[0].ID != l.ID {
		t.Errorf("search after Commit = %v, want %s", ids(r), l.ID)
	}
	if r := search(t, ix, Query{Text: "zanzibar quokka"}); len(r) != 0 {
		t.Errorf("a document outside the Change was indexed by it: %v", ids(r))
	}
	if _, ran, err := ix.Refresh(ctx); err != nil || !ran {
		t.Fatalf("Refresh ran=%v (%v): the Change hid the foreign write", ran, err)
	}
	if r := search(t, ix, Query{Text: "zanzibar quokka"}); len(r) != 1 {
		t.Errorf("after Refresh search = %v, want lrn-foreign", ids(r))
	}

	ch = ix.BeginChange("lrn-seed")
	defer ch.Close()
	if err := ix.store.Delete("lrn-seed"); err != nil {
		t.Fatal(err)
	}
	if err := ch.Commit(ctx, "lrn-seed"); err != nil {
		t.Fatal(err)
	}
	if got := docRows(t, ix); got["lrn-seed"] != 0 || got[l.ID] == 0 {
		t.Errorf("index rows after a deleting Change: %v", got)
	}
}
