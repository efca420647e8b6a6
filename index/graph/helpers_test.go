package graph

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"testing"

	_ "github.com/mattn/go-sqlite3"

	"github.com/reflectkb/reflect/store"
)

// openDB opens a fresh catalog with the graph schema and a minimal docs
// table standing in for the index's.
func openDB(t testing.TB) *sql.DB {
	t.Helper()
	path := filepath.Join(t.TempDir(), "catalog.db")
	db, err := sql.Open("sqlite3", "file:"+path+"?_journal_mode=WAL&_busy_timeout=5000&_txlock=immediate&_synchronous=NORMAL")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1) // as the index does
	t.Cleanup(func() { db.Close() })
	stmts := append([]string{`CREATE TABLE docs(n INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE)`}, Schema()...)
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	return db
}

// addDoc inserts a docs row for the learning and records its entities in
// one transaction, as a reindex would; it returns the row id.
func addDoc(t testing.TB, db *sql.DB, l *store.Learning, sc *store.Sidecar) int64 {
	t.Helper()
	ctx := context.Background()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	var n int64
	err = tx.QueryRowContext(ctx, `SELECT n FROM docs WHERE id = ?`, l.ID).Scan(&n)
	if err == sql.ErrNoRows {
		res, err := tx.ExecContext(ctx, `INSERT INTO docs(id) VALUES(?)`, l.ID)
		if err != nil {
			t.Fatal(err)
		}
		n, _ = res.LastInsertId()
	} else if err != nil {
		t.Fatal(err)
	}
	if err := AddDocument(ctx, tx, n, sc, l); err != nil {
		t.Fatalf("AddDocument(%s): %v", l.ID, err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	return n
}

// inTx runs fn in a committed transaction.
func inTx(t testing.TB, db *sql.DB, fn func(tx *sql.Tx) error) {
	t.Helper()
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

// designExample is the learning and sidecar of ARCHITECTURE §3, read from the
// store package's fixtures so the two never drift apart.
func designExample(t testing.TB) (*store.Learning, *store.Sidecar) {
	t.Helper()
	md, err := os.ReadFile("../../store/testdata/design-example.md")
	if err != nil {
		t.Fatal(err)
	}
	l, err := store.Parse(md)
	if err != nil {
		t.Fatal(err)
	}
	y, err := os.ReadFile("../../store/testdata/design-example.entities.yaml")
	if err != nil {
		t.Fatal(err)
	}
	sc, err := store.ParseSidecar(y)
	if err != nil {
		t.Fatal(err)
	}
	return l, sc
}

// queryStrings runs a query returning one string column.
func queryStrings(t testing.TB, db *sql.DB, q string, args ...any) []string {
	t.Helper()
	rows, err := db.Query(q, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}

func fakeLearning(id string) *store.Learning { return &store.Learning{ID: id} }
