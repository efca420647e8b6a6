package index

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// schema17 turns a current catalog into schema 17's: the strength a REAL
// column (and in relations_dst), a mention's source spelled out, and the
// vectors table holding every vector's floats (those of vectors.f32).
var schema17 = []string{
	`CREATE TABLE relations_17(src INTEGER NOT NULL, dst INTEGER NOT NULL, doc INTEGER NOT NULL, kind TEXT NOT NULL,
		strength REAL NOT NULL, type TEXT GENERATED ALWAYS AS (CASE kind WHEN '' THEN 'relates_to' ELSE kind END) VIRTUAL,
		PRIMARY KEY(src, doc, dst, kind)) WITHOUT ROWID`,
	`INSERT INTO relations_17(src, dst, doc, kind, strength) SELECT src, dst, doc, kind, strength FROM relations`,
	`DROP TABLE relations`,
	`ALTER TABLE relations_17 RENAME TO relations`,
	`CREATE INDEX relations_dst ON relations(dst, src, strength)`,
	// A curated relation with a fractional strength, which must stay so.
	`INSERT INTO relations(src, dst, doc, kind, strength) SELECT src, dst, doc, 'caused_by', 7.5 FROM relations LIMIT 1`,
	`CREATE TABLE mentions_17(entity INTEGER NOT NULL, doc INTEGER NOT NULL, source TEXT NOT NULL, PRIMARY KEY(entity, doc)) WITHOUT ROWID`,
	`INSERT INTO mentions_17 SELECT entity, doc, source FROM mentions`,
	`DROP TABLE mentions`,
	`ALTER TABLE mentions_17 RENAME TO mentions`,
	`CREATE INDEX mentions_doc ON mentions(doc)`,
	`CREATE TRIGGER mentions_df_insert AFTER INSERT ON mentions BEGIN UPDATE entities SET df = df + 1 WHERE id = NEW.entity; END`,
	`CREATE TRIGGER mentions_df_delete AFTER DELETE ON mentions BEGIN UPDATE entities SET df = df - 1 WHERE id = OLD.entity; END`,
	// A mention from a sidecar, which must keep its source.
	`UPDATE mentions SET source = 'sidecar' WHERE entity = (SELECT min(entity) FROM mentions)`,
	`PRAGMA user_version = 17`,
}

// graphRows is the graph as a reader sees it: every relation with its
// type and strength, every mention with its source, every entity's df.
func graphRows(t *testing.T, db *sql.DB) string {
	t.Helper()
	_, rels := relationRows(t, db)
	var ments, dfs string
	if err := db.QueryRow(`SELECT group_concat(m, ';') FROM (SELECT entity || ':' || doc || ':' || source AS m FROM mentions ORDER BY m)`).Scan(&ments); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow(`SELECT group_concat(e, ';') FROM (SELECT id || ':' || df AS e FROM entities ORDER BY id)`).Scan(&dfs); err != nil {
		t.Fatal(err)
	}
	return rels + "\n" + ments + "\n" + dfs
}

// toSchema17 rewrites k's catalog as schema 17 wrote it, the table's
// copy of each vector taken from vectors.f32, and returns the graph.
func toSchema17(t *testing.T, k kb) string {
	t.Helper()
	rows := fileRows(t, k)
	db, err := sql.Open("sqlite3", k.catalog())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, r := range rows {
		if _, err := db.Exec(`UPDATE vectors SET v = ? WHERE n = ?`, encodeVector(r.Vec), int64(r.Key)); err != nil {
			t.Fatal(err)
		}
	}
	for _, stmt := range schema17 {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	if n, floats := blobCounts(t, db); n == 0 || floats != n {
		t.Fatalf("schema 17 vectors table: %d rows, %d with floats", n, floats)
	}
	return graphRows(t, db)
}

// A schema 17 catalog is migrated in place, in a hook's Open too: the
// relations and mentions rewritten with every row, type, strength and
// source kept, the hash embedder's floats dropped from the vectors table,
// and vectors.f32 left as it was, in step with the table.
func TestOpenMigratesSchema17(t *testing.T) {
	ctx := context.Background()
	k := kbWithRelations(t)
	e := hashEmbedder(t, 32)
	ix := openWith(t, k, WithEmbedder(e))
	update(t, ix, UpdateOptions{})
	queries := []string{"haproxy", "redis sentinel", "cron schedule"}
	found := map[string][]string{}
	for _, q := range queries {
		found[q] = ids(search(t, ix, Query{Text: q}))
	}
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	file, err := os.ReadFile(filepath.Join(k.idx, "vectors.f32"))
	if err != nil {
		t.Fatal(err)
	}
	before := toSchema17(t, k)

	ix, err = Open(ctx, k.docs, k.idx, NoRebuild(), WithEmbedder(e))
	if err != nil {
		t.Fatalf("Open(NoRebuild) of a schema 17 catalog: %v", err)
	}
	defer ix.Close()
	if ix.Rebuilt != "" {
		t.Errorf("Rebuilt = %q, want a migration in place", ix.Rebuilt)
	}
	var version int
	if err := ix.db.QueryRow(`PRAGMA user_version`).Scan(&version); err != nil || version != schemaVersion {
		t.Errorf("user_version = %d (%v), want %d", version, err, schemaVersion)
	}
	if after := graphRows(t, ix.db); after != before {
		t.Errorf("graph after the migration:\n%s\nbefore:\n%s", after, before)
	}
	checkRelationsLayout(t, ix.db)
	var reals, spelled int
	if err := ix.db.QueryRow(`SELECT count(CASE WHEN typeof(st) = 'real' THEN 1 END), (SELECT count(*) FROM mentions WHERE origin = 'heuristic') FROM relations`).Scan(&reals, &spelled); err != nil {
		t.Fatal(err)
	}
	if reals != 1 || spelled != 0 {
		t.Errorf("%d strengths stored as REAL (want 1, the 7.5), %d mentions store heuristic spelled out", reals, spelled)
	}
	if n, floats := blobCounts(t, ix.db); n == 0 || floats != 0 {
		t.Errorf("vectors table after the migration: %d rows, %d with floats; want none with floats", n, floats)
	}
	if p, err := ix.VectorFileProblem(ctx); err != nil || p != "" {
		t.Errorf("VectorFileProblem = %q, %v; want none", p, err)
	}
	update(t, ix, UpdateOptions{})
	if got, err := os.ReadFile(filepath.Join(k.idx, "vectors.f32")); err != nil || string(got) != string(file) {
		t.Errorf("vectors.f32 changed by the migration and an update (%v)", err)
	}
	fileMatchesTable(t, ix, k)
	for _, q := range queries {
		if got := ids(search(t, ix, Query{Text: q})); !slices.Equal(got, found[q]) {
			t.Errorf("search %q after the migration = %v, before %v", q, got, found[q])
		}
	}
}

// A model's vectors are not recomputable: the migration keeps their floats.
func TestMigrationKeepsModelVectors(t *testing.T) {
	k := kbWithRelations(t)
	ix := openWith(t, k, WithEmbedder(conceptEmbedder{name: "ollama"}))
	update(t, ix, UpdateOptions{})
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	toSchema17(t, k)
	ix, err := Open(context.Background(), k.docs, k.idx, NoRebuild())
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if n, floats := blobCounts(t, ix.db); n == 0 || floats != n {
		t.Errorf("a model's vectors table after the migration: %d rows, %d with floats", n, floats)
	}
}
