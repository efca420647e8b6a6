package store

import (
	"reflect"
	"testing"
)

func TestChanges(t *testing.T) {
	t.Parallel()
	prev := newLearning("Pool exhausted")
	prev.Tags = []string{"postgres", "pool"}
	next := *prev
	next.Tags = []string{"postgres", "pgbouncer"}
	next.KeyInsight = "Put pgbouncer in front"
	next.Body = prev.Body + "\n" // only a trailing newline: no change
	got := Changes(prev, &next)
	want := []Change{
		{Field: "tags", Added: []string{"pgbouncer"}, Removed: []string{"pool"}},
		{Field: "key_insight"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Changes = %+v, want %+v", got, want)
	}
	if got := Changes(prev, prev); len(got) != 0 {
		t.Errorf("Changes of a learning with itself = %+v", got)
	}
}

func TestMergeTags(t *testing.T) {
	t.Parallel()
	got := MergeTags([]string{"go", "Build"}, []string{"build", "linker", "go", "cgo"})
	want := []string{"go", "Build", "linker", "cgo"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("MergeTags = %q, want %q", got, want)
	}
	if got := MergeTags(nil, nil); len(got) != 0 {
		t.Errorf("MergeTags(nil, nil) = %q", got)
	}
}
