package index

import (
	"database/sql"
	"strings"
	"testing"
)

// A catalog written by the build before the smaller index (schema 9: an
// FTS5 copy of every learning's text, term-frequency records in stats,
// postings entries carrying field lengths) is rebuilt on Open, not read
// with the new decoders.
func TestOpenRebuildsSchema9Catalog(t *testing.T) {
	k := kbWithCatalog(t)
	db, err := sql.Open("sqlite3", k.catalog())
	if err != nil {
		t.Fatal(err)
	}
	for _, stmt := range []string{
		`CREATE VIRTUAL TABLE fts USING fts5(title, key_insight, tags, body, tokenize='porter unicode61 remove_diacritics 2')`,
		`INSERT INTO fts(rowid, title, key_insight, tags, body) SELECT n, title, key_insight, tags, '' FROM docs`,
		// a schema-9 postings entry: offset, 4 tf, 4 field lengths
		`INSERT OR REPLACE INTO postings(term, chunk, data) VALUES('haproxy', 0, x'01010100000003050100')`,
		`PRAGMA user_version = 9`,
	} {
		if _, err := db.Exec(stmt); err != nil {
			db.Close()
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	db.Close()
	if schemaVersion <= 9 {
		t.Fatalf("schemaVersion %d: the format changed since 9", schemaVersion)
	}
	ix := k.open(t)
	if !strings.Contains(ix.Rebuilt, "older format") {
		t.Errorf("Rebuilt = %q, want it to mention the older format", ix.Rebuilt)
	}
	var v int
	if err := ix.db.QueryRow(`PRAGMA user_version`).Scan(&v); err != nil || v != schemaVersion {
		t.Errorf("user_version = %d, %v; want %d", v, err, schemaVersion)
	}
	var n int
	if err := ix.db.QueryRow(`SELECT count(*) FROM sqlite_master WHERE name='fts'`).Scan(&n); err != nil || n != 0 {
		t.Errorf("the rebuilt catalog still has an fts table (%d, %v)", n, err)
	}
	searchable(t, ix)
	if c := counts(t, ix); c.Learnings != 3 {
		t.Errorf("Count = %d, want 3", c.Learnings)
	}
}
