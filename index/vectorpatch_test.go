package index

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/reflectkb/reflect/index/vector"
)

// watchExports records, for the rest of the test, whether each vector
// export patched the previous file (true) or rewrote it from the table.
func watchExports(t *testing.T) *[]bool {
	t.Helper()
	var got []bool
	prev := exported
	exported = func(patched bool) { got = append(got, patched) }
	t.Cleanup(func() { exported = prev })
	return &got
}

// fileMatchesTable fails t unless vectors.f32 holds exactly the vectors
// table: the same row numbers, in order, with the same floats.
func fileMatchesTable(t *testing.T, ix *Index, k kb) {
	t.Helper()
	f, err := vector.Open(filepath.Join(k.idx, "vectors.f32"))
	if err != nil {
		t.Fatalf("vectors.f32: %v", err)
	}
	defer f.Close()
	i := 0
	for _, r := range tableRows(t, ix) {
		n := r.Key
		if i >= f.Len() {
			t.Fatalf("table row %d (n=%d) missing from the file of %d rows", i, n, f.Len())
		}
		if f.Key(i) != n || !slices.Equal(f.Vector(i), r.Vec) {
			t.Fatalf("file row %d is n=%d, table row is n=%d (or their vectors differ)", i, f.Key(i), n)
		}
		i++
	}
	if i != f.Len() {
		t.Fatalf("file has %d rows, table %d", f.Len(), i)
	}
	codesMatchFile(t, f)
}

