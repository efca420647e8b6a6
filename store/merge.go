package store

import (
	"fmt"
	"reflect"
	"strings"
	"time"
)

// BodyMerger merges three versions of a body (base, ours, theirs) and
// reports whether it could do so without a conflict. `reflect sync` passes
// one that runs `git merge-file`.
type BodyMerger func(base, ours, theirs string) (merged string, clean bool)

// Merge combines two versions of the same learning edited on two machines,
// field by field, against their common ancestor base (nil when both sides
// added the file): tags, symptoms and cites are the union of both sides;
// a scalar field changed on one side only takes that change, and one
// changed on both takes the version with the later `updated`; bodies go
// to mergeBody, and when that conflicts both are kept under headings and
// the result is marked needs_review. Unknown fields of both are kept.
func Merge(base, ours, theirs *Learning, mergeBody BodyMerger) *Learning {
	return MergeFrom(base, ours, theirs, mergeBody, Sides{})
}

// Sides names where the two versions of a merge come from, for the
// headings that keep both bodies. A learning that needs review travels to
// every machine, so "this machine" is only true where the merge ran:
// named sides read right everywhere. Empty names keep the relative
// headings.
type Sides struct{ Ours, Theirs string }

// MergeFrom is Merge with the sides named in the headings.
func MergeFrom(base, ours, theirs *Learning, mergeBody BodyMerger, sides Sides) *Learning {
	if base == nil {
		base = &Learning{}
	}
	later, earlier := ours, theirs
	if theirs.Updated.After(ours.Updated) {
		later, earlier = theirs, ours
	}
	out := *later
	out.extra = append(out.extra[:0:0], later.extra...)
	out.KeepExtra(earlier)
	pick := func(b, o, t any) any {
		switch {
		case reflect.DeepEqual(o, t), reflect.DeepEqual(b, t):
			return o
		case reflect.DeepEqual(b, o):
			return t
		}
		if later == ours {
			return o
		}
		return t
	}
	out.Title = pick(base.Title, ours.Title, theirs.Title).(string)
	out.Type = pick(base.Type, ours.Type, theirs.Type).(string)
	out.Confidence = pick(base.Confidence, ours.Confidence, theirs.Confidence).(string)
	out.Category = pick(base.Category, ours.Category, theirs.Category).(string)
	out.KeyInsight = pick(base.KeyInsight, ours.KeyInsight, theirs.KeyInsight).(string)
	out.Scope = pick(base.Scope, ours.Scope, theirs.Scope).(string)
	out.Project = pick(base.Project, ours.Project, theirs.Project).(string)
	out.SupersededBy = pick(base.SupersededBy, ours.SupersededBy, theirs.SupersededBy).(string)
	out.Supersedes = pick(base.Supersedes, ours.Supersedes, theirs.Supersedes).(string)
	out.Status = pick(base.Status, ours.Status, theirs.Status).(string)
	out.Updates = pick(base.Updates, ours.Updates, theirs.Updates).(string)
	out.Feedback = mergeFeedback(base.Feedback, ours.Feedback, theirs.Feedback)
	out.Source = pick(base.Source, ours.Source, theirs.Source).(*Source)
	out.Private = ours.Private || theirs.Private
	out.Tags = union(ours.Tags, theirs.Tags)
	out.Symptoms = union(ours.Symptoms, theirs.Symptoms)
	out.Questions = union(ours.Questions, theirs.Questions)
	out.Cites = unionCites(ours.Cites, theirs.Cites)
	out.Created = earliest(ours.Created, theirs.Created)
	out.Updated = later.Updated
	out.NeedsReview = ours.NeedsReview || theirs.NeedsReview
	switch {
	case ours.Body == theirs.Body, theirs.Body == base.Body:
		out.Body = ours.Body
	case ours.Body == base.Body:
		out.Body = theirs.Body
	default:
		if body, clean := mergeBody(base.Body, ours.Body, theirs.Body); clean {
			out.Body = body
		} else {
			out.Body = bothBodies(ours, theirs, sides)
			out.NeedsReview = true
		}
	}
	return &out
}

