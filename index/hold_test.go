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
