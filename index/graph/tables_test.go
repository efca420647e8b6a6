package graph

import (
	"context"
	"database/sql"
	"reflect"
	"sort"
	"testing"

	"github.com/reflectkb/reflect/store"
)

func TestAddDocumentSidecar(t *testing.T) {
	db := openDB(t)
	l, sc := designExample(t)
	n := addDoc(t, db, l, sc)

	type ent struct{ name, typ, desc, source string }
	rows, err := db.Query(`SELECT e.name, e.type, e.description, m.source FROM entities e JOIN mentions m ON m.entity = e.id WHERE m.doc = ? ORDER BY e.norm`, n)
	if err != nil {
		t.Fatal(err)
	}
	var got []ent
	for rows.Next() {
		var e ent
		if err := rows.Scan(&e.name, &e.typ, &e.desc, &e.source); err != nil {
			t.Fatal(err)
		}
		got = append(got, e)
	}
	rows.Close()
	want := []ent{
		{"callback/cookie.go", "file", "sets the state cookie", SourceSidecar},
		{"SameSite", "concept", "cookie attribute", SourceSidecar},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("entities = %+v, want %+v", got, want)
	}
	var src, dst, typ string
	var strength float64
	err = db.QueryRow(`SELECT s.name, d.name, r.type, r.strength FROM relations r
		JOIN entities s ON s.id = r.src JOIN entities d ON d.id = r.dst WHERE r.doc = ?`, n).Scan(&src, &dst, &typ, &strength)
	if err != nil {
		t.Fatal(err)
	}
	if src != "SameSite" || dst != "callback/cookie.go" || typ != "configured_in" || strength != 7 {
		t.Errorf("relation %s -%s(%g)-> %s", src, typ, strength, dst)
	}
}

func TestAddDocumentHeuristic(t *testing.T) {
	db := openDB(t)
	l, _ := designExample(t)
	l.Body = "## Problem\nThe callback in callback/cookie.go sets the cookie; the IdP redirect drops it.\n"
	n := addDoc(t, db, l, nil)
	got := queryStrings(t, db, `SELECT e.name || ':' || e.type || ':' || m.source FROM entities e JOIN mentions m ON m.entity = e.id WHERE m.doc = ? ORDER BY e.norm`, n)
	want := []string{
		"callback/cookie.go:file:heuristic", // cited and named in the body
		"cookies:concept:heuristic",         // tags
		"OAuth:concept:heuristic",
		"SameSite:config:heuristic", // the key of the title's "SameSite=Lax"
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("entities = %q, want %q", got, want)
	}
	var rels int
	db.QueryRow(`SELECT count(*) FROM relations WHERE doc = ? AND type = 'relates_to' AND strength = 2`, n).Scan(&rels)
	if rels != 6 { // all pairs of 4
		t.Errorf("%d co-occurrence relations, want 6", rels)
	}
}

func TestAddDocumentReplaces(t *testing.T) {
	db := openDB(t)
	a := &store.Learning{ID: "lrn-a", Title: "ECONNREFUSED from redis", Body: "Fix in cache/pool.go with kubectl.\n"}
	b := &store.Learning{ID: "lrn-b", Title: "kubectl port-forward drops", Body: "See cache/pool.go.\n"}
	na := addDoc(t, db, a, nil)
	nb := addDoc(t, db, b, nil)

	a.Title, a.Body = "SIGSEGV in the worker", "Fix in worker/main.go.\n"
	if got := addDoc(t, db, a, nil); got != na {
		t.Fatalf("re-add changed the docs row: %d -> %d", na, got)
	}
	got := queryStrings(t, db, `SELECT e.norm FROM entities e JOIN mentions m ON m.entity = e.id WHERE m.doc = ? ORDER BY e.norm`, na)
	if want := []string{"sigsegv", "worker/main.go"}; !reflect.DeepEqual(got, want) {
		t.Errorf("after re-add: %q, want %q", got, want)
	}
	var stale int
	db.QueryRow(`SELECT count(*) FROM relations r WHERE r.doc = ? AND (r.src NOT IN (SELECT entity FROM mentions WHERE doc = ?) OR r.dst NOT IN (SELECT entity FROM mentions WHERE doc = ?))`, na, na, na).Scan(&stale)
	if stale != 0 {
		t.Errorf("%d relations of the old version left", stale)
	}
	all := queryStrings(t, db, `SELECT norm FROM entities ORDER BY norm`)
	// econnrefused and redis were only a's: gone; kubectl and cache/pool.go are b's too: kept
	if want := []string{"cache/pool.go", "kubectl", "sigsegv", "worker/main.go"}; !reflect.DeepEqual(all, want) {
		t.Errorf("entities = %q, want %q", all, want)
	}
	_ = nb
}

