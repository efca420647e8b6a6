package index

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// junk returns n deterministic pseudo-random bytes.
func junk(n int) []byte {
	r := rand.New(rand.NewPCG(1, 2))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.UintN(256))
	}
	return b
}

// kbWithCatalog writes three documents and a catalog for them, closed.
func kbWithCatalog(t *testing.T) kb {
	t.Helper()
	k := newKB(t)
	k.write(t, simple("lrn-one", "haproxy backend"))
	k.write(t, simple("lrn-two", "systemd unit"))
	k.write(t, simple("lrn-three", "cron schedule"))
	ix, err := Open(context.Background(), k.docs, k.idx)
	if err != nil {
		t.Fatal(err)
	}
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	return k
}

// searchable checks that the three documents of kbWithCatalog are found.
func searchable(t *testing.T, ix *Index) {
	t.Helper()
	for _, q := range []struct{ text, id string }{{"haproxy", "lrn-one"}, {"systemd", "lrn-two"}, {"cron schedule", "lrn-three"}} {
		if got := ids(search(t, ix, Query{Text: q.text})); !reflect.DeepEqual(got, []string{q.id}) {
			t.Errorf("search %q = %v, want [%s]", q.text, got, q.id)
		}
	}
	if res, err := ix.Check(context.Background()); err != nil || res != "ok" {
		t.Errorf("Check = %q, %v", res, err)
	}
}

func TestOpen(t *testing.T) {
	tests := []struct {
		name string
		// setup prepares the KB before Open.
		setup func(t *testing.T) kb
		// rebuilt lists what Rebuilt must contain; nil means it must be empty.
		rebuilt []string
		// corrupt is the content catalog.db.corrupt must keep (nil: no such file).
		corrupt []byte
		// mayMoveAside: a catalog.db.corrupt may or may not be left.
		mayMoveAside bool
		docs         int
	}{
		{
			name: "missing catalog, documents present",
			setup: func(t *testing.T) kb {
				k := newKB(t)
				k.write(t, simple("lrn-one", "haproxy backend"))
				k.write(t, simple("lrn-two", "systemd unit"))
				k.write(t, simple("lrn-three", "cron schedule"))
				return k
			},
			rebuilt: []string{"missing", "3 documents"},
			docs:    3,
		},
		{
			name: "catalog deleted after use",
			setup: func(t *testing.T) kb {
				k := kbWithCatalog(t)
				for _, s := range []string{"", "-wal", "-shm"} {
					os.Remove(k.catalog() + s)
				}
				return k
			},
			rebuilt: []string{"missing"},
			docs:    3,
		},
		{
			name: "catalog overwritten with junk",
			setup: func(t *testing.T) kb {
				k := kbWithCatalog(t)
				writeRaw(t, k.catalog(), string(junk(8192)))
				return k
			},
			rebuilt: []string{"unreadable", "catalog.db.corrupt", "rebuilt"},
			corrupt: junk(8192),
			docs:    3,
		},
		{
			name: "catalog is a short text file",
			setup: func(t *testing.T) kb {
				k := kbWithCatalog(t)
				writeRaw(t, k.catalog(), "hello, I am not a database\n")
				return k
			},
			rebuilt: []string{"unreadable", "catalog.db.corrupt"},
			corrupt: []byte("hello, I am not a database\n"),
			docs:    3,
		},
		{
			name: "catalog of an older schema",
			setup: func(t *testing.T) kb {
				k := kbWithCatalog(t)
				db, err := sql.Open("sqlite3", k.catalog())
				if err != nil {
					t.Fatal(err)
				}
				defer db.Close()
				if _, err := db.Exec(`PRAGMA user_version = 1`); err != nil {
					t.Fatal(err)
				}
				return k
			},
			rebuilt:      []string{"older format"},
			mayMoveAside: true,
			docs:         3,
		},
		{
			name: "healthy catalog",
			setup: func(t *testing.T) kb {
				return kbWithCatalog(t)
			},
			docs: 3,
		},
		{
			name:  "empty KB",
			setup: func(t *testing.T) kb { return newKB(t) },
		},
		{
			name: "no documents directory at all",
			setup: func(t *testing.T) kb {
				k := newKB(t)
				os.Remove(k.docs)
				return k
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			k := tc.setup(t)
			ix := k.open(t)
			if tc.rebuilt == nil && ix.Rebuilt != "" {
				t.Errorf("Rebuilt = %q, want empty", ix.Rebuilt)
			}
			for _, s := range tc.rebuilt {
				if !strings.Contains(ix.Rebuilt, s) {
					t.Errorf("Rebuilt = %q, want it to mention %q", ix.Rebuilt, s)
				}
			}
			got, err := os.ReadFile(k.catalog() + ".corrupt")
			switch {
			case tc.mayMoveAside:
			case tc.corrupt == nil && err == nil:
				t.Errorf("catalog.db.corrupt exists")
			case tc.corrupt != nil && err != nil:
				t.Errorf("damaged catalog not kept: %v", err)
			case tc.corrupt != nil && !bytes.Equal(got, tc.corrupt):
				t.Errorf("catalog.db.corrupt holds %d bytes, not the damaged file", len(got))
			}
			if c := counts(t, ix); c.Learnings != tc.docs {
				t.Errorf("Count = %d, want %d", c.Learnings, tc.docs)
			}
			if tc.docs > 0 {
				searchable(t, ix)
			} else if res := search(t, ix, Query{Text: "anything"}); len(res) != 0 {
				t.Errorf("empty KB found %v", ids(res))
			}
			// Reopening the catalog just made is quiet and reindexes nothing.
			ix.Close()
			ix2 := k.open(t)
			if ix2.Rebuilt != "" {
				t.Errorf("second Open: Rebuilt = %q", ix2.Rebuilt)
			}
			st := update(t, ix2, UpdateOptions{})
			if st.Unchanged != tc.docs || st.Added+st.Updated+st.Removed != 0 {
				t.Errorf("second Open: update stats %+v", countersOf(st))
			}
		})
	}
}

