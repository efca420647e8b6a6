package index

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
)

// kbTwoChunks returns a KB whose learnings fill two postings chunks (the
// row numbers jump past the first chunk halfway), sharing words so that a
// query's stems meet in both chunks.
func kbTwoChunks(t *testing.T) kb {
	t.Helper()
	k := newKB(t)
	words := []string{"queue worker", "retry backoff", "cache flush", "widget cache", "queue retry"}
	for i := range 10 {
		k.write(t, simple(fmt.Sprintf("lrn-a%02d", i), words[i%len(words)]+fmt.Sprintf(" topic%d", i%3)))
	}
	ix, err := Open(context.Background(), k.docs, k.idx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ix.db.Exec(`UPDATE sqlite_sequence SET seq=? WHERE name='docs'`, 1<<chunkShift+7); err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		k.write(t, simple(fmt.Sprintf("lrn-b%02d", i), words[(i+2)%len(words)]+fmt.Sprintf(" topic%d", i%4)))
	}
	update(t, ix, UpdateOptions{})
	var chunks int
	if err := ix.db.QueryRow(`SELECT count(DISTINCT chunk) FROM postings`).Scan(&chunks); err != nil || chunks != 2 {
		t.Fatalf("postings span %d chunks (%v), want 2", chunks, err)
	}
	ix.Close()
	return k
}

var orderQueries = [][]string{{"queue"}, {"queue", "worker", "retry"}, {"cache", "flush", "widget"}, {"topic1", "backoff"}, {"nothing", "here"}}

// lexicalHits returns the lexical hits (row, score to the last bit, stems
// matched) and attainable score of each of orderQueries.
func lexicalHits(t *testing.T, ix *Index) []string {
	t.Helper()
	var out []string
	for _, q := range orderQueries {
		hits, att, err := ix.lexical(context.Background(), q, 50, 0, nil)
		if err != nil {
			t.Fatalf("lexical %v: %v", q, err)
		}
		out = append(out, fmt.Sprintf("%v attainable %x: %+v", q, att, hits))
	}
	return out
}

// dropHoldColumns take schema 16's columns out of a docs table, as a
// catalog before 16 has it.
var dropHoldColumns = []string{`ALTER TABLE docs DROP COLUMN hold`, `ALTER TABLE docs DROP COLUMN helpful`, `ALTER TABLE docs DROP COLUMN feedback`}

