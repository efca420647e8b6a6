package store

import (
	"slices"
	"strings"
)

// Change is one field an update of a learning changed. List fields say
// which items came and went; other fields only that they changed.
type Change struct {
	Field   string   `json:"field"`
	Added   []string `json:"added,omitempty"`
	Removed []string `json:"removed,omitempty"`
}

// Changes lists the fields of next that differ from prev, in frontmatter
// order, the body last. Times (created, updated) and the path are not
// content and are left out.
func Changes(prev, next *Learning) []Change {
	var out []Change
	scalar := func(field, a, b string) {
		if a != b {
			out = append(out, Change{Field: field})
		}
	}
	list := func(field string, a, b []string) {
		added, removed := diffItems(a, b)
		if len(added) > 0 || len(removed) > 0 {
			out = append(out, Change{Field: field, Added: added, Removed: removed})
		}
	}
	scalar("title", prev.Title, next.Title)
	scalar("type", prev.Type, next.Type)
	scalar("confidence", prev.Confidence, next.Confidence)
	scalar("category", prev.Category, next.Category)
	list("tags", prev.Tags, next.Tags)
	list("symptoms", prev.Symptoms, next.Symptoms)
	list("questions", prev.Questions, next.Questions)
	scalar("key_insight", prev.KeyInsight, next.KeyInsight)
	scalar("scope", prev.Scope, next.Scope)
	scalar("project", prev.Project, next.Project)
	list("cites", citePaths(prev.Cites), citePaths(next.Cites))
	scalar("superseded_by", prev.SupersededBy, next.SupersededBy)
	scalar("supersedes", prev.Supersedes, next.Supersedes)
	scalar("feedback", prev.Feedback.String(), next.Feedback.String())
	scalar("status", prev.Status, next.Status)
	scalar("updates", prev.Updates, next.Updates)
	// Write ends a body with a newline; an added one is not a change.
	scalar("body", strings.TrimRight(prev.Body, "\n"), strings.TrimRight(next.Body, "\n"))
	return out
}

// diffItems returns the items of b not in a and of a not in b, in order.
func diffItems(a, b []string) (added, removed []string) {
	for _, x := range b {
		if !slices.Contains(a, x) {
			added = append(added, x)
		}
	}
	for _, x := range a {
		if !slices.Contains(b, x) {
			removed = append(removed, x)
		}
	}
	return added, removed
}

func citePaths(cs []Cite) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Path
	}
	return out
}

// MergeTags returns prev's tags followed by those of more that prev does
// not have yet (compared without regard to case): adding a learning again
// with other tags adds to its tags rather than silently replacing them.
func MergeTags(prev, more []string) []string {
	out := slices.Clone(prev)
	for _, t := range more {
		if !slices.ContainsFunc(out, func(o string) bool { return strings.EqualFold(o, t) }) {
			out = append(out, t)
		}
	}
	return out
}
