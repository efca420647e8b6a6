package index

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/reflectkb/reflect/index/vector"
	"github.com/reflectkb/reflect/store"
)

// indexState is what a targeted update must leave exactly as a full
// incremental Update would: the docs rows (by id, row numbers aside), the
// corpus totals, the counts, the vectors by id, and what searches find.
type indexState struct {
	Docs     map[string][]any
	Totals   string
	Grouping string // meta.graph_changes
	Counts   Counts
	Vectors  map[string][]float32
	Searches map[string][]string
	Scores   map[string][]float64
}

var stateQueries = []string{"cache widget", "flush widgetctl", "oauth cookie samesite", "postgres pool", "seed words"}

func stateOf(t *testing.T, ix *Index) indexState {
	t.Helper()
	s := indexState{Docs: map[string][]any{}, Vectors: map[string][]float32{}, Searches: map[string][]string{}, Scores: map[string][]float64{}}
	rows, err := ix.db.Query(`SELECT id, size, hash, title, key_insight, type, confidence, scope, project, tags, updated, cites FROM docs`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id string
		var size int64
		var f [10]sql.NullString
		dst := []any{&id, &size}
		for i := range f {
			dst = append(dst, &f[i])
		}
		if err := rows.Scan(dst...); err != nil {
			t.Fatal(err)
		}
		s.Docs[id] = []any{size, f}
	}
	rows.Close()
	if err := ix.db.QueryRow(`SELECT value FROM meta WHERE key='field_totals'`).Scan(&s.Totals); err != nil {
		t.Fatal(err)
	}
	_ = ix.db.QueryRow(`SELECT value FROM meta WHERE key='graph_changes'`).Scan(&s.Grouping)
	s.Counts = counts(t, ix)
	byRow := map[uint64]string{}
	dr, err := ix.db.Query(`SELECT n, id FROM docs`)
	if err != nil {
		t.Fatal(err)
	}
	for dr.Next() {
		var n uint64
		var id string
		if err := dr.Scan(&n, &id); err != nil {
			t.Fatal(err)
		}
		byRow[n] = id
	}
	dr.Close()
	for _, r := range tableRows(t, ix) {
		if id, ok := byRow[r.Key]; ok {
			s.Vectors[id] = r.Vec
		}
	}
	for _, q := range stateQueries {
		res := search(t, ix, Query{Text: q, Limit: 20})
		s.Searches[q] = ids(res)
		for _, r := range res {
			s.Scores[q] = append(s.Scores[q], math.Round(r.Score*1e9)/1e9)
		}
	}
	return s
}

