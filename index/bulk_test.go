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
// through relations_src/dst, and later incremental updates rely on the
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
	for _, name := range []string{"mentions_doc", "relations_src", "relations_dst", "relations_doc", "mentions_df_insert", "mentions_df_delete"} {
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
