package index

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"testing"
)

// oldRelations is the relations table of schema 16 and before: a rowid
// table with the type spelled out and three secondary indexes.
var oldRelations = []string{
	`CREATE TABLE relations_old(src INTEGER NOT NULL, dst INTEGER NOT NULL, type TEXT NOT NULL, strength REAL NOT NULL, doc INTEGER NOT NULL)`,
	`INSERT INTO relations_old SELECT src, dst, type, strength, doc FROM relations`,
	`DROP TABLE relations`,
	`ALTER TABLE relations_old RENAME TO relations`,
	`CREATE INDEX relations_src ON relations(src, dst, strength)`,
	`CREATE INDEX relations_dst ON relations(dst, src, strength)`,
	`CREATE INDEX relations_doc ON relations(doc)`,
	// A curated relation of another type, which the migration must keep.
	`INSERT INTO relations(src, dst, type, strength, doc) SELECT src, dst, 'caused_by', 7, doc FROM relations LIMIT 1`,
}

// kbWithRelations is kbWithCatalog's KB with two learnings whose
// entities are related, indexed.
func kbWithRelations(t *testing.T) kb {
	t.Helper()
	k := kbWithCatalog(t)
	k.write(t, simple("lrn-redis-a", "redis cluster failover with sentinel and docker compose"))
	k.write(t, simple("lrn-redis-b", "redis sentinel quorum and docker networking"))
	ix := k.open(t)
	update(t, ix, UpdateOptions{})
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	return k
}

func relationRows(t *testing.T, db interface {
	QueryRow(string, ...any) *sql.Row
}) (rows int, text string) {
	t.Helper()
	if err := db.QueryRow(`SELECT count(*), coalesce(group_concat(r, ';'), '') FROM (
		SELECT src || '>' || dst || ':' || type || ':' || strength || '@' || doc AS r FROM relations ORDER BY r)`).Scan(&rows, &text); err != nil {
		t.Fatal(err)
	}
	return rows, text
}

// A schema 16 catalog's relations are rebuilt in place, in a hook's Open
// too, into the table without a rowid and with one secondary index: every
// relation kept with its type and strength, and the graph still found
// from both ends.
func TestOpenMigratesSchema16Relations(t *testing.T) {
	k := kbWithRelations(t)
	db, err := sql.Open("sqlite3", k.catalog())
	if err != nil {
		t.Fatal(err)
	}
	for _, stmt := range append(oldRelations, `PRAGMA user_version = 16`) {
		if _, err := db.Exec(stmt); err != nil {
			db.Close()
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	n, before := relationRows(t, db)
	db.Close()
	if n < 2 {
		t.Fatalf("%d relations before the migration: the test would check nothing", n)
	}
	ix, err := Open(context.Background(), k.docs, k.idx, NoRebuild())
	if err != nil {
		t.Fatalf("Open(NoRebuild) of a schema 16 catalog: %v", err)
	}
	defer ix.Close()
	if ix.Rebuilt != "" {
		t.Errorf("Rebuilt = %q, want a migration in place", ix.Rebuilt)
	}
	var version int
	if err := ix.db.QueryRow(`PRAGMA user_version`).Scan(&version); err != nil || version != schemaVersion {
		t.Errorf("user_version = %d (%v), want %d", version, err, schemaVersion)
	}
	if m, after := relationRows(t, ix.db); m != n || after != before {
		t.Errorf("relations after the migration (%d):\n%s\nbefore (%d):\n%s", m, after, n, before)
	}
	checkRelationsLayout(t, ix.db)
	searchable(t, ix)
}

// checkRelationsLayout asserts the relations table has no rowid and the
// reverse direction as its only secondary index, with relates_to stored
// as an empty kind.
func checkRelationsLayout(t *testing.T, db *sql.DB) {
	t.Helper()
	var indexes, rowid, spelled int
	if err := db.QueryRow(`SELECT count(*) FROM sqlite_master WHERE type = 'index' AND tbl_name = 'relations' AND sql IS NOT NULL`).Scan(&indexes); err != nil {
		t.Fatal(err)
	}
	if indexes != 1 {
		t.Errorf("relations has %d secondary indexes, want 1 (relations_dst)", indexes)
	}
	if err := db.QueryRow(`SELECT count(*) FROM pragma_index_list('relations') WHERE origin = 'pk'`).Scan(&rowid); err != nil || rowid != 1 {
		t.Errorf("relations has %d primary key indexes (%v), want 1 (WITHOUT ROWID)", rowid, err)
	}
	if err := db.QueryRow(`SELECT count(*) FROM relations WHERE kind = 'relates_to'`).Scan(&spelled); err != nil || spelled != 0 {
		t.Errorf("%d relations store relates_to spelled out (%v)", spelled, err)
	}
}

// A new catalog's relations are laid out the same way.
func TestRelationsLayout(t *testing.T) {
	k := kbWithRelations(t)
	ix := k.open(t)
	checkRelationsLayout(t, ix.db)
	var n int
	if err := ix.db.QueryRow(`SELECT count(*) FROM relations WHERE type = 'relates_to'`).Scan(&n); err != nil || n == 0 {
		t.Fatalf("%d relates_to relations (%v): the test would check nothing", n, err)
	}
}

// A hook's Open leaves a large graph's migration to the reindex it
// starts (ErrNeedsRebuild), which migrates it in place, every relation
// kept.
func TestHookLeavesLargeRelationsMigration(t *testing.T) {
	k := kbWithRelations(t)
	db, err := sql.Open("sqlite3", k.catalog())
	if err != nil {
		t.Fatal(err)
	}
	many := fmt.Sprintf(`WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x <= %d)
		INSERT INTO relations(src, dst, type, strength, doc) SELECT src, dst, 'kind' || x, 1, doc FROM c, (SELECT * FROM relations LIMIT 1)`, hookMigrateRelations)
	for _, stmt := range append(oldRelations, many, `PRAGMA user_version = 16`) {
		if _, err := db.Exec(stmt); err != nil {
			db.Close()
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	n, before := relationRows(t, db)
	db.Close()
	if n <= hookMigrateRelations {
		t.Fatalf("%d relations: not above the hook's bound", n)
	}
	if ix, err := Open(context.Background(), k.docs, k.idx, NoRebuild()); !errors.Is(err, ErrNeedsRebuild) {
		if err == nil {
			ix.Close()
		}
		t.Fatalf("Open(NoRebuild) of a large schema 16 graph: %v, want ErrNeedsRebuild", err)
	}
	ix := k.open(t)
	if ix.Rebuilt != "" {
		t.Errorf("Rebuilt = %q, want a migration in place", ix.Rebuilt)
	}
	if m, after := relationRows(t, ix.db); m != n || after != before {
		t.Errorf("%d relations after the migration, %d before (same rows: %v)", m, n, after == before)
	}
	checkRelationsLayout(t, ix.db)
}