func TestSidecarTypeWins(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	guess := &store.Learning{ID: "lrn-g", Title: "SameSite=None needs Secure", Body: "The SameSite attribute.\n"}
	addDoc(t, db, guess, nil)
	typeOf := func() (typ, desc string) {
		t.Helper()
		if err := db.QueryRowContext(ctx, `SELECT type, description FROM entities WHERE norm = 'samesite'`).Scan(&typ, &desc); err != nil {
			t.Fatal(err)
		}
		return
	}
	if typ, _ := typeOf(); typ != "config" {
		t.Fatalf("heuristic type %q, want config", typ)
	}
	l, sc := designExample(t)
	addDoc(t, db, l, sc)
	if typ, desc := typeOf(); typ != "concept" || desc != "cookie attribute" {
		t.Errorf("after the sidecar: %q %q, want concept, cookie attribute", typ, desc)
	}
	other := &store.Learning{ID: "lrn-o", Title: "`SameSite` again", Body: "x\n"}
	addDoc(t, db, other, nil)
	if typ, _ := typeOf(); typ != "concept" {
		t.Errorf("a later guess overrode the sidecar: %q", typ)
	}
}

func TestRemoveDocument(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	l, sc := designExample(t)
	n1 := addDoc(t, db, l, sc)
	other := &store.Learning{ID: "lrn-b", Title: "Cookie set in callback/cookie.go", Body: "ECONNRESET too.\n"}
	n2 := addDoc(t, db, other, nil)
	inTx(t, db, func(tx *sql.Tx) error { _, err := Rebuild(ctx, tx); return err })

	inTx(t, db, func(tx *sql.Tx) error { return RemoveDocument(ctx, tx, n1) })
	if got := queryStrings(t, db, `SELECT norm FROM entities ORDER BY norm`); !reflect.DeepEqual(got, []string{"callback/cookie.go", "econnreset"}) {
		t.Errorf("entities after removing the sidecar learning: %q", got)
	}
	count := func(q string, args ...any) int {
		var c int
		if err := db.QueryRow(q, args...).Scan(&c); err != nil {
			t.Fatal(err)
		}
		return c
	}
	if c := count(`SELECT count(*) FROM mentions WHERE doc = ?`, n1); c != 0 {
		t.Errorf("%d mentions left", c)
	}
	if c := count(`SELECT count(*) FROM relations WHERE doc = ?`, n1); c != 0 {
		t.Errorf("%d relations left", c)
	}
	if c := count(`SELECT count(*) FROM communities WHERE entity NOT IN (SELECT id FROM entities)`); c != 0 {
		t.Errorf("%d community rows of removed entities", c)
	}

	inTx(t, db, func(tx *sql.Tx) error { return RemoveDocument(ctx, tx, n2) })
	for _, table := range tables {
		if c := count(`SELECT count(*) FROM ` + table); c != 0 {
			t.Errorf("%s: %d rows left", table, c)
		}
	}
	// removing what is not there is fine
	inTx(t, db, func(tx *sql.Tx) error { return RemoveDocument(ctx, tx, 12345) })
}

