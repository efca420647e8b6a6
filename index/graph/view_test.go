package graph

import (
	"context"
	"testing"

	"github.com/reflectkb/reflect/store"
)

// Entities that learnings mention together are joined in a view even when
// no sidecar relates them, one unit of strength per shared learning, on
// top of the relations written.
func TestViewRelatesEntitiesOfTheSameLearning(t *testing.T) {
	db := openDB(t)
	addDoc(t, db, &store.Learning{ID: "lrn-a"}, sidecar("lrn-a", []string{"go test", "TestBalance", "balance.go"}))
	addDoc(t, db, &store.Learning{ID: "lrn-b"}, sidecar("lrn-b", []string{"go test", "TestBalance"}))
	addDoc(t, db, &store.Learning{ID: "lrn-c"}, sidecar("lrn-c", []string{"curl", "TLS"},
		store.Relationship{Source: "curl", Target: "TLS", Type: "uses", Strength: 5}))
	addDoc(t, db, &store.Learning{ID: "lrn-d"}, sidecar("lrn-d", []string{"pytest"}))

	v, err := BuildView(context.Background(), db, ViewOptions{Edges: 10})
	if err != nil {
		t.Fatal(err)
	}
	name := map[int64]string{}
	for _, n := range v.Nodes {
		name[n.ID] = n.Name
	}
	got := map[string]float64{}
	for _, e := range v.Edges {
		got[name[e.Source]+"—"+name[e.Target]] = e.Strength
		got[name[e.Target]+"—"+name[e.Source]] = e.Strength
	}
	want := map[string]float64{
		"go test—TestBalance":    2, // two learnings
		"go test—balance.go":     1,
		"TestBalance—balance.go": 1,
		"curl—TLS":               6, // the relation's 5 and one learning
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("edge %s: strength %v, want %v (edges %v)", k, got[k], w, got)
		}
	}
	if len(v.Nodes) != 6 || len(v.Edges) != len(want) {
		t.Errorf("%d nodes and %d edges, want 6 and %d: %v", len(v.Nodes), len(v.Edges), len(want), got)
	}
}
