package knowledge

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reflectkb/reflect/store"
)

func pendingLearning(title string) *store.Learning {
	l := cookieLearning()
	l.Title, l.KeyInsight = title, title+": the insight."
	l.ID = store.NewID(l.Title, l.KeyInsight)
	l.Status = store.StatusPending
	return l
}

// Approve makes drafts active; Reject deletes them and remembers their
// fingerprints; an unknown id or an active learning is refused by name
// and nothing of the batch changes.
func TestApproveReject(t *testing.T) {
	d := newDirs(t)
	k := d.open(t)
	ctx := context.Background()
	a, b, active := pendingLearning("Draft A"), pendingLearning("Draft B"), cookieLearning()
	for _, l := range []*store.Learning{a, b, active} {
		if _, err := k.Put(ctx, l, nil, t0); err != nil {
			t.Fatal(err)
		}
	}
	if p, err := k.Pending(ctx); err != nil || len(p) != 2 {
		t.Fatalf("Pending: %d, %v; want 2", len(p), err)
	}
	if _, err := k.Approve(ctx, a.ID, "lrn-nope"); !errors.Is(err, store.ErrNotFound) || !strings.Contains(err.Error(), "lrn-nope") {
		t.Errorf("approve of an unknown id: %v", err)
	}
	if _, err := k.Approve(ctx, a.ID, active.ID); !errors.Is(err, ErrNotPending) || !strings.Contains(err.Error(), active.ID) {
		t.Errorf("approve of an active learning: %v", err)
	}
	if l, _ := k.Store().Read(a.ID); !l.Pending() {
		t.Error("a refused batch approved its first draft")
	}
	if ls, err := k.Approve(ctx, a.ID); err != nil || len(ls) != 1 {
		t.Fatalf("Approve: %v", err)
	}
	if l, _ := k.Store().Read(a.ID); l.Pending() || l.Held() != "" {
		t.Errorf("approved draft: status %q held %q", l.Status, l.Held())
	}
	rej := NewRejections(t.TempDir())
	if _, err := k.Reject(ctx, rej, b.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(d.docPath(b.ID)); !os.IsNotExist(err) {
		t.Errorf("rejected draft still on disk: %v", err)
	}
	if got, err := rej.Load(); err != nil || !got[Fingerprint(b)] || len(got) != 1 {
		t.Errorf("rejections: %v, %v", got, err)
	}
	if _, err := k.Reject(ctx, rej, b.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("second reject of a deleted draft: %v", err)
	}
	if n, err := k.CountPending(ctx, filepath.Join(t.TempDir(), "state")); err != nil || n != 0 {
		t.Errorf("CountPending: %d, %v", n, err)
	}
}

// The fingerprint ignores case, punctuation and spacing, not words.
func TestFingerprint(t *testing.T) {
	a := &store.Learning{Title: "Use pgbouncer!", KeyInsight: "Put it  in FRONT of Postgres."}
	b := &store.Learning{Title: "use PgBouncer", KeyInsight: "put it in front of postgres"}
	c := &store.Learning{Title: "use PgBouncer", KeyInsight: "put it behind postgres"}
	if Fingerprint(a) != Fingerprint(b) || Fingerprint(a) == Fingerprint(c) {
		t.Errorf("fingerprints: %s %s %s", Fingerprint(a), Fingerprint(b), Fingerprint(c))
	}
}

// The rejections file keeps the newest MaxRejections fingerprints, once each.
func TestRejectionsBounded(t *testing.T) {
	r := NewRejections(t.TempDir())
	var fps []string
	for i := 0; i < MaxRejections+5; i++ {
		fps = append(fps, fmt.Sprintf("%064x", i))
	}
	if err := r.Add(fps...); err != nil {
		t.Fatal(err)
	}
	if err := r.Add(fps[len(fps)-1]); err != nil {
		t.Fatal(err)
	}
	got, err := r.Load()
	if err != nil || len(got) != MaxRejections || got[fps[0]] || !got[fps[len(fps)-1]] {
		t.Errorf("%d remembered (%v), oldest kept %v", len(got), err, got[fps[0]])
	}
}

// The status line's count survives a round trip; a missing or garbled
// file reads as none.
func TestRecordedPending(t *testing.T) {
	dir := t.TempDir()
	if RecordedPending(dir) != 0 {
		t.Error("no file: want 0")
	}
	if err := RecordPending(dir, 3); err != nil || RecordedPending(dir) != 3 {
		t.Errorf("RecordPending(3): %v, read %d", err, RecordedPending(dir))
	}
	if err := os.WriteFile(filepath.Join(dir, "review-pending"), []byte("lots"), 0o600); err != nil {
		t.Fatal(err)
	}
	if RecordedPending(dir) != 0 {
		t.Error("garbled file: want 0")
	}
}
