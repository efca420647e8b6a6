package index

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
)

func failedIDs(t *testing.T, ix *Index, keys ...string) []string {
	t.Helper()
	hits, err := ix.FailedCommands(context.Background(), keys, 10)
	if err != nil {
		t.Fatalf("FailedCommands(%q): %v", keys, err)
	}
	var out []string
	for _, h := range hits {
		out = append(out, h.Key+"="+h.ID)
	}
	slices.Sort(out)
	return out
}

// The commands a learning records as failing are found by their key, and
// follow the learning through updates and removals.
func TestFailedCommands(t *testing.T) {
	k := newKB(t)
	k.write(t, doc{ID: "lrn-gotest", Title: "go test: use -tags integration",
		KeyInsight: "`go test ./...` failed with \"undefined: Foo\"; `go test -tags integration ./...` works."})
	k.write(t, doc{ID: "lrn-npm", Title: "npm ci needs a fresh lockfile", KeyInsight: "Run npm install first.",
		Symptoms: []string{"`npm ci` exits with code 1: lockfile out of sync"}})
	k.write(t, doc{ID: "lrn-advice", Title: "Skip the test cache", KeyInsight: "Use `go test -count=1 ./...` to skip the cache."})
	ix := k.open(t)

	if got, want := failedIDs(t, ix, "go test"), []string{"go test=lrn-gotest"}; !slices.Equal(got, want) {
		t.Errorf("go test: %q, want %q (advice to run a command is not a failure)", got, want)
	}
	if got, want := failedIDs(t, ix, "npm ci", "go build"), []string{"npm ci=lrn-npm"}; !slices.Equal(got, want) {
		t.Errorf("npm ci: %q, want %q", got, want)
	}
	if got := failedIDs(t, ix, "go build"); len(got) != 0 {
		t.Errorf("go build: %q, want nothing", got)
	}

	// An edit that drops the command drops the row; a removal too.
	k.write(t, doc{ID: "lrn-gotest", Title: "go test: use -tags integration", KeyInsight: "Integration tests need a tag."})
	if err := os.Remove(k.docPath("lrn-npm")); err != nil {
		t.Fatal(err)
	}
	update(t, ix, UpdateOptions{})
	if got := failedIDs(t, ix, "go test", "npm ci"); len(got) != 0 {
		t.Errorf("after the edit and the removal: %q, want nothing", got)
	}
	var n int
	if err := ix.db.QueryRow(`SELECT count(*) FROM commands`).Scan(&n); err != nil || n != 0 {
		t.Errorf("commands holds %d rows (%v), want 0", n, err)
	}
}

func TestFailedCommandsBounds(t *testing.T) {
	k := newKB(t)
	ix := k.open(t)
	if hits, err := ix.FailedCommands(context.Background(), nil, 5); err != nil || hits != nil {
		t.Errorf("no keys: %v, %v", hits, err)
	}
	many := make([]string, 100)
	for i := range many {
		many[i] = "k" + string(rune('a'+i%26))
	}
	if _, err := ix.FailedCommands(context.Background(), many, 5); err != nil {
		t.Errorf("100 keys: %v", err)
	}
}

// A superseded learning records no command: its successor speaks for it.
func TestFailedCommandsSkipsSuperseded(t *testing.T) {
	k := newKB(t)
	k.write(t, doc{ID: "lrn-old", Title: "old", KeyInsight: "`make deploy` fails without AWS_PROFILE.", Extra: "superseded_by: lrn-new\n"})
	ix := k.open(t)
	if got := failedIDs(t, ix, "make deploy"); len(got) != 0 {
		t.Errorf("superseded: %q", got)
	}
}

func TestProjectLearnings(t *testing.T) {
	k := newKB(t)
	k.write(t, doc{ID: "lrn-p1", Title: "p one", Scope: "project", Project: "payments-api", Created: "2026-11-01T00:00:00Z"})
	k.write(t, doc{ID: "lrn-p2", Title: "p two", Scope: "project", Project: "payments-api", Created: "2026-11-20T00:00:00Z"})
	k.write(t, doc{ID: "lrn-g", Title: "global", Scope: "global", Project: "payments-api"})
	k.write(t, doc{ID: "lrn-o", Title: "other", Scope: "project", Project: "other"})
	ix := k.open(t)
	res, err := ix.ProjectLearnings(context.Background(), "payments-api", 10)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := ids(res), []string{"lrn-p2", "lrn-p1"}; !slices.Equal(got, want) {
		t.Errorf("ProjectLearnings = %q, want %q (newest first, no global, no other project)", got, want)
	}
	if res, _ := ix.ProjectLearnings(context.Background(), "", 10); len(res) != 0 {
		t.Errorf("no project: %q", ids(res))
	}
}

// A schema 14 catalog gains the commands table (filled from the titles and
// key insights it holds) and the docs_project index in place.
func TestOpenMigratesSchema14Commands(t *testing.T) {
	k := newKB(t)
	k.write(t, doc{ID: "lrn-gotest", Title: "go test fails", KeyInsight: "`go test ./...` failed with a race."})
	ix := k.open(t)
	ix.Close()
	db, err := sql.Open("sqlite3", k.catalog())
	if err != nil {
		t.Fatal(err)
	}
	for _, stmt := range append(dropHoldColumns, `DROP TABLE commands`, `DROP INDEX docs_project`, `PRAGMA user_version = 14`) {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	db.Close()

	if _, err := Open(context.Background(), k.docs, k.idx, NoRebuild()); !errors.Is(err, ErrNeedsRebuild) {
		t.Fatalf("Open(NoRebuild) of a schema 14 catalog = %v, want ErrNeedsRebuild", err)
	}
	ix = k.open(t)
	if ix.Rebuilt != "" {
		t.Errorf("Rebuilt = %q, want a migration in place", ix.Rebuilt)
	}
	if got, want := failedIDs(t, ix, "go test"), []string{"go test=lrn-gotest"}; !slices.Equal(got, want) {
		t.Errorf("after the migration: %q, want %q", got, want)
	}
	var n int
	if err := ix.db.QueryRow(`SELECT count(*) FROM sqlite_master WHERE name='docs_project'`).Scan(&n); err != nil || n != 1 {
		t.Errorf("no docs_project index (%d, %v)", n, err)
	}
}

// The lookups use their indexes, not a scan of every learning.
func TestCommandLookupsUseIndexes(t *testing.T) {
	k := newKB(t)
	ix := k.open(t)
	for q, want := range map[string]string{
		`SELECT c.key, d.id FROM commands c JOIN docs d ON d.n = c.n WHERE c.key IN ('a','b') ORDER BY d.updated DESC LIMIT 5`: "SEARCH c USING PRIMARY KEY (key=?)",
		`SELECT id FROM docs WHERE project = 'p' AND scope <> 'global' ORDER BY updated DESC LIMIT 5`:                          "USING INDEX docs_project (project=?)",
	} {
		plan := queryPlan(t, ix, q)
		if !strings.Contains(plan, want) {
			t.Errorf("%s\nplan:\n%s\nwant a search using %s", q, plan, want)
		}
	}
}