// mirrorDocs makes dst's documents/ hold exactly src's files.
func mirrorDocs(t *testing.T, src, dst kb) {
	t.Helper()
	have, _ := os.ReadDir(dst.docs)
	for _, e := range have {
		if _, err := os.Stat(filepath.Join(src.docs, e.Name())); os.IsNotExist(err) {
			if err := os.Remove(filepath.Join(dst.docs, e.Name())); err != nil {
				t.Fatal(err)
			}
		}
	}
	want, _ := os.ReadDir(src.docs)
	for _, e := range want {
		data, err := os.ReadFile(filepath.Join(src.docs, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		old, err := os.ReadFile(filepath.Join(dst.docs, e.Name()))
		if err == nil && slices.Equal(old, data) {
			continue
		}
		writeRaw(t, filepath.Join(dst.docs, e.Name()), string(data))
	}
}

// liveFileMatchesTable fails t unless vectors.f32, apart from its
// tombstones (zeroed rows), holds exactly the vectors table, in order.
func liveFileMatchesTable(t *testing.T, ix *Index, k kb) {
	t.Helper()
	f, err := vector.Open(filepath.Join(k.idx, "vectors.f32"))
	if err != nil {
		t.Fatalf("vectors.f32: %v", err)
	}
	defer f.Close()
	var live []vector.Row
	for i := range f.Len() {
		if !zero(f.Vector(i)) {
			live = append(live, vector.Row{Key: f.Key(i), Vec: f.Vector(i)})
		}
	}
	i := 0
	for _, r := range tableRows(t, ix) {
		if i >= len(live) || live[i].Key != r.Key || !slices.Equal(live[i].Vec, r.Vec) {
			t.Fatalf("live file row %d is not table row n=%d (or their vectors differ)", i, r.Key)
		}
		i++
	}
	if i != len(live) {
		t.Fatalf("file has %d live rows, table %d", len(live), i)
	}
	codesMatchFile(t, f)
}

func learningOf(title, words string) *store.Learning {
	return &store.Learning{ID: store.NewID(title, ""), Title: title, Confidence: "high", Created: t0,
		Tags: []string{"widget"}, Body: "## Problem\n" + words + "\n"}
}

// Put and Forget index only what they changed, and leave the index as a
// full incremental Update over the same documents does: the same rows,
// corpus totals, counts, vectors and search results; vectors.f32 is the
// table's. Then Refresh has nothing to do: the targeted update moved the
// directory stamp, since nothing else changed documents/.
func TestTargetedMatchesUpdate(t *testing.T) {
	ctx := context.Background()
	a, b := newKB(t), newKB(t)
	for i := range 8 {
		d := simple(fmt.Sprintf("lrn-seed-%d", i), fmt.Sprintf("seed words cache widget number%d", i))
		a.write(t, d)
		b.write(t, d)
	}
	emb := WithEmbedder(hashEmbedder(t, 32))
	ia, ib := openWith(t, a, emb), openWith(t, b, emb)
	// Group the entities, so that both count the changes since.
	update(t, ia, UpdateOptions{Communities: true})
	update(t, ib, UpdateOptions{Communities: true})
	cookie := cookieLearning()
	steps := []struct {
		name string
		run  func() error
	}{
		{"add", func() error {
			_, err := put(ctx, ia, learningOf("Flush the widget cache with widgetctl", "widgetctl flush clears the widget cache"), nil, t0)
			return err
		}},
		{"add another", func() error { _, err := put(ctx, ia, cookie, nil, t0); return err }},
		{"update", func() error {
			_, err := put(ctx, ia, learningOf("Flush the widget cache with widgetctl", "widgetctl flush --all also drops the postgres pool"), nil, t0.Add(1))
			return err
		}},
		{"add the same again", func() error { _, err := put(ctx, ia, cookieLearning(), nil, t0); return err }},
		{"forget one", func() error { return forget(ctx, ia, "lrn-seed-3") }},
		{"forget several", func() error { return forget(ctx, ia, "lrn-seed-0", cookie.ID, "lrn-seed-7") }},
	}
	for _, s := range steps {
		if err := s.run(); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		mirrorDocs(t, a, b)
		update(t, ib, UpdateOptions{})
		got, want := stateOf(t, ia), stateOf(t, ib)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("after %s the targeted index differs from a full incremental update:\n got %+v\nwant %+v", s.name, got, want)
		}
		liveFileMatchesTable(t, ia, a)
		if p, err := ia.VectorFileProblem(ctx); p != "" || err != nil {
			t.Errorf("after %s VectorFileProblem = %q, %v", s.name, p, err)
		}
		if st, ran, err := ia.Refresh(ctx); err != nil || ran {
			t.Errorf("after %s Refresh ran (%+v, %v): the targeted update did not move docs_stamp", s.name, countersOf(st), err)
		}
	}
}

// A document written into documents/ without being indexed just before a
// Put is not hidden by the Put: the stamp stays behind, and the next
// Refresh scans and indexes it.
func TestTargetedKeepsForeignWriteVisible(t *testing.T) {
	ctx := context.Background()
	k := newKB(t)
	k.write(t, simple("lrn-seed", "seed words"))
	ix := openWith(t, k, WithEmbedder(hashEmbedder(t, 32)))
	for i, write := range []func(){
		func() { k.write(t, simple("lrn-foreign-a", "foreign alpha")) },
		func() { // a replacement by rename: same name, new inode
			p := k.docPath("lrn-seed")
			writeRaw(t, p+".new", simple("lrn-seed", "seed words replaced by git").render())
			if err := os.Rename(p+".new", p); err != nil {
				t.Fatal(err)
			}
		},
		func() { os.Remove(k.docPath("lrn-foreign-a")) },
	} {
		write()
		if _, err := put(ctx, ix, learningOf(fmt.Sprintf("Own learning %d", i), "own words"), nil, t0); err != nil {
			t.Fatal(err)
		}
		if _, ran, err := ix.Refresh(ctx); err != nil || !ran {
			t.Fatalf("write %d: Refresh ran=%v (%v): the Put hid a foreign change", i, ran, err)
		}
		if st := update(t, ix, UpdateOptions{}); st.Added+st.Updated+st.Removed != 0 {
			t.Fatalf("write %d: an Update after Refresh still had work: %+v", i, countersOf(st))
		}
	}
}

// Forget zeroes its rows of vectors.f32 in place until tombstones would
// pass maxTombstones of the file, when the file is rewritten without them;
// an incremental Update's export patches in place by the same rule.
func TestTargetedTombstonesCompacted(t *testing.T) {
	ctx := context.Background()
	k := newKB(t)
	for i := range 8 {
		k.write(t, simple(fmt.Sprintf("lrn-seed-%d", i), fmt.Sprintf("seed words number%d", i)))
	}
	ix := openWith(t, k, WithEmbedder(hashEmbedder(t, 32)))
	if err := forget(ctx, ix, "lrn-seed-1"); err != nil {
		t.Fatal(err)
	}
	liveFileMatchesTable(t, ix, k)
	if n := vectorRows(t, k); n != 8 {
		t.Errorf("after one Forget vectors.f32 has %d rows, want 8 (one zeroed in place)", n)
	}
	if err := forget(ctx, ix, "lrn-seed-2", "lrn-seed-3"); err != nil {
		t.Fatal(err)
	}
	fileMatchesTable(t, ix, k) // 3 of 8 rows: rewritten
	if err := forget(ctx, ix, "lrn-seed-4"); err != nil {
		t.Fatal(err)
	}
	k.write(t, simple("lrn-new", "new words"))
	update(t, ix, UpdateOptions{})
	liveFileMatchesTable(t, ix, k)
	if n := vectorRows(t, k); n != 6 {
		t.Errorf("after a Forget and an Update vectors.f32 has %d rows, want 6 (4 live, one zeroed, one appended)", n)
	}
}

func vectorRows(t *testing.T, k kb) int {
	t.Helper()
	f, err := vector.Open(filepath.Join(k.idx, "vectors.f32"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	return f.Len()
}

// A catalog without a digest for its stamp (written by a build before
// docs_digest) never lets a targeted update move the stamp: the next
// Refresh scans, and stores one.
func TestTargetedWithoutDigest(t *testing.T) {
	ctx := context.Background()
	k := newKB(t)
	k.write(t, simple("lrn-seed", "seed words"))
	ix := openWith(t, k)
	if _, err := ix.db.Exec(`DELETE FROM meta WHERE key='docs_digest'`); err != nil {
		t.Fatal(err)
	}
	if _, err := put(ctx, ix, learningOf("Own learning", "own words"), nil, t0); err != nil {
		t.Fatal(err)
	}
	if _, ran, err := ix.Refresh(ctx); err != nil || !ran {
		t.Fatalf("Refresh ran=%v (%v) after a Put with no digest to compare with", ran, err)
	}
	if _, err := put(ctx, ix, learningOf("Second learning", "more words"), nil, t0); err != nil {
		t.Fatal(err)
	}
	if _, ran, err := ix.Refresh(ctx); err != nil || ran {
		t.Fatalf("Refresh ran=%v (%v): the Refresh before did not store a digest", ran, err)
	}
}