func TestAddDocumentMessySidecar(t *testing.T) {
	db := openDB(t)
	sc := &store.Sidecar{
		DocumentID: "lrn-m",
		Entities: []store.Entity{
			{Name: "Redis", Type: "technology"},
			{Name: "redis", Type: "tool"}, // same norm: the first wins
			{Name: "  ", Type: "tool"},    // no name: skipped
			{Name: "pool", Type: "thing"}, // unknown type: a concept
			{Name: "k8s", Type: "technology"},
		},
		Relationships: []store.Relationship{
			{Source: "Redis", Target: "pool", Type: "uses", Strength: 42}, // clamped to 10
			{Source: "Redis", Target: "pool", Type: "uses", Strength: 3},  // duplicate
			{Source: "redis", Target: "Redis", Type: "uses", Strength: 3}, // self
			{Source: "Redis", Target: "ghost", Type: "uses", Strength: 3}, // unknown end
			{Source: "kubernetes", Target: "pool", Strength: 5},           // by norm, no type
		},
	}
	n := addDoc(t, db, &store.Learning{ID: "lrn-m"}, sc)
	got := queryStrings(t, db, `SELECT e.name || ':' || e.type FROM entities e JOIN mentions m ON m.entity = e.id WHERE m.doc = ? ORDER BY e.norm`, n)
	if want := []string{"k8s:technology", "pool:concept", "Redis:technology"}; !reflect.DeepEqual(got, want) {
		t.Errorf("entities %q, want %q", got, want)
	}
	rels := queryStrings(t, db, `SELECT s.norm || '>' || d.norm || ':' || r.type || ':' || r.strength FROM relations r
		JOIN entities s ON s.id = r.src JOIN entities d ON d.id = r.dst ORDER BY 1`)
	sort.Strings(rels)
	if want := []string{"kubernetes>pool:relates_to:5.0", "redis>pool:uses:10.0"}; !reflect.DeepEqual(rels, want) {
		t.Errorf("relations %q, want %q", rels, want)
	}
}

func TestReset(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	l, sc := designExample(t)
	addDoc(t, db, l, sc)
	inTx(t, db, func(tx *sql.Tx) error { _, err := Rebuild(ctx, tx); return err })
	inTx(t, db, func(tx *sql.Tx) error { return Reset(ctx, tx) })
	for _, table := range tables {
		var c int
		db.QueryRow(`SELECT count(*) FROM ` + table).Scan(&c)
		if c != 0 {
			t.Errorf("%s: %d rows after Reset", table, c)
		}
	}
}

// TestDocumentFrequency follows entities.df, which triggers keep, through
// adds, a replacement, a removal and a Reset: it must always equal the
// number of learnings that mention the entity.
func TestDocumentFrequency(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	check := func(step string, want map[string]int) {
		t.Helper()
		var bad int
		if err := db.QueryRow(`SELECT count(*) FROM entities e WHERE df <> (SELECT count(*) FROM mentions WHERE entity = e.id)`).Scan(&bad); err != nil {
			t.Fatal(err)
		}
		if bad != 0 {
			t.Errorf("%s: %d entities with a wrong df", step, bad)
		}
		for norm, n := range want {
			var df int
			err := db.QueryRow(`SELECT df FROM entities WHERE norm = ?`, norm).Scan(&df)
			if err == sql.ErrNoRows {
				df = 0
			} else if err != nil {
				t.Fatal(err)
			}
			if df != n {
				t.Errorf("%s: df(%s) = %d, want %d", step, norm, df, n)
			}
		}
	}
	a := addDoc(t, db, &store.Learning{ID: "a"}, sidecar("a", []string{"docker", "redis"}))
	addDoc(t, db, &store.Learning{ID: "b"}, sidecar("b", []string{"docker", "Docker", "kafka"}))
	addDoc(t, db, &store.Learning{ID: "c"}, sidecar("c", []string{"docker"}))
	check("added", map[string]int{"docker": 3, "redis": 1, "kafka": 1})
	// The same learning again with other entities: replaced, not added.
	addDoc(t, db, &store.Learning{ID: "a"}, sidecar("a", []string{"kafka", "docker"}))
	check("replaced", map[string]int{"docker": 3, "redis": 0, "kafka": 2})
	inTx(t, db, func(tx *sql.Tx) error { return RemoveDocument(ctx, tx, a) })
	check("removed", map[string]int{"docker": 2, "kafka": 1})
	inTx(t, db, func(tx *sql.Tx) error { return Reset(ctx, tx) })
	addDoc(t, db, &store.Learning{ID: "d"}, sidecar("d", []string{"docker"}))
	check("after reset", map[string]int{"docker": 1, "kafka": 0})
}
