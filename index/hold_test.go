package index

import (
	"context"
	"database/sql"
	"testing"
)

// A schema 15 catalog gains the hold, helpful and feedback columns in
// place, even in a hook's Open (NoRebuild): adding columns with defaults
// costs nothing, and a learning indexed afterwards fills them.
func TestOpenMigratesSchema15HoldColumns(t *testing.T) {
	k := kbWithCatalog(t)
	db, err := sql.Open("sqlite3", k.catalog())
	if err != nil {
		t.Fatal(err)
	}
	for _, stmt := range append(dropHoldColumns, `PRAGMA user_version = 15`) {
		if _, err := db.Exec(stmt); err != nil {
			db.Close()
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	db.Close()
	ix, err := Open(context.Background(), k.docs, k.idx, NoRebuild())
	if err != nil {
		t.Fatalf("Open(NoRebuild) of a schema 15 catalog: %v", err)
	}
	defer ix.Close()
	if ix.Rebuilt != "" {
		t.Errorf("Rebuilt = %q, want a migration in place", ix.Rebuilt)
	}
	var version, n int
	if err := ix.db.QueryRow(`PRAGMA user_version`).Scan(&version); err != nil || version != schemaVersion {
		t.Errorf("user_version = %d (%v), want %d", version, err, schemaVersion)
	}
	if err := ix.db.QueryRow(`SELECT count(*) FROM docs WHERE hold = '' AND helpful = 0 AND feedback = ''`).Scan(&n); err != nil || n == 0 {
		t.Errorf("the migrated docs table: %d rows with empty marks, %v", n, err)
	}
	searchable(t, ix)
}
