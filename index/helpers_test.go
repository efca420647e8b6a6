package index

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// kb is a knowledge base laid out like $REFLECT_LEARNINGS_DIR: documents/
// and index/ under one temporary root.
type kb struct {
	root, docs, idx string
}

func newKB(t testing.TB) kb {
	t.Helper()
	root := t.TempDir()
	k := kb{root: root, docs: filepath.Join(root, "documents"), idx: filepath.Join(root, "index")}
	if err := os.MkdirAll(k.docs, 0o700); err != nil {
		t.Fatal(err)
	}
	return k
}

func (k kb) catalog() string { return filepath.Join(k.idx, "catalog.db") }

func (k kb) docPath(id string) string { return filepath.Join(k.docs, id+".md") }

// open opens the index of k and closes it when the test ends.
func (k kb) open(t testing.TB) *Index {
	t.Helper()
	ix, err := Open(context.Background(), k.docs, k.idx)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { ix.Close() })
	return ix
}

// doc is a learning document as a test writes it on disk.
type doc struct {
	ID, Title, Confidence, KeyInsight string
	Tags, Symptoms                    []string
	Scope, Project, Type              string
	Created                           string
	Extra                             string // raw YAML lines added to the frontmatter
	Body                              string
}

func (d doc) render() string {
	var b strings.Builder
	b.WriteString("---\n")
	fmt.Fprintf(&b, "id: %s\n", d.ID)
	if d.Title != "" {
		fmt.Fprintf(&b, "title: %q\n", d.Title)
	}
	if d.Type != "" {
		fmt.Fprintf(&b, "type: %s\n", d.Type)
	}
	conf := d.Confidence
	if conf == "" {
		conf = "high"
	}
	fmt.Fprintf(&b, "confidence: %s\n", conf)
	if len(d.Tags) > 0 {
		fmt.Fprintf(&b, "tags: [%s]\n", strings.Join(d.Tags, ", "))
	}
	if len(d.Symptoms) > 0 {
		var q []string
		for _, s := range d.Symptoms {
			q = append(q, fmt.Sprintf("%q", s))
		}
		fmt.Fprintf(&b, "symptoms: [%s]\n", strings.Join(q, ", "))
	}
	if d.KeyInsight != "" {
		fmt.Fprintf(&b, "key_insight: %q\n", d.KeyInsight)
	}
	if d.Scope != "" {
		fmt.Fprintf(&b, "scope: %s\n", d.Scope)
	}
	if d.Project != "" {
		fmt.Fprintf(&b, "project: %s\n", d.Project)
	}
	created := d.Created
	if created == "" {
		created = "2026-11-22T11:05:00Z"
	}
	fmt.Fprintf(&b, "created: %s\n", created)
	b.WriteString(d.Extra)
	b.WriteString("---\n")
	b.WriteString(d.Body)
	return b.String()
}

func writeRaw(t testing.TB, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func (k kb) write(t testing.TB, d doc) string {
	t.Helper()
	p := k.docPath(d.ID)
	writeRaw(t, p, d.render())
	return p
}

// simple returns a valid document whose title and body mention words.
func simple(id, words string) doc {
	return doc{ID: id, Title: "Note about " + words, Body: "## Problem\n" + words + " went wrong.\n\n## Solution\nFixed " + words + ".\n"}
}

func update(t testing.TB, ix *Index, opts UpdateOptions) Stats {
	t.Helper()
	st, err := ix.Update(context.Background(), opts)
	if err != nil {
		t.Fatalf("Update(%+v): %v", opts, err)
	}
	return st
}

func search(t testing.TB, ix *Index, q Query) []Result {
	t.Helper()
	res, err := ix.Search(context.Background(), q)
	if err != nil {
		t.Fatalf("Search(%q): %v", q.Text, err)
	}
	return res
}

func ids(res []Result) []string {
	out := make([]string, 0, len(res))
	for _, r := range res {
		out = append(out, r.ID)
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// docRows returns id -> rowid of every indexed document.
func docRows(t testing.TB, ix *Index) map[string]int64 {
	t.Helper()
	rows, err := ix.db.Query(`SELECT id, n FROM docs`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]int64{}
	for rows.Next() {
		var id string
		var n int64
		if err := rows.Scan(&id, &n); err != nil {
			t.Fatal(err)
		}
		out[id] = n
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// counts returns the catalog's counts.
func counts(t testing.TB, ix *Index) Counts {
	t.Helper()
	c, err := ix.Count(context.Background())
	if err != nil {
		t.Fatalf("Count: %v", err)
	}
	return c
}

// ftsMatch runs q as an FTS5 query against an empty FTS5 table shaped as
// the catalog's fts table was (the catalog no longer has one: search
// matches through its own postings), so a test can still check that
// QuoteQuery's output is valid FTS5 for any caller that hands it to FTS5.
func ftsMatch(ctx context.Context, ix *Index, q string) error {
	if _, err := ix.db.ExecContext(ctx, `CREATE VIRTUAL TABLE IF NOT EXISTS temp.quoted USING fts5(title, key_insight, tags, body, tokenize='porter unicode61 remove_diacritics 2')`); err != nil {
		return err
	}
	var n int
	return ix.db.QueryRowContext(ctx, `SELECT count(*) FROM temp.quoted WHERE quoted MATCH ?`, q).Scan(&n)
}

// queryPlan returns the details of EXPLAIN QUERY PLAN for q, one per line.
func queryPlan(t testing.TB, ix *Index, q string, args ...any) string {
	t.Helper()
	rows, err := ix.db.Query(`EXPLAIN QUERY PLAN `+q, args...)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, detail)
	}
	return strings.Join(plan, "\n")
}