// bothBodies keeps two bodies that could not be merged, each under a
// heading that says where it came from, so nothing is lost and a person
// can settle it.
func bothBodies(ours, theirs *Learning, sides Sides) string {
	stamp := func(l *Learning) string {
		if l.Updated.IsZero() {
			return ""
		}
		return " (updated " + l.Updated.UTC().Format(time.RFC3339) + ")"
	}
	oursHead, theirsHead := "## Version kept on this machine", "## Version from the other machine"
	if sides.Ours != "" {
		oursHead = "## Version from " + sides.Ours
	}
	if sides.Theirs != "" {
		theirsHead = "## Version from " + sides.Theirs
	}
	return fmt.Sprintf("%s%s\n\n%s\n%s%s\n\n%s",
		oursHead, stamp(ours), withNewline(ours.Body), theirsHead, stamp(theirs), withNewline(theirs.Body))
}

// HoldsBothVersions reports whether body still holds both of the
// versions bothBodies kept under their headings: a needs_review learning
// whose body nobody has settled yet.
func HoldsBothVersions(body string) bool {
	n := 0
	for _, line := range strings.Split(body, "\n") {
		if strings.HasPrefix(line, "## Version kept on this machine") || strings.HasPrefix(line, "## Version from ") {
			n++
		}
	}
	return n >= 2
}

func withNewline(s string) string {
	if s != "" && s[len(s)-1] != '\n' {
		return s + "\n"
	}
	return s
}

// union is a then the values of b that a lacks, in order.
func union(a, b []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, v := range append(append([]string(nil), a...), b...) {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

// unionCites is union by path; a path cited on both sides keeps our hash.
func unionCites(a, b []Cite) []Cite {
	seen := map[string]bool{}
	var out []Cite
	for _, c := range append(append([]Cite(nil), a...), b...) {
		if !seen[c.Path] {
			seen[c.Path] = true
			out = append(out, c)
		}
	}
	return out
}

func earliest(a, b time.Time) time.Time {
	if a.IsZero() || (!b.IsZero() && b.Before(a)) {
		return b
	}
	return a
}

// MergeSidecars combines two entity sidecars of one learning: the union
// of their entities (by name) and relationships (by source, target and
// type), ours first.
func MergeSidecars(ours, theirs *Sidecar) *Sidecar {
	out := &Sidecar{DocumentID: ours.DocumentID}
	seen := map[string]bool{}
	for _, e := range append(append([]Entity(nil), ours.Entities...), theirs.Entities...) {
		if !seen[e.Name] {
			seen[e.Name] = true
			out.Entities = append(out.Entities, e)
		}
	}
	seenRel := map[[3]string]bool{}
	for _, r := range append(append([]Relationship(nil), ours.Relationships...), theirs.Relationships...) {
		k := [3]string{r.Source, r.Target, r.Type}
		if !seenRel[k] {
			seenRel[k] = true
			out.Relationships = append(out.Relationships, r)
		}
	}
	return out
}

// mergeFeedback takes the side that changed the marks (so a clear on one
// machine is kept); when both changed them it keeps, mark by mark, the
// larger count, since marks are only added between clears.
func mergeFeedback(base, ours, theirs *Feedback) *Feedback {
	switch {
	case ours.String() == theirs.String(), base.String() == theirs.String():
		return ours
	case base.String() == ours.String():
		return theirs
	}
	var a, b Feedback
	if ours != nil {
		a = *ours
	}
	if theirs != nil {
		b = *theirs
	}
	out := &Feedback{Helpful: max(a.Helpful, b.Helpful), Wrong: max(a.Wrong, b.Wrong),
		Outdated: max(a.Outdated, b.Outdated), Never: max(a.Never, b.Never),
		Confirmed: max(a.Confirmed, b.Confirmed), Refuted: max(a.Refuted, b.Refuted),
		Reviewed: a.Reviewed, Stale: a.Stale}
	if b.Reviewed.After(a.Reviewed) {
		out.Reviewed = b.Reviewed
	}
	// A staleness found on one side holds, unless the other side's review
	// came after it was found there (the review cleared it).
	switch {
	case a.Stale == "" && b.Stale != "" && !a.Reviewed.After(b.Reviewed):
		out.Stale = b.Stale
	case a.Stale != "" && b.Stale == "" && b.Reviewed.After(a.Reviewed):
		out.Stale = ""
	}
	return out
}
