package graph

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"testing"

	"github.com/reflectkb/reflect/store"
)

// fixture is a small knowledge base around the ARCHITECTURE §3 example:
//
//	d1 (sidecar)   SameSite -configured_in 7-> callback/cookie.go
//	d2 (sidecar)   callback/cookie.go, state cookie
//	d3 (heuristic) "The SameSite attribute matters"
//	d4 (sidecar)   cookie, docker
//	d5 (sidecar)   docker, ECONNREFUSED
//	d6..d9         docker
//	d10 (heuristic) "go test fails" (the Go tool)
type fixture struct {
	db  *sql.DB
	doc map[string]int64
}

func newFixture(t *testing.T) fixture {
	t.Helper()
	db := openDB(t)
	f := fixture{db: db, doc: map[string]int64{}}
	l, sc := designExample(t)
	f.doc["d1"] = addDoc(t, db, l, sc)
	f.doc["d2"] = addDoc(t, db, &store.Learning{ID: "d2"}, &store.Sidecar{DocumentID: "d2", Entities: []store.Entity{
		{Name: "callback/cookie.go", Type: "file"}, {Name: "state cookie", Type: "concept"}}})
	f.doc["d3"] = addDoc(t, db, &store.Learning{ID: "d3", Title: "The SameSite attribute matters"}, nil)
	f.doc["d4"] = addDoc(t, db, &store.Learning{ID: "d4"}, sidecar("d4", []string{"cookie", "docker"}))
	f.doc["d5"] = addDoc(t, db, &store.Learning{ID: "d5"}, sidecar("d5", []string{"docker", "ECONNREFUSED"}))
	for i := 6; i <= 9; i++ {
		id := fmt.Sprintf("d%d", i)
		f.doc[id] = addDoc(t, db, &store.Learning{ID: id}, sidecar(id, []string{"docker"}))
	}
	f.doc["d10"] = addDoc(t, db, &store.Learning{ID: "d10", Title: "Flaky: go test fails on CI"}, nil)
	return f
}

func (f fixture) name(doc int64) string {
	for k, v := range f.doc {
		if v == doc {
			return k
		}
	}
	return fmt.Sprint(doc)
}

func (f fixture) expand(t *testing.T, q string, limit int) []Hit {
	t.Helper()
	hits, err := Expand(context.Background(), f.db, q, limit)
	if err != nil {
		t.Fatalf("Expand(%q): %v", q, err)
	}
	return hits
}

func (f fixture) docs(hits []Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, f.name(h.Doc))
	}
	return out
}

func TestExpandEntityAndNeighbour(t *testing.T) {
	f := newFixture(t)
	hits := f.expand(t, "why is the SameSite cookie dropped?", 0)
	// SameSite is in d1 and d3; its neighbour callback/cookie.go (strength
	// 7) brings d2; "cookie" (d4) is a name of its own in the query too.
	direct := damp(2)
	neighbour := damp(2) * damp(2) * 7.0 / 10 * neighbourDecay
	want := []struct {
		doc   string
		score float64
		via   string
	}{
		{"d1", direct + neighbour, "SameSite"},
		{"d3", direct, "SameSite"},
		{"d4", damp(1), "cookie"},
		{"d2", neighbour, "callback/cookie.go"},
	}
	got := map[string]Hit{}
	for _, h := range hits {
		got[f.name(h.Doc)] = h
	}
	if len(hits) != len(want) {
		t.Fatalf("hits %v, want %d", f.docs(hits), len(want))
	}
	for _, w := range want {
		h, ok := got[w.doc]
		if !ok {
			t.Errorf("%s missing", w.doc)
			continue
		}
		if math.Abs(h.Score-w.score) > 1e-9 || h.Via != w.via {
			t.Errorf("%s: score %.4f via %q, want %.4f via %q", w.doc, h.Score, h.Via, w.score, w.via)
		}
	}
	for i := 1; i < len(hits); i++ {
		if hits[i].Score > hits[i-1].Score {
			t.Errorf("not best first: %v", hits)
		}
	}
}

func TestExpandLongestMatch(t *testing.T) {
	f := newFixture(t)
	// The whole path is the entity: neither "cookie" (d4) nor "go" match
	// inside it.
	if got := f.docs(f.expand(t, "callback/cookie.go is wrong", 0)); fmt.Sprint(got) != "[d1 d2 d3]" {
		t.Errorf("path query: %v, want d1 d2 (mention it) and d3 (neighbour SameSite)", got)
	}
	// "state cookie" is an entity; "cookie" inside it is not counted.
	if got := f.docs(f.expand(t, "the state cookie expired", 0)); fmt.Sprint(got) != "[d2]" {
		t.Errorf("n-gram query: %v, want [d2]", got)
	}
}