// A catalog whose header is intact but whose pages are damaged (a torn
// write, a bad sector, a sync tool that copied half of it) is corrupt too:
// the issue asks for an automatic rebuild, and search must keep working.
func TestOpenCatalogWithDamagedPages(t *testing.T) {
	k := newKB(t)
	for i := 0; i < 60; i++ {
		d := simple("lrn-page-"+strings.Repeat("x", i%7)+string(rune('a'+i%26))+string(rune('a'+i/26)), "haproxy backend "+strings.Repeat("filler text ", 40))
		k.write(t, d)
	}
	ix, err := Open(context.Background(), k.docs, k.idx)
	if err != nil {
		t.Fatal(err)
	}
	n := counts(t, ix).Learnings
	ix.Close()
	data, err := os.ReadFile(k.catalog())
	if err != nil {
		t.Fatal(err)
	}
	if len(data) < 3*4096 {
		t.Fatalf("catalog is only %d bytes", len(data))
	}
	// Keep the first half (header and schema), scramble the rest.
	half := len(data) / 2
	copy(data[half:], junk(len(data)-half))
	writeRaw(t, k.catalog(), string(data))

	// Whether Open or the search finds the damage, the rebuild is
	// announced before it starts (issue 27: a search spent 12 s rebuilding
	// with nothing on stderr).
	var notices []string
	ix2, err := Open(context.Background(), k.docs, k.idx, OnRebuild(func(reason string, docs int) {
		notices = append(notices, fmt.Sprintf("%s (%d documents)", reason, docs))
	}))
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer ix2.Close()
	res, err := ix2.Search(context.Background(), Query{Text: "haproxy backend", Limit: 100})
	if ix2.Rebuilt == "" {
		t.Errorf("the damaged catalog was not rebuilt")
	}
	if len(notices) != 1 || !strings.Contains(notices[0], "damaged") && !strings.Contains(notices[0], "unreadable") || !strings.Contains(notices[0], fmt.Sprintf("(%d documents)", n)) {
		t.Errorf("rebuild notices %q, want one naming the damage and the %d documents", notices, n)
	}
	if err != nil {
		t.Errorf("Search on a damaged catalog: %v (Rebuilt = %q)", err, ix2.Rebuilt)
	} else if len(res) != n {
		t.Errorf("Search found %d of %d documents (Rebuilt = %q)", len(res), n, ix2.Rebuilt)
	}
	if _, err := ix2.Update(context.Background(), UpdateOptions{}); err != nil {
		t.Errorf("Update on a damaged catalog: %v", err)
	}
}

