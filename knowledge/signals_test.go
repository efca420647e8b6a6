package knowledge

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"
)

// A signal is counted in the document's feedback, keeps its updated time,
// reaches the index (held, and the helpful factor of a confirmed one),
// and a stale learning is not re-marked.
func TestRecordSignal(t *testing.T) {
	ctx := context.Background()
	d := newDirs(t)
	k := d.open(t)
	l := cookieLearning()
	if _, err := k.Put(ctx, l, nil, t0); err != nil {
		t.Fatal(err)
	}
	for _, kind := range []string{SignalConfirmed, SignalConfirmed, SignalRefuted} {
		if ok, err := k.RecordSignal(ctx, Signal{ID: l.ID, Kind: kind}); err != nil || !ok {
			t.Fatalf("RecordSignal %s = %v, %v", kind, ok, err)
		}
	}
	got, err := k.Store().Read(l.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Feedback.Confirmed != 2 || got.Feedback.Refuted != 1 || !got.Updated.Equal(t0) {
		t.Errorf("feedback %+v, updated %v", got.Feedback, got.Updated)
	}
	r, ok := heldOf(t, k, "SameSite state cookie", l.ID)
	if !ok || r.Held != "" || r.Feedback != "confirmed 2, refuted 1" || r.Why.Helpful <= 1 {
		t.Errorf("search result %+v (found %v): want not held, confirmed in words, helpful factor", r, ok)
	}
	if _, err := k.RecordSignal(ctx, Signal{ID: l.ID, Kind: SignalStale, Reason: "cited files gone: callback/cookie.go"}); err != nil {
		t.Fatal(err)
	}
	if ok, _ := k.RecordSignal(ctx, Signal{ID: l.ID, Kind: SignalStale, Reason: "other"}); ok {
		t.Error("a stale learning was marked stale again")
	}
	if r, _ := heldOf(t, k, "SameSite state cookie", l.ID); r.Held != "stale: cited files gone: callback/cookie.go" {
		t.Errorf("Held = %q", r.Held)
	}
	if ok, err := k.RecordSignal(ctx, Signal{ID: "lrn-gone-1a2b3c", Kind: SignalConfirmed}); ok || err != nil {
		t.Errorf("signal on a forgotten learning = %v, %v; want nothing, no error", ok, err)
	}
	if _, err := k.RecordSignal(ctx, Signal{ID: l.ID, Kind: "maybe"}); err == nil {
		t.Error("an unknown signal kind was accepted")
	}
}

// 'fresh' clears a staleness and records the review; 'clear' of a stale
// learning records it too, so the drainer does not count older evidence
// again.
func TestMarkFreshReviews(t *testing.T) {
	ctx := context.Background()
	d := newDirs(t)
	k := d.open(t)
	l := cookieLearning()
	if _, err := k.Put(ctx, l, nil, t0); err != nil {
		t.Fatal(err)
	}
	now := t0.Add(48 * time.Hour)
	for _, mark := range []string{"fresh", "clear"} {
		if _, err := k.RecordSignal(ctx, Signal{ID: l.ID, Kind: SignalStale, Reason: "cited files gone: a.go"}); err != nil {
			t.Fatal(err)
		}
		got, err := k.MarkAt(ctx, l.ID, mark, now)
		if err != nil {
			t.Fatalf("Mark %s: %v", mark, err)
		}
		if got.Held() != "" || got.Feedback == nil || !got.Feedback.Reviewed.Equal(now) || got.Feedback.Stale != "" {
			t.Errorf("after %s: held %q, feedback %+v", mark, got.Held(), got.Feedback)
		}
		data, _ := os.ReadFile(d.docPath(l.ID))
		if !strings.Contains(string(data), "reviewed: ") || strings.Contains(string(data), "stale:") {
			t.Errorf("after %s the document reads:\n%s", mark, data)
		}
	}
	if got, _ := k.MarkAt(ctx, l.ID, "clear", now); got.Feedback != nil {
		t.Errorf("clear of a learning that is not stale keeps %+v", got.Feedback)
	}
}
