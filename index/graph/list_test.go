package graph

import (
	"context"
	"database/sql"
	"fmt"
	"reflect"
	"testing"
)

func TestList(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	before, err := List(ctx, f.db, ListOptions{Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(before) != 1 || before[0].Name != "docker" || before[0].Community != 0 {
		t.Errorf("before Rebuild: %+v, want docker in community 0", before)
	}
	inTx(t, f.db, func(tx *sql.Tx) error { _, err := Rebuild(ctx, tx); return err })

	all, err := List(ctx, f.db, ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]EntityInfo{}
	for i, e := range all {
		byName[e.Name] = e
		if e.Community <= 0 {
			t.Errorf("%s: community %d after Rebuild", e.Name, e.Community)
		}
		if i > 0 && e.Documents > all[i-1].Documents {
			t.Errorf("not by documents: %s after %s", e.Name, all[i-1].Name)
		}
	}
	if got := byName["callback/cookie.go"]; got.Type != "file" || got.Documents != 2 || got.Degree != 1 {
		t.Errorf("callback/cookie.go: %+v", got)
	}
	if got := byName["SameSite"]; got.Type != "concept" || got.Description != "cookie attribute" || got.Documents != 2 || got.Degree != 1 {
		t.Errorf("SameSite: %+v", got)
	}
	if byName["SameSite"].Community != byName["callback/cookie.go"].Community {
		t.Errorf("related entities in different communities: %+v", all)
	}
	if got := byName["docker"]; got.Documents != 6 || got.Degree != 0 {
		t.Errorf("docker: %+v", got)
	}
	if len(all) != 7 {
		t.Errorf("%d entities: %+v", len(all), all)
	}

	files, err := List(ctx, f.db, ListOptions{Type: "file"})
	if err != nil || len(files) != 1 || files[0].Name != "callback/cookie.go" {
		t.Errorf("files: %+v %v", files, err)
	}
	deg, err := List(ctx, f.db, ListOptions{Sort: ByDegree, Limit: 2})
	if err != nil || len(deg) != 2 || deg[0].Degree != 1 || deg[1].Degree != 1 {
		t.Errorf("by degree: %+v %v", deg, err)
	}
	names, err := List(ctx, f.db, ListOptions{Sort: ByName, Limit: 3})
	if err != nil || fmt.Sprint(infoNames(names)) != "[callback/cookie.go cookie docker]" {
		t.Errorf("by name: %v %v", infoNames(names), err)
	}
	c := byName["docker"].Community
	inC, err := List(ctx, f.db, ListOptions{Community: c, Sort: ByCommunity})
	if err != nil || len(inC) == 0 {
		t.Fatalf("community %d: %+v %v", c, inC, err)
	}
	for _, e := range inC {
		if e.Community != c {
			t.Errorf("community filter: %+v", e)
		}
	}
	if _, err := List(ctx, f.db, ListOptions{Sort: "size"}); err == nil {
		t.Error("unknown order accepted")
	}
}

func infoNames(es []EntityInfo) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.Name)
	}
	return out
}

func TestRelated(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	inTx(t, f.db, func(tx *sql.Tx) error { _, err := Rebuild(ctx, tx); return err })

	ents, related, err := Related(ctx, f.db, f.doc["d1"], 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := infoNames(ents); !reflect.DeepEqual(got, []string{"callback/cookie.go", "SameSite"}) {
		t.Errorf("entities of d1: %v", got)
	}
	for _, e := range ents {
		if e.Documents != 2 || e.Degree != 1 || e.Community == 0 {
			t.Errorf("%+v", e)
		}
	}
	got := map[string][]string{}
	for _, r := range related {
		got[f.name(r.Doc)] = r.Shared
		if math := damp(2); r.Score != math {
			t.Errorf("%s: score %g, want %g", f.name(r.Doc), r.Score, math)
		}
	}
	want := map[string][]string{"d2": {"callback/cookie.go"}, "d3": {"SameSite"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("related to d1: %v, want %v", got, want)
	}

	// d5 shares its rare ECONNREFUSED with nobody and docker with five:
	// the five come, the shared list names docker.
	_, related, err = Related(ctx, f.db, f.doc["d5"], 3)
	if err != nil || len(related) != 3 {
		t.Fatalf("d5: %+v %v", related, err)
	}
	for _, r := range related {
		if !reflect.DeepEqual(r.Shared, []string{"docker"}) || r.Doc == f.doc["d5"] {
			t.Errorf("d5 related %+v", r)
		}
	}

	// a learning of its own: entities, nothing related
	ents, related, err = Related(ctx, f.db, f.doc["d10"], 5)
	if err != nil || len(ents) != 1 || ents[0].Name != "Go" || related != nil {
		t.Errorf("d10: %+v %+v %v", ents, related, err)
	}
	// an unknown learning
	ents, related, err = Related(ctx, f.db, 9999, 5)
	if err != nil || ents != nil || related != nil {
		t.Errorf("unknown: %+v %+v %v", ents, related, err)
	}
}

func TestRelatedRanksRareSharedEntitiesFirst(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	base := addDoc(t, db, fakeLearning("base"), sidecar("base", []string{"git", "ERR_REQUIRE_ESM", "webpack"}))
	both := addDoc(t, db, fakeLearning("both"), sidecar("both", []string{"git", "ERR_REQUIRE_ESM"}))
	addDoc(t, db, fakeLearning("common"), sidecar("common", []string{"git", "webpack"}))
	for i := 0; i < 20; i++ {
		id := fmt.Sprintf("git-%d", i)
		names := []string{"git"}
		if i < 5 {
			names = append(names, "webpack")
		}
		addDoc(t, db, fakeLearning(id), sidecar(id, names))
	}
	_, related, err := Related(ctx, db, base, 3)
	if err != nil {
		t.Fatal(err)
	}
	// "both" shares the rare error, the next ones the commoner webpack,
	// and all of them git
	if len(related) != 3 || related[0].Doc != both {
		t.Fatalf("related %+v: want both first", related)
	}
	if !reflect.DeepEqual(related[0].Shared, []string{"ERR_REQUIRE_ESM", "git"}) {
		t.Errorf("shared, rarest first: %v", related[0].Shared)
	}
	if !reflect.DeepEqual(related[1].Shared, []string{"webpack", "git"}) || related[1].Score >= related[0].Score {
		t.Errorf("second: %+v", related[1])
	}
}
