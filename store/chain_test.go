package store

import (
	"testing"
	"time"
)

// TestChainBothWaysAndLoops: Chain follows supersedes and superseded_by
// from the middle of a chain, marks a link to a missing learning, and
// stops on a hand-made loop.
func TestChainBothWaysAndLoops(t *testing.T) {
	s := Open(t.TempDir())
	now := time.Now()
	write := func(id, title, supersedes, by string) *Learning {
		l := &Learning{ID: id, Title: title, Confidence: "high", Created: now, Supersedes: supersedes, SupersededBy: by}
		if err := s.Write(l); err != nil {
			t.Fatal(err)
		}
		return l
	}
	write("lrn-old-000001", "Old", "lrn-gone-000009", "lrn-mid-000002")
	mid := write("lrn-mid-000002", "Mid", "lrn-old-000001", "lrn-new-000003")
	write("lrn-new-000003", "New", "lrn-mid-000002", "")
	sup, by := s.Chain(mid)
	if len(sup) != 2 || sup[0].ID != "lrn-old-000001" || sup[0].Title != "Old" || !sup[1].Missing || sup[1].ID != "lrn-gone-000009" {
		t.Errorf("supersedes %+v", sup)
	}
	if len(by) != 1 || by[0].ID != "lrn-new-000003" || by[0].Title != "New" {
		t.Errorf("superseded by %+v", by)
	}
	a := write("lrn-loop-00000a", "A", "lrn-loop-00000b", "")
	write("lrn-loop-00000b", "B", "lrn-loop-00000a", "")
	if sup, _ := s.Chain(a); len(sup) != 1 || sup[0].ID != "lrn-loop-00000b" {
		t.Errorf("loop: %+v", sup)
	}
}
