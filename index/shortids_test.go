package index

import (
	"context"
	"database/sql"
	"strings"
	"testing"

	"github.com/reflectkb/reflect/internal/shortid"
	"github.com/reflectkb/reflect/store"
)

// trickyIDs share tails, prefixes and tails-of-tails in every way
// shortid.Resolve distinguishes.
var trickyIDs = []string{
	"lrn-oauth-state-3f9a1c", "lrn-token-3f9a1c", // the same tail twice
	"lrn-x-b41d07", "lrn-y-b41d07aa", // one tail starts another's
	"lrn-a-0c11aa", "lrn-0c11aa-notes-123456", // a tail that starts an id after lrn-
	"lrn-b-5e5e5e", "5e5e5e-raw-notes", // a tail that starts an id without lrn-
	"lrn-c-777777", "777777", // a tail that is an id
	"lrn-d-c0ffee", "lrn-e-c0ffee00-notes", // a tail inside an id, not at its end: no rival
	"lrn-cookie", "lrn-cookie-jar", "lrn-f-beef", // no 6-hex tail
	"lrn-g-ABCDEF", "lrn-h-abcdeg", // not lowercase hex
	"lrn-é-ünïcode-d00d00", "lrn-ĳ-d00d0", // non-ASCII slugs
	"lrn-k-fedcba", "lrn-only-one-9a9a9a", // unique tails
	"lrn-m-ffffff", "lrn-n-ffffff1", // a tail at the top of the hex range
}

// ShortIDs from the catalog (rivals found by index ranges) must print what
// shortid.Short over every id on disk prints, and each short id must
// resolve back to its id through the store, as a user types it.
func TestShortIDsMatchShortOverAllIDs(t *testing.T) {
	k := newKB(t)
	for _, id := range trickyIDs {
		k.write(t, simple(id, "widget"))
	}
	// a malformed document is on disk and can be named, so it counts
	writeRaw(t, k.docPath("lrn-broken-9a9a9a"), "no frontmatter here\n")
	ix := k.open(t)
	all, err := ix.Store().IDs()
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != len(trickyIDs)+1 {
		t.Fatalf("store lists %d ids, want %d", len(all), len(trickyIDs)+1)
	}
	got, err := ix.ShortIDs(context.Background(), all)
	if err != nil {
		t.Fatal(err)
	}
	shortened := 0
	for _, id := range all {
		want := shortid.Short(id, all, store.IDKind)
		if got[id] != want {
			t.Errorf("ShortIDs[%q] = %q, want %q (shortid.Short over all ids)", id, got[id], want)
		}
		if back, err := ix.Store().Resolve(got[id]); err != nil || back != id {
			t.Errorf("Resolve(%q) = %q, %v; want %q", got[id], back, err, id)
		}
		if got[id] != id {
			shortened++
		}
	}
	// the unique tails (fedcba, b41d07aa, 123456, d00d00, …) do shorten
	if shortened < 5 {
		t.Errorf("only %d ids shortened: %v", shortened, got)
	}
	for id, want := range map[string]string{
		"lrn-oauth-state-3f9a1c": "lrn-oauth-state-3f9a1c", "lrn-x-b41d07": "lrn-x-b41d07",
		"lrn-y-b41d07aa": "b41d07aa", "lrn-a-0c11aa": "lrn-a-0c11aa", "lrn-b-5e5e5e": "lrn-b-5e5e5e",
		"lrn-c-777777": "lrn-c-777777", "lrn-d-c0ffee": "c0ffee", "lrn-k-fedcba": "fedcba",
		"lrn-only-one-9a9a9a": "lrn-only-one-9a9a9a", "lrn-é-ünïcode-d00d00": "d00d00",
		"lrn-m-ffffff": "lrn-m-ffffff", "lrn-n-ffffff1": "ffffff1",
	} {
		if got[id] != want {
			t.Errorf("ShortIDs[%q] = %q, want %q", id, got[id], want)
		}
	}
	// an id the catalog does not hold shortens among the ones it does
	if got, err := ix.ShortIDs(context.Background(), []string{"lrn-gone-3f9a1c", "lrn-gone-abab12"}); err != nil ||
		got["lrn-gone-3f9a1c"] != "lrn-gone-3f9a1c" || got["lrn-gone-abab12"] != "lrn-gone-abab12" {
		t.Errorf("ShortIDs of ids not in the catalog = %v, %v", got, err)
	}
}

// Each arm of the rivals query must be a range on an index: a full scan of
// docs would make printing a short id grow with the KB again.
func TestRivalsQueryUsesIndexes(t *testing.T) {
	k := kbWithCatalog(t)
	ix := k.open(t)
	text := queryPlan(t, ix, rivalsQuery, "abc123", "abc124", "lrn-abc123", "lrn-abc124")
	if strings.Contains(text, "SCAN docs") || !strings.Contains(text, "docs_tail") {
		t.Errorf("rivals query plan reads docs whole or skips docs_tail:\n%s", text)
	}
}

// A schema-12 catalog (no docs_tail) is rebuilt on Open, with the index.
// A schema 12 catalog gains docs_tail in place, without a rebuild.
func TestOpenMigratesSchema12Catalog(t *testing.T) {
	k := kbWithCatalog(t)
	db, err := sql.Open("sqlite3", k.catalog())
	if err != nil {
		t.Fatal(err)
	}
	for _, stmt := range append(dropHoldColumns, `DROP INDEX docs_tail`, `PRAGMA user_version = 12`) {
		if _, err := db.Exec(stmt); err != nil {
			db.Close()
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	db.Close()
	ix := k.open(t)
	if ix.Rebuilt != "" {
		t.Errorf("Rebuilt = %q, want a migration in place", ix.Rebuilt)
	}
	var n, version int
	if err := ix.db.QueryRow(`SELECT count(*) FROM sqlite_master WHERE name='docs_tail'`).Scan(&n); err != nil || n != 1 {
		t.Errorf("the migrated catalog has no docs_tail (%d, %v)", n, err)
	}
	if err := ix.db.QueryRow(`PRAGMA user_version`).Scan(&version); err != nil || version != schemaVersion {
		t.Errorf("user_version = %d (%v), want %d", version, err, schemaVersion)
	}
	searchable(t, ix)
}

func TestPrefixEnd(t *testing.T) {
	for p, want := range map[string]string{"abc": "abd", "a\xff": "b", "lrn-ff": "lrn-fg", "\xff": "\xff\xff"} {
		if got := prefixEnd(p); got != want {
			t.Errorf("prefixEnd(%q) = %q, want %q", p, got, want)
		}
	}
}
