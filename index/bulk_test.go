package index

import (
	"context"
	"os"
	"testing"
)

// graphState is what a full reindex's bulk load must leave as the
// incremental path would: every entity's df equal to its mentions, and
// the secondary indexes and df triggers in place.
func graphState(t *testing.T, ix *Index) (objects map[string]bool, wrongDF int, entities int) {
	t.Helper()
	ctx := context.Background()
	objects = map[string]bool{}
	rows, err := ix.db.QueryContext(ctx, `SELECT name FROM sqlite_master WHERE type IN ('index','trigger')`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			t.Fatal(err)
		}
		objects[name] = true
	}
	rows.Close()
	if err := ix.db.QueryRowContext(ctx, `SELECT count(*), coalesce(sum(df <> (SELECT count(*) FROM mentions m WHERE m.entity = e.id)), 0) FROM entities e`).Scan(&entities, &wrongDF); err != nil {
		t.Fatal(err)
	}
	return objects, wrongDF, entities
}

// A full reindex loads the graph without its secondary indexes and df
// triggers (graph.BeginBulk) and must put both back: searches expand
// through relations and relations_dst, and later incremental updates rely on the
// triggers to keep df.
func TestFullReindexRestoresGraphIndexes(t *testing.T) {
	k := newKB(t)
	k.write(t, simple("lrn-redis-a", "redis cluster failover with sentinel and docker compose"))
	k.write(t, simple("lrn-redis-b", "redis sentinel quorum and docker networking"))
	k.write(t, simple("lrn-pg", "postgres connection pool and pgbouncer with docker"))
	// Open indexes a new catalog in bulk too (every learning is new).
	ix := k.open(t)
	before, wrongDF, entities := graphState(t, ix)
	if wrongDF > 0 {
		t.Errorf("%d of %d entities have a df that is not their number of mentions after the first index", wrongDF, entities)
	}
	update(t, ix, UpdateOptions{Full: true, Communities: true})
	after, wrongDF, entities := graphState(t, ix)
	if entities == 0 {
		t.Fatal("no entities extracted: the test would check nothing")
	}
	for _, name := range []string{"mentions_doc", "relations_dst", "mentions_df_insert", "mentions_df_delete"} {
		if !before[name] || !after[name] {
			t.Errorf("%s: present before full reindex %v, after %v", name, before[name], after[name])
		}
	}
	if wrongDF > 0 {
		t.Errorf("%d of %d entities have a df that is not their number of mentions after a full reindex", wrongDF, entities)
	}
	// The triggers work again: an incremental add and a removal keep df.
	k.write(t, simple("lrn-redis-c", "redis sentinel failover timeout under docker"))
	update(t, ix, UpdateOptions{})
	if err := os.Remove(k.docPath("lrn-redis-a")); err != nil {
		t.Fatal(err)
	}
	update(t, ix, UpdateOptions{})
	if _, wrongDF, entities = graphState(t, ix); wrongDF > 0 {
		t.Errorf("%d of %d entities have a wrong df after incremental updates", wrongDF, entities)
	}
}

// postingsAfter runs a postings writer over docs (row → text) in the order
// given, in a transaction that is rolled back, and returns every chunk's
// entries as the table holds them.
func postingsAfter(t *testing.T, ix *Index, fresh bool, order []int64, docs map[int64]string) map[chunkKey]map[int64]entryOf {
	t.Helper()
	ctx := context.Background()
	tx, err := ix.db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `DELETE FROM postings`); err != nil {
		t.Fatal(err)
	}
	p := newPostingsWriter(fresh)
	stems := map[string]string{}
	for _, n := range order {
		if err := p.startDoc(ctx, tx, n); err != nil {
			t.Fatal(err)
		}
		p.add(n, computeStats([numFields]string{docs[n], "", "", docs[n] + " body"}, stems))
	}
	if err := p.flush(ctx, tx); err != nil {
		t.Fatal(err)
	}
	out := map[chunkKey]map[int64]entryOf{}
	// Each chunk's norms too, as entries of a key no term can have
	// (their tf holds the field lengths).
	nrows, err := tx.QueryContext(ctx, `SELECT chunk, data FROM norms`)
	if err != nil {
		t.Fatal(err)
	}
	for nrows.Next() {
		var c int64
		var data []byte
		if err := nrows.Scan(&c, &data); err != nil {
			t.Fatal(err)
		}
		got := map[int64]entryOf{}
		for off := 0; off*normWidth < len(data); off++ {
			n := c<<chunkShift | int64(off)
			got[n] = entryOf{n: n, tf: normAt(data, off)}
		}
		out[chunkKey{"\x00norms", c}] = got
	}
	nrows.Close()
	rows, err := tx.QueryContext(ctx, `SELECT term, chunk, data FROM postings`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var k chunkKey
		var data []byte
		if err := rows.Scan(&k.term, &k.chunk, &data); err != nil {
			t.Fatal(err)
		}
		count, entries := chunkCount(data)
		got := map[int64]entryOf{}
		eachEntry(k.chunk, entries, func(e *entryOf) { got[e.n] = *e })
		if len(got) != count {
			t.Errorf("%v: count %d, %d entries", k, count, len(got))
		}
		out[k] = got
	}
	return out
}

// A fresh (full reindex) postings writer flushes each chunk as the rows
// move past it, to bound its memory; the table must end up as one flush
// at the end leaves it, including when rows arrive out of order.
func TestFreshPostingsFlushPerChunk(t *testing.T) {
	k := newKB(t)
	k.write(t, simple("lrn-x", "placeholder"))
	ix := k.open(t)
	docs := map[int64]string{
		1: "redis sentinel failover", 4095: "redis cluster", 4096: "postgres pool redis",
		4097: "postgres vacuum", 9000: "kafka consumer redis", 9001: "kafka lag",
		13000: "redis again",
	}
	inOrder := []int64{1, 4095, 4096, 4097, 9000, 9001, 13000}
	want := postingsAfter(t, ix, false, inOrder, docs)
	if len(want) < 8 {
		t.Fatalf("only %d chunks written: the test would not span chunks", len(want))
	}
	for name, order := range map[string][]int64{
		"in order":     inOrder,
		"out of order": {4096, 4097, 9000, 1, 4095, 13000, 9001},
	} {
		got := postingsAfter(t, ix, true, order, docs)
		if len(got) != len(want) {
			t.Errorf("%s: %d chunks, want %d", name, len(got), len(want))
		}
		for key, w := range want {
			g := got[key]
			if len(g) != len(w) {
				t.Errorf("%s: %v holds %d entries, want %d", name, key, len(g), len(w))
				continue
			}
			for n, e := range w {
				if g[n] != e {
					t.Errorf("%s: %v row %d = %+v, want %+v", name, key, n, g[n], e)
				}
			}
		}
	}
}

// Updates read the catalog without the memory map (so a full reindex's
// resident memory does not grow with the catalog) and give it back to the
// searches that follow in the same process.
func TestUpdateRestoresMmap(t *testing.T) {
	k := newKB(t)
	k.write(t, simple("lrn-a", "redis sentinel failover"))
	ix := k.open(t)
	for _, opts := range []UpdateOptions{{}, {Full: true, Communities: true}} {
		update(t, ix, opts)
		var size int64
		if err := ix.db.QueryRow(`PRAGMA mmap_size`).Scan(&size); err != nil {
			t.Fatal(err)
		}
		if size != mmapSize {
			t.Errorf("after Update(%+v) mmap_size is %d, want %d", opts, size, mmapSize)
		}
	}
}
