package index

import (
	"context"
	"database/sql"
	"slices"
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

// The pre-tool hook's command lookup and the session-start briefing inject
// what they return: a held learning is not among it.
func TestHeldLearningsLeaveCommandsAndBriefing(t *testing.T) {
	k := newKB(t)
	k.write(t, doc{ID: "lrn-gotest", Title: "go test: use -tags integration", Scope: "project", Project: "api",
		KeyInsight: "`go test ./...` failed with \"undefined: Foo\"; `go test -tags integration ./...` works."})
	k.write(t, doc{ID: "lrn-gotest-old", Title: "go test: run make first", Scope: "project", Project: "api",
		KeyInsight: "`go test ./...` failed with \"no Go files\"; run make first.", Extra: "superseded_by: lrn-gotest\n"})
	k.write(t, doc{ID: "lrn-gotest-wrong", Title: "go test: clear the cache", Scope: "project", Project: "api",
		KeyInsight: "`go test ./...` failed with \"undefined: Foo\"; go clean -cache fixes it.", Extra: "feedback: {wrong: 1}\n"})
	ix := k.open(t)
	if got, want := failedIDs(t, ix, "go test"), []string{"go test=lrn-gotest"}; !slices.Equal(got, want) {
		t.Errorf("FailedCommands: %q, want %q", got, want)
	}
	res, err := ix.ProjectLearnings(context.Background(), "api", 10)
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(res); !slices.Equal(got, []string{"lrn-gotest"}) {
		t.Errorf("ProjectLearnings: %q, want only lrn-gotest", got)
	}
}

// A draft awaiting review (status: pending) is injected by no hook path
// (the commands table, the briefing) and found by search and List only
// when asked for, marked pending; Count and PendingIDs count it.
func TestPendingDraftsFoundOnlyWhenAsked(t *testing.T) {
	k := newKB(t)
	k.write(t, doc{ID: "lrn-gotest", Title: "go test: use -tags integration", Scope: "project", Project: "api",
		KeyInsight: "`go test ./...` failed with \"undefined: Foo\"; `go test -tags integration ./...` works."})
	k.write(t, doc{ID: "lrn-gotest-draft", Title: "go test: set GOFLAGS", Scope: "project", Project: "api",
		KeyInsight: "`go test ./...` failed with \"undefined: Foo\"; GOFLAGS=-tags=integration fixes it.", Extra: "status: pending\n"})
	ix := k.open(t)
	ctx := context.Background()
	if got, want := failedIDs(t, ix, "go test"), []string{"go test=lrn-gotest"}; !slices.Equal(got, want) {
		t.Errorf("FailedCommands: %q, want %q", got, want)
	}
	if res, err := ix.ProjectLearnings(ctx, "api", 10); err != nil || !slices.Equal(ids(res), []string{"lrn-gotest"}) {
		t.Errorf("ProjectLearnings: %q, %v; want only lrn-gotest", ids(res), err)
	}
	q := Query{Text: "go test undefined Foo", Limit: 10}
	if got := ids(search(t, ix, q)); slices.Contains(got, "lrn-gotest-draft") || !slices.Contains(got, "lrn-gotest") {
		t.Errorf("default search: %q, want lrn-gotest without the draft", got)
	}
	q.Pending = PendingShown
	res := search(t, ix, q)
	if got := ids(res); !slices.Contains(got, "lrn-gotest-draft") || !slices.Contains(got, "lrn-gotest") {
		t.Errorf("search with pending shown: %q, want both", got)
	}
	for _, r := range res {
		if want := map[string]string{"lrn-gotest-draft": "pending"}[r.ID]; r.Held != want {
			t.Errorf("%s: Held %q, want %q", r.ID, r.Held, want)
		}
	}
	q.Pending = PendingOnly
	if got := ids(search(t, ix, q)); !slices.Equal(got, []string{"lrn-gotest-draft"}) {
		t.Errorf("search of pending only: %q", got)
	}
	for f, want := range map[PendingFilter][]string{PendingHidden: {"lrn-gotest"}, PendingShown: {"lrn-gotest", "lrn-gotest-draft"}, PendingOnly: {"lrn-gotest-draft"}} {
		res, err := ix.List(ctx, ListOptions{Pending: f})
		got := ids(res)
		slices.Sort(got)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("List(%d): %q, %v; want %q", f, got, err, want)
		}
	}
	if c, err := ix.Count(ctx); err != nil || c.Pending != 1 || c.Learnings != 2 {
		t.Errorf("Count: %+v, %v; want 2 learnings, 1 pending", c, err)
	}
	if got, err := ix.PendingIDs(ctx); err != nil || !slices.Equal(got, []string{"lrn-gotest-draft"}) {
		t.Errorf("PendingIDs: %q, %v", got, err)
	}
}