func TestExpandDampsCommonEntities(t *testing.T) {
	f := newFixture(t)
	hits := f.expand(t, "docker says ECONNREFUSED", 0)
	if len(hits) != 6 || f.name(hits[0].Doc) != "d5" {
		t.Fatalf("hits %v: want d5 (both, rare ECONNREFUSED) first, then the docker learnings", f.docs(hits))
	}
	if math.Abs(hits[0].Score-(damp(1)+damp(6))) > 1e-9 || hits[0].Via != "ECONNREFUSED" {
		t.Errorf("d5: %+v", hits[0])
	}
	for _, h := range hits[1:] {
		if math.Abs(h.Score-damp(6)) > 1e-9 || h.Via != "docker" {
			t.Errorf("%s: %+v, want docker's damped %.3f", f.name(h.Doc), h, damp(6))
		}
	}
	// limit, ties newest first
	if got := f.docs(f.expand(t, "docker", 2)); fmt.Sprint(got) != "[d9 d8]" {
		t.Errorf("limit 2: %v", got)
	}
}

func TestExpandAmbiguousNames(t *testing.T) {
	f := newFixture(t)
	if hits := f.expand(t, "let's go home and make sure", 0); len(hits) != 0 {
		t.Errorf("prose matched: %v", f.docs(hits))
	}
	if got := f.docs(f.expand(t, "go test is flaky", 0)); fmt.Sprint(got) != "[d10]" {
		t.Errorf("go test: %v, want [d10]", got)
	}
	for _, q := range []string{"", "   ", "nothing known here", "the and of"} {
		if hits := f.expand(t, q, 0); hits != nil {
			t.Errorf("%q: %v", q, f.docs(hits))
		}
	}
}

func TestExpandHubs(t *testing.T) {
	db := openDB(t)
	// git is in hubDocs+1 learnings, each relating it strongly to an
	// entity of its own; u0 is also in a learning without git. A hub is
	// not expanded to its neighbours.
	for i := 0; i <= hubDocs; i++ {
		id := fmt.Sprintf("lrn-%d", i)
		u := fmt.Sprintf("u%d", i)
		addDoc(t, db, &store.Learning{ID: id}, sidecar(id, []string{"git", u},
			store.Relationship{Source: "git", Target: u, Type: "uses", Strength: 9}))
	}
	lone := addDoc(t, db, &store.Learning{ID: "lrn-lone"}, sidecar("lrn-lone", []string{"u0"}))
	hits, err := Expand(context.Background(), db, "git rebase", 1000)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != hubDocs+1 {
		t.Errorf("%d hits, want the %d git learnings", len(hits), hubDocs+1)
	}
	for _, h := range hits {
		if h.Doc == lone {
			t.Errorf("a hub's neighbour brought in %d", lone)
		}
	}
	// A rare entity is expanded, but a hub is nobody's neighbour: u0
	// brings its two learnings and none of git's.
	hits, err = Expand(context.Background(), db, "u0", 1000)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 2 || hits[0].Doc != lone || hits[0].Via != "u0" || hits[1].Score != damp(2) {
		t.Errorf("u0: %+v", hits)
	}
	// A hub named with a rare entity boosts the rare one's learning.
	hits, err = Expand(context.Background(), db, "git and u5", 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 3 || hits[0].Via != "u5" || math.Abs(hits[0].Score-(damp(1)+damp(hubDocs+1))) > 1e-9 {
		t.Errorf("git and u5: %+v", hits)
	}
	// A hub named in the query recalls only its newest learnings.
	hits, err = Expand(context.Background(), db, "git", 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 5 || hits[0].Doc <= hits[4].Doc {
		t.Errorf("git, limit 5: %+v", hits)
	}
}

func TestRerank(t *testing.T) {
	f := newFixture(t)
	rerank := func(q string, docs ...string) []Hit {
		t.Helper()
		var ids []int64
		for _, d := range docs {
			ids = append(ids, f.doc[d])
		}
		hits, err := Rerank(context.Background(), f.db, q, ids)
		if err != nil {
			t.Fatalf("Rerank(%q): %v", q, err)
		}
		return hits
	}
	// Only the given learnings, scored by the query's own entities as
	// Expand scores them: d7 mentions docker but was not a candidate, d2
	// mentions neither.
	hits := rerank("docker says ECONNREFUSED", "d6", "d2", "d5")
	if got := f.docs(hits); fmt.Sprint(got) != "[d5 d6]" {
		t.Fatalf("hits %v, want [d5 d6]", got)
	}
	if math.Abs(hits[0].Score-(damp(1)+damp(6))) > 1e-9 || hits[0].Via != "ECONNREFUSED" {
		t.Errorf("d5: %+v", hits[0])
	}
	if math.Abs(hits[1].Score-damp(6)) > 1e-9 || hits[1].Via != "docker" {
		t.Errorf("d6: %+v", hits[1])
	}
	// No neighbours: d2 is SameSite's neighbour in Expand, not here.
	if got := f.docs(rerank("why is the SameSite cookie dropped?", "d2", "d1")); fmt.Sprint(got) != "[d1]" {
		t.Errorf("SameSite: %v, want [d1]", got)
	}
	if hits := rerank("docker"); hits != nil {
		t.Errorf("no candidates: %v", hits)
	}
	if hits := rerank("nothing known here", "d1", "d5"); hits != nil {
		t.Errorf("no entities in the query: %v", f.docs(hits))
	}
}