// tableRows is the vectors table as an export reads it (tableVector): each
// row's vector in row order, a recomputable embedder's made again from its
// learning, rows it cannot make left out.
func tableRows(t testing.TB, ix *Index) []vector.Row {
	t.Helper()
	var stored string
	_ = ix.db.QueryRow(`SELECT value FROM meta WHERE key='embedder'`).Scan(&stored)
	rows, err := ix.db.Query(vectorRowsQuery + ` ORDER BY v.n`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []vector.Row
	for rows.Next() {
		var n int64
		var b []byte
		var p, title, insight sql.NullString
		if err := rows.Scan(&n, &b, &p, &title, &insight); err != nil {
			t.Fatal(err)
		}
		v, ok, err := ix.tableVector(context.Background(), stored, b, p, title, insight, nil)
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			out = append(out, vector.Row{Key: uint64(n), Vec: v})
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// codesMatchFile fails t unless f's codes (vectors.i8) were made from it
// and hold its rows' codes, tombstones included: every write of the file
// keeps them in step.
func codesMatchFile(t *testing.T, f *vector.File) {
	t.Helper()
	if p := f.CodesProblem(); p != "" {
		t.Fatalf("vectors.i8: %s", p)
	}
	if n := f.CodesMismatch(); n != 0 {
		t.Fatalf("vectors.i8: %d row(s) do not match vectors.f32", n)
	}
}

func rowOf(t *testing.T, ix *Index, id string) int64 {
	t.Helper()
	var n int64
	if err := ix.db.QueryRow(`SELECT n FROM docs WHERE id=?`, id).Scan(&n); err != nil {
		t.Fatalf("row of %s: %v", id, err)
	}
	return n
}

// Small updates patch the previous vector file instead of reading every
// vector back: in place (the same file, rows appended and removed ones
// zeroed) while tombstones stay under maxTombstones, else rewritten from
// the previous one; either way its live rows are exactly the table's. A
// changed learning gets a new row number even when it had the highest one.
func TestVectorFilePatched(t *testing.T) {
	k := newKB(t)
	ids := []string{"lrn-a", "lrn-b", "lrn-c", "lrn-d", "lrn-e", "lrn-f"}
	for _, id := range ids {
		k.write(t, simple(id, "words of "+id))
	}
	ix := openWith(t, k, WithEmbedder(hashEmbedder(t, 32)))
	fileMatchesTable(t, ix, k)
	got := watchExports(t)

	steps := []struct {
		name string
		do   func()
	}{
		{"edit one", func() { k.write(t, simple("lrn-c", "kafka consumer lag")) }},
		{"add one", func() { k.write(t, simple("lrn-g", "docker ENOSPC")) }},
		{"remove one", func() {
			if err := os.Remove(k.docPath("lrn-a")); err != nil {
				t.Fatal(err)
			}
		}},
		{"edit the newest", func() { k.write(t, simple("lrn-g", "docker build cache ENOSPC again")) }},
		{"add, edit and remove at once", func() {
			k.write(t, simple("lrn-h", "terraform state lock"))
			k.write(t, simple("lrn-b", "nginx upstream timeout"))
			if err := os.Remove(k.docPath("lrn-d")); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, s := range steps {
		var before int64
		if s.name == "edit the newest" {
			before = rowOf(t, ix, "lrn-g")
		}
		ino := inodeOf(statT(t, filepath.Join(k.idx, "vectors.f32")))
		s.do()
		*got = nil
		update(t, ix, UpdateOptions{})
		if !slices.Equal(*got, []bool{true}) {
			t.Errorf("%s: exports %v, want one patch", s.name, *got)
		}
		liveFileMatchesTable(t, ix, k)
		inPlace := inodeOf(statT(t, filepath.Join(k.idx, "vectors.f32"))) == ino
		if s.name == "edit one" && !inPlace {
			t.Errorf("%s: vectors.f32 was replaced, want it patched in place", s.name)
		}
		if !inPlace {
			fileMatchesTable(t, ix, k) // a rewrite leaves no tombstones
		}
		if s.name == "edit the newest" {
			if after := rowOf(t, ix, "lrn-g"); after <= before {
				t.Errorf("the newest learning, changed, went from row %d to %d: a row number was reused", before, after)
			}
		}
	}
	res := search(t, ix, Query{Text: "docker build cache", Signals: Vector})
	if len(res) == 0 || res[0].ID != "lrn-g" {
		t.Fatalf("vector search after patches: %+v", res)
	}
}

// An export lost after its commit (a crash) leaves a file out of step with
// the table; the next update notices instead of patching the old file, and
// writes the table's vectors.
func TestVectorPatchAfterLostExport(t *testing.T) {
	k := newKB(t)
	for _, id := range []string{"lrn-a", "lrn-b", "lrn-c"} {
		k.write(t, simple(id, "words of "+id))
	}
	ix := openWith(t, k, WithEmbedder(hashEmbedder(t, 32)))
	path := filepath.Join(k.idx, "vectors.f32")
	old, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	k.write(t, simple("lrn-b", "changed while the export was lost"))
	update(t, ix, UpdateOptions{})
	if err := os.WriteFile(path, old, 0o600); err != nil { // the lost export
		t.Fatal(err)
	}
	got := watchExports(t)
	k.write(t, simple("lrn-c", "the next change"))
	update(t, ix, UpdateOptions{})
	if !slices.Equal(*got, []bool{false}) {
		t.Errorf("exports %v, want one rewrite from the table", *got)
	}
	fileMatchesTable(t, ix, k)
}

// A full reindex numbers rows from 1 again and rewrites the file from the
// table.
func TestFullReindexRenumbers(t *testing.T) {
	k := newKB(t)
	for _, id := range []string{"lrn-a", "lrn-b", "lrn-c"} {
		k.write(t, simple(id, "words of "+id))
	}
	ix := openWith(t, k, WithEmbedder(hashEmbedder(t, 32)))
	for i := range 3 {
		k.write(t, simple("lrn-a", "edit "+string(rune('x'+i))))
		update(t, ix, UpdateOptions{})
	}
	if n := rowOf(t, ix, "lrn-a"); n <= 3 {
		t.Fatalf("edited learning kept row %d", n)
	}
	got := watchExports(t)
	update(t, ix, UpdateOptions{Full: true})
	var top int64
	if err := ix.db.QueryRowContext(context.Background(), `SELECT max(n) FROM docs`).Scan(&top); err != nil || top != 3 {
		t.Fatalf("after a full reindex the highest row is %d (%v), want 3", top, err)
	}
	if !slices.Equal(*got, []bool{false}) {
		t.Errorf("exports %v, want one rewrite", *got)
	}
	fileMatchesTable(t, ix, k)
}

func statT(t *testing.T, path string) os.FileInfo {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi
}