// The catalog is what the issue asks for: SQLite in WAL mode with a busy
// timeout and immediate write transactions, FTS5 porter unicode61, a
// trigram table, and a documents table with each file's content hash.
func TestCatalogFormat(t *testing.T) {
	ctx := context.Background()
	k := newKB(t)
	path := k.write(t, simple("lrn-format", "format check"))
	ix := k.open(t)
	if ix.Path() != k.catalog() {
		t.Errorf("Path = %s, want %s", ix.Path(), k.catalog())
	}
	if ix.Store().Dir != k.docs {
		t.Errorf("Store().Dir = %s", ix.Store().Dir)
	}
	var mode string
	var timeout int
	if err := ix.db.QueryRow(`PRAGMA journal_mode`).Scan(&mode); err != nil || mode != "wal" {
		t.Errorf("journal_mode = %q, %v; want wal", mode, err)
	}
	if err := ix.db.QueryRow(`PRAGMA busy_timeout`).Scan(&timeout); err != nil || timeout <= 0 {
		t.Errorf("busy_timeout = %d, %v", timeout, err)
	}
	schemaSQL := map[string]string{}
	rows, err := ix.db.Query(`SELECT name, sql FROM sqlite_master WHERE name IN ('docs','fts','tri')`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var name, s string
		if err := rows.Scan(&name, &s); err != nil {
			t.Fatal(err)
		}
		schemaSQL[name] = s
	}
	rows.Close()
	// The text is in the markdown and nowhere else: no FTS5 copy of it.
	if s, ok := schemaSQL["fts"]; ok {
		t.Errorf("catalog has an fts table (%s): the markdown already holds that text", s)
	}
	for name, want := range map[string][]string{
		"tri":  {"fts5", "trigram"},
		"docs": {"hash"},
	} {
		for _, w := range want {
			if !strings.Contains(schemaSQL[name], w) {
				t.Errorf("table %s: %q lacks %q", name, schemaSQL[name], w)
			}
		}
	}
	data, _ := os.ReadFile(path)
	sum := sha256.Sum256(data)
	var hash string
	if err := ix.db.QueryRow(`SELECT hash FROM docs WHERE id='lrn-format'`).Scan(&hash); err != nil || hash != hex.EncodeToString(sum[:]) {
		t.Errorf("stored hash %q, %v; want sha256 of the file", hash, err)
	}
	if fi, err := os.Stat(k.catalog()); err != nil || fi.Mode().Perm()&0o077 != 0 {
		t.Errorf("catalog.db mode %v, %v: should be private", fi.Mode(), err)
	}

	// _txlock=immediate: a write transaction takes the write lock at BEGIN,
	// so another connection that does not wait cannot start one.
	tx, err := ix.db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	other, err := sql.Open("sqlite3", "file:"+filepath.ToSlash(k.catalog())+"?_busy_timeout=0")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if _, err := other.Exec(`BEGIN IMMEDIATE`); err == nil {
		other.Exec(`ROLLBACK`)
		t.Errorf("BeginTx did not take the write lock (transactions are not immediate)")
	}
	// Readers are not blocked by the writer (WAL).
	var n int
	if err := other.QueryRow(`SELECT count(*) FROM docs`).Scan(&n); err != nil || n != 1 {
		t.Errorf("reader during a write transaction: %d, %v", n, err)
	}
}