// toSchema13 rewrites k's catalog as the previous build left it: no
// postings_term index, user_version 13.
func toSchema13(t *testing.T, k kb) {
	t.Helper()
	db, err := sql.Open("sqlite3", k.catalog())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, stmt := range append(dropHoldColumns, `DROP INDEX postings_term`, `PRAGMA user_version = 13`) {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
}

// A schema 13 catalog (no postings_term) is migrated in place, not rebuilt, and searches exactly as before; a hook's Open
// (NoRebuild) leaves the migration to the reindex it starts.
func TestOpenMigratesSchema13Postings(t *testing.T) {
	k := kbTwoChunks(t)
	ix := k.open(t)
	want := lexicalHits(t, ix)
	ix.Close()
	toSchema13(t, k)

	if _, err := Open(context.Background(), k.docs, k.idx, NoRebuild()); !errors.Is(err, ErrNeedsRebuild) {
		t.Fatalf("Open(NoRebuild) of a schema 13 catalog = %v, want ErrNeedsRebuild", err)
	}
	ix = k.open(t)
	if ix.Rebuilt != "" {
		t.Errorf("Rebuilt = %q, want a migration in place", ix.Rebuilt)
	}
	var version, n int
	if err := ix.db.QueryRow(`PRAGMA user_version`).Scan(&version); err != nil || version != schemaVersion {
		t.Errorf("user_version = %d (%v), want %d", version, err, schemaVersion)
	}
	if err := ix.db.QueryRow(`SELECT count(*) FROM sqlite_master WHERE name='postings_term'`).Scan(&n); err != nil || n != 1 {
		t.Errorf("the migrated catalog has no postings_term (%d, %v)", n, err)
	}
	if got := lexicalHits(t, ix); !reflect.DeepEqual(got, want) {
		t.Errorf("after the migration:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if res, err := ix.Check(context.Background()); err != nil || res != "ok" {
		t.Errorf("Check = %q, %v", res, err)
	}

	// Removing learnings from both chunks keeps the table and its index
	// alike: the postings then equal a fresh build's.
	removeAndCompare(t, k, ix, "lrn-a03", "lrn-b05")
}

// After removals, the stored postings are exactly what a fresh build of
// the remaining learnings writes, and the term-first index agrees.
func TestPostingsRemovalMatchesRebuild(t *testing.T) {
	k := kbTwoChunks(t)
	removeAndCompare(t, k, k.open(t), "lrn-a01", "lrn-a04", "lrn-b00", "lrn-b09")
}

// removeAndCompare deletes the documents of ids, updates ix, and checks
// its postings against a full reindex of what is left.
func removeAndCompare(t *testing.T, k kb, ix *Index, ids ...string) {
	t.Helper()
	for _, id := range ids {
		if err := os.Remove(k.docPath(id)); err != nil {
			t.Fatal(err)
		}
	}
	update(t, ix, UpdateOptions{})
	// integrity_check (unlike Check's quick_check) compares postings_term
	// with the table row by row.
	var res string
	if err := ix.db.QueryRow(`PRAGMA integrity_check`).Scan(&res); err != nil || res != "ok" {
		t.Errorf("integrity_check = %q, %v", res, err)
	}
	got := postingsByID(t, ix)
	for _, id := range ids {
		for term, m := range got {
			if _, ok := m[id]; ok {
				t.Errorf("%s still has a posting of removed %s", term, id)
			}
		}
	}
	update(t, ix, UpdateOptions{Full: true})
	// A full reindex drops postings_term while it writes and builds it
	// again before it commits.
	var n int
	if err := ix.db.QueryRow(`SELECT count(*) FROM sqlite_master WHERE name='postings_term'`).Scan(&n); err != nil || n != 1 {
		t.Errorf("no postings_term after a full reindex (%d, %v)", n, err)
	}
	if err := ix.db.QueryRow(`PRAGMA integrity_check`).Scan(&res); err != nil || res != "ok" {
		t.Errorf("integrity_check after a full reindex = %q, %v", res, err)
	}
	if want := postingsByID(t, ix); !reflect.DeepEqual(got, want) {
		t.Errorf("postings after removals:\n%v\nafter a rebuild:\n%v", got, want)
	}
}

// postingsByID returns every stored posting as term → learning id → tfs,
// which a rebuild (new row numbers) keeps.
func postingsByID(t *testing.T, ix *Index) map[string]map[string][numFields]int {
	t.Helper()
	byRow := map[int64]string{}
	for id, n := range docRows(t, ix) {
		byRow[n] = id
	}
	rows, err := ix.db.Query(`SELECT term, chunk, data FROM postings`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]map[string][numFields]int{}
	for rows.Next() {
		var term string
		var c int64
		var data []byte
		if err := rows.Scan(&term, &c, &data); err != nil {
			t.Fatal(err)
		}
		_, entries := chunkCount(data)
		eachEntry(c, entries, func(e *entryOf) {
			if out[term] == nil {
				out[term] = map[string][numFields]int{}
			}
			out[term][byRow[e.n]] = e.tf
		})
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// Every statement on postings is a search on a key: a full scan would
// make a search, add or forget grow with the whole table.
func TestPostingsQueryPlans(t *testing.T) {
	k := kbTwoChunks(t)
	ix := k.open(t)
	for q, want := range map[string]string{
		// readPostings: one range of the index per stem, already in
		// ORDER BY's order, never a lookup in the table.
		`SELECT chunk, term, data FROM postings WHERE term IN (?,?,?) ORDER BY term, chunk`: "COVERING INDEX postings_term (term=?)",
		// findRemoved: the chunk's rows, adjacent in the table.
		`SELECT term, data FROM postings WHERE chunk=?`: "PRIMARY KEY (chunk=?)",
		// flush
		`SELECT data FROM postings WHERE chunk=? AND term=?`: "PRIMARY KEY (chunk=? AND term=?)",
		`DELETE FROM postings WHERE chunk=? AND term=?`:      "PRIMARY KEY (chunk=? AND term=?)",
	} {
		n := strings.Count(q, "?")
		args := make([]any, n)
		for i := range args {
			args[i] = "x"
		}
		text := queryPlan(t, ix, q, args...)
		if !strings.Contains(text, want) || strings.Contains(text, "SCAN") || strings.Contains(text, "TEMP B-TREE") {
			t.Errorf("%s:\n%s\nwant a search using %s, no scan or sort", q, text, want)
		}
	}
}
