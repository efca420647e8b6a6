package store

import (
	"strings"
	"testing"
	"time"
)

// The drainer's signals are counted in feedback beside the marks, shown
// by String, and hold a learning: stale until reviewed, refuted after
// RefutedHold refutations with nothing for it.
func TestFeedbackSignalsHold(t *testing.T) {
	cases := []struct {
		fb       Feedback
		held, in string
	}{
		{Feedback{Confirmed: 3, Refuted: 1}, "", "confirmed 3, refuted 1"},
		{Feedback{Refuted: 1}, "", "refuted 1"},
		{Feedback{Refuted: 2}, "refuted", "refuted 2"},
		{Feedback{Refuted: 2, Confirmed: 1}, "", "confirmed 1, refuted 2"},
		{Feedback{Refuted: 5, Helpful: 1}, "", "helpful 1, refuted 5"},
		{Feedback{Stale: "cited files gone: a.go"}, "stale: cited files gone: a.go", "stale: cited files gone: a.go"},
		{Feedback{Stale: "x", Wrong: 1}, "wrong", "wrong 1, stale: x"},
		{Feedback{Reviewed: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}, "", ""},
	}
	for _, c := range cases {
		l := &Learning{Feedback: &c.fb}
		if got := l.Held(); got != c.held {
			t.Errorf("%+v: Held = %q, want %q", c.fb, got, c.held)
		}
		if got := c.fb.String(); got != c.in {
			t.Errorf("%+v: String = %q, want %q", c.fb, got, c.in)
		}
	}
}

// The new fields survive a write and a read, and negative counts are refused.
func TestFeedbackSignalsRoundTrip(t *testing.T) {
	l := &Learning{ID: "lrn-x-1a2b3c", Title: "x", Confidence: "high", Created: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
		Feedback: &Feedback{Confirmed: 2, Refuted: 1, Stale: "`go test` succeeded in this project on 2026-11-28",
			Reviewed: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)}}
	data, err := l.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	back, err := Parse(data)
	if err != nil {
		t.Fatalf("Parse: %v\n%s", err, data)
	}
	if *back.Feedback != *l.Feedback {
		t.Errorf("feedback %+v, want %+v\n%s", *back.Feedback, *l.Feedback, data)
	}
	bad := strings.Replace(string(data), "refuted: 1", "refuted: -1", 1)
	if _, err := Parse([]byte(bad)); err == nil || !strings.Contains(err.Error(), "negative") {
		t.Errorf("negative refuted: %v", err)
	}
}

// A merge keeps the larger counts and the later review; a staleness one
// side found holds unless the other side reviewed the learning after.
func TestMergeFeedbackSignals(t *testing.T) {
	day := func(d int) time.Time { return time.Date(2026, 11, d, 0, 0, 0, 0, time.UTC) }
	base := &Feedback{Confirmed: 1}
	ours := &Feedback{Confirmed: 2, Stale: "cited files gone: a.go", Reviewed: day(1)}
	theirs := &Feedback{Confirmed: 1, Refuted: 1}
	got := mergeFeedback(base, ours, theirs)
	if got.Confirmed != 2 || got.Refuted != 1 || got.Stale != "cited files gone: a.go" || !got.Reviewed.Equal(day(1)) {
		t.Errorf("merge = %+v", got)
	}
	theirs = &Feedback{Confirmed: 3, Reviewed: day(5)}
	if got := mergeFeedback(base, ours, theirs); got.Stale != "" || !got.Reviewed.Equal(day(5)) || got.Confirmed != 3 {
		t.Errorf("a later review on their side: merge = %+v, want not stale", got)
	}
}