func TestRefresh(t *testing.T) {
	ctx := context.Background()
	k := newKB(t)
	k.write(t, simple("lrn-existing", "existing ansible"))
	ix := k.open(t)

	if _, ran, err := ix.Refresh(ctx); err != nil || ran {
		t.Errorf("Refresh right after Open: ran=%v err=%v; want a no-op", ran, err)
	}
	steps := []struct {
		name    string
		do      func(t *testing.T)
		ran     bool
		want    counters
		find    string
		findIDs []string
	}{
		{
			name: "new file written directly",
			do:   func(t *testing.T) { k.write(t, simple("lrn-direct", "direct vagrant")) },
			ran:  true, want: counters{Documents: 2, Indexed: 2, Added: 1, Unchanged: 1},
			find: "vagrant", findIDs: []string{"lrn-direct"},
		},
		{
			name: "nothing changed",
			do:   func(t *testing.T) {},
			ran:  false,
			find: "vagrant", findIDs: []string{"lrn-direct"},
		},
		{
			name: "file replaced by an atomic write",
			do: func(t *testing.T) {
				d := simple("lrn-direct", "direct packer")
				tmp := filepath.Join(k.docs, ".tmp-direct")
				writeRaw(t, tmp, d.render())
				if err := os.Rename(tmp, k.docPath(d.ID)); err != nil {
					t.Fatal(err)
				}
			},
			ran: true, want: counters{Documents: 2, Indexed: 2, Updated: 1, Unchanged: 1},
			find: "packer", findIDs: []string{"lrn-direct"},
		},
		{
			name: "file removed",
			do: func(t *testing.T) {
				if err := os.Remove(k.docPath("lrn-direct")); err != nil {
					t.Fatal(err)
				}
			},
			ran: true, want: counters{Documents: 1, Indexed: 1, Removed: 1, Unchanged: 1},
			find: "packer",
		},
		{
			name: "again nothing",
			do:   func(t *testing.T) {},
			ran:  false,
			find: "ansible", findIDs: []string{"lrn-existing"},
		},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			s.do(t)
			st, ran, err := ix.Refresh(ctx)
			if err != nil {
				t.Fatalf("Refresh: %v", err)
			}
			if ran != s.ran {
				t.Errorf("ran = %v, want %v", ran, s.ran)
			}
			if got := countersOf(st); got != s.want {
				t.Errorf("stats = %+v, want %+v", got, s.want)
			}
			got := ids(search(t, ix, Query{Text: s.find}))
			if len(got) != len(s.findIDs) || (len(got) > 0 && !reflect.DeepEqual(got, s.findIDs)) {
				t.Errorf("search %q = %v, want %v", s.find, got, s.findIDs)
			}
		})
	}
}

// A new catalog gets the page size searches were measured with.
func TestNewCatalogPageSize(t *testing.T) {
	k := newKB(t)
	writeRaw(t, k.docPath("lrn-one"), simple("lrn-one", "haproxy").render())
	ix := k.open(t)
	var ps int
	if err := ix.db.QueryRow(`PRAGMA page_size`).Scan(&ps); err != nil || ps != pageSize {
		t.Fatalf("page_size %d, %v; want %d", ps, err, pageSize)
	}
	var mode string
	if err := ix.db.QueryRow(`PRAGMA journal_mode`).Scan(&mode); err != nil || mode != "wal" {
		t.Fatalf("journal_mode %q, %v", mode, err)
	}
}

// A SQLite without FTS5 cannot be fixed by a reindex: the error must say
// to rebuild reflect with the tag, and doctor keys its fix on ErrNoFTS5.
func TestNoFTS5(t *testing.T) {
	sqliteErr := errors.New("create schema: no such module: fts5")
	err := noFTS5(sqliteErr)
	if !errors.Is(err, ErrNoFTS5) {
		t.Fatalf("noFTS5(%v) = %v, want ErrNoFTS5", sqliteErr, err)
	}
	for _, want := range []string{"go install -tags sqlite_fts5 github.com/reflectkb/reflect/cmd/reflect@latest", "no such module: fts5"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not contain %q", err, want)
		}
	}
	other := errors.New("disk I/O error")
	if got := noFTS5(other); got != other {
		t.Errorf("noFTS5 changed an unrelated error: %v", got)
	}
	if noFTS5(nil) != nil {
		t.Error("noFTS5(nil) != nil")
	}
}
