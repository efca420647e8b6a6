package store

import (
	"strings"
	"testing"
	"time"
)

func TestMergeFieldByField(t *testing.T) {
	t0 := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	base := &Learning{ID: "lrn-a-000001", Title: "T", Confidence: "medium", Category: "c", Tags: []string{"x"},
		Cites: []Cite{{Path: "a.go"}}, Created: t0, Updated: t0, Body: "one\n"}
	ours := *base
	ours.Tags = []string{"x", "ours"}
	ours.Symptoms = []string{"s1"}
	ours.Confidence = "high" // changed here only
	ours.Category = "ours-cat"
	ours.Updated = t0.Add(time.Hour)
	theirs := *base
	theirs.Tags = []string{"theirs"}
	theirs.Questions = []string{"why does it hang?"}
	ours.Questions = []string{"is it the lock?"}
	theirs.Cites = []Cite{{Path: "a.go"}, {Path: "b.go"}}
	theirs.Category = "theirs-cat" // changed on both: the later (theirs) wins
	theirs.Title = "T2"            // changed there only
	theirs.Updated = t0.Add(2 * time.Hour)
	theirs.Body = "one\ntwo\n"
	got := Merge(base, &ours, &theirs, func(string, string, string) (string, bool) {
		t.Fatal("the body changed on one side only: no merge needed")
		return "", false
	})
	if strings.Join(got.Tags, ",") != "x,ours,theirs" || len(got.Cites) != 2 || strings.Join(got.Symptoms, ",") != "s1" {
		t.Errorf("unions: tags %v cites %v symptoms %v", got.Tags, got.Cites, got.Symptoms)
	}
	if strings.Join(got.Questions, "|") != "is it the lock?|why does it hang?" {
		t.Errorf("questions are a union of both sides: %v", got.Questions)
	}
	if got.Confidence != "high" || got.Title != "T2" || got.Category != "theirs-cat" {
		t.Errorf("scalars: confidence %q title %q category %q", got.Confidence, got.Title, got.Category)
	}
	if !got.Updated.Equal(theirs.Updated) || got.Body != "one\ntwo\n" || got.NeedsReview {
		t.Errorf("updated %v body %q review %v", got.Updated, got.Body, got.NeedsReview)
	}
}

func TestMergeConflictingBodiesKeepsBoth(t *testing.T) {
	base := &Learning{Title: "T", Body: "one\n"}
	ours, theirs := *base, *base
	ours.Body, theirs.Body = "ours\n", "theirs\n"
	got := Merge(base, &ours, &theirs, func(string, string, string) (string, bool) { return "", false })
	if !got.NeedsReview || !strings.Contains(got.Body, "ours\n") || !strings.Contains(got.Body, "theirs\n") ||
		!strings.Contains(got.Body, "## Version from the other machine") {
		t.Errorf("review %v body:\n%s", got.NeedsReview, got.Body)
	}
	data, err := got.Marshal()
	if err != nil || !strings.Contains(string(data), "needs_review: true") {
		t.Errorf("marshal: %v\n%s", err, data)
	}
}

func TestMergeFromNamesBothSides(t *testing.T) {
	base := &Learning{Title: "T", Body: "one\n"}
	ours, theirs := *base, *base
	ours.Body, theirs.Body = "ours\n", "theirs\n"
	got := MergeFrom(base, &ours, &theirs, func(string, string, string) (string, bool) { return "", false }, Sides{Ours: "laptop", Theirs: "desktop"})
	want := "## Version from laptop\n\nours\n\n## Version from desktop\n\ntheirs\n"
	if got.Body != want || !got.NeedsReview {
		t.Errorf("body:\n%s\nwant:\n%s", got.Body, want)
	}
}

func TestPersonalPrivateAndNeedsReviewParse(t *testing.T) {
	l, err := Parse([]byte("---\nid: lrn-a-000001\ntitle: T\nconfidence: high\ncreated: 2026-11-01T00:00:00Z\nscope: personal\nprivate: true\nneeds_review: true\n---\n"))
	if err != nil {
		t.Fatal(err)
	}
	if !l.LocalOnly() || !l.Private || !l.NeedsReview || l.Scope != "personal" {
		t.Errorf("%+v", l)
	}
	if _, err := Parse([]byte("---\nid: lrn-a-000001\ntitle: T\nconfidence: high\ncreated: 2026-11-01T00:00:00Z\nscope: team\n---\n")); err == nil ||
		!strings.Contains(err.Error(), "project, global, personal") {
		t.Errorf("scope team: %v", err)
	}
}

func TestMergeSidecarsUnion(t *testing.T) {
	a := &Sidecar{DocumentID: "d", Entities: []Entity{{Name: "A", Type: "concept"}},
		Relationships: []Relationship{{Source: "A", Target: "B", Type: "uses"}}}
	b := &Sidecar{DocumentID: "d", Entities: []Entity{{Name: "A", Type: "concept"}, {Name: "B", Type: "tool"}},
		Relationships: []Relationship{{Source: "A", Target: "B", Type: "uses"}, {Source: "B", Target: "A", Type: "requires"}}}
	got := MergeSidecars(a, b)
	if len(got.Entities) != 2 || len(got.Relationships) != 2 {
		t.Errorf("%+v", got)
	}
}

// TestHoldsBothVersions: a body a merge kept both versions of, under
// either heading style, holds both until a person keeps one.
func TestHoldsBothVersions(t *testing.T) {
	base := &Learning{Title: "T", Body: "one\n"}
	ours, theirs := *base, *base
	ours.Body, theirs.Body = "ours\n", "theirs\n"
	conflict := func(string, string, string) (string, bool) { return "", false }
	for _, sides := range []Sides{{}, {Ours: "laptop", Theirs: "desktop"}} {
		got := MergeFrom(base, &ours, &theirs, conflict, sides)
		if !HoldsBothVersions(got.Body) {
			t.Errorf("sides %+v: merged body not seen as holding both versions:\n%s", sides, got.Body)
		}
	}
	for _, settled := range []string{"ours\n", "## Version from laptop\n\nours\n", "## Problem\nx\n"} {
		if HoldsBothVersions(settled) {
			t.Errorf("settled body %q seen as holding both versions", settled)
		}
	}
}
