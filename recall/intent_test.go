package recall

import (
	"testing"

	"github.com/reflectkb/reflect/index"
)

// TestIsRequest checks what counts as a request for work: an order in the
// first clause, after polite words, and not a problem that happens to open
// with a verb-like word (a Go error, SQL pasted in capitals, a make failure).
func TestIsRequest(t *testing.T) {
	requests := []string{
		"add pagination to the /orders endpoint, 50 per page",
		"Add a retry around the upload",
		"please write a migration that renames users.fullname",
		"now do the same for the orders table",
		"can you refactor this to use a switch",
		"ok, let's rename the package to billing",
		"could you explain how the auth middleware works",
		"here's the schema, write the sqlalchemy models:\n\nCREATE TABLE authors (id serial primary key)",
		"here is the config. convert it to yaml",
	}
	for _, p := range requests {
		if !isRequest(p) {
			t.Errorf("isRequest(%q) = false, want true", p)
		}
	}
	problems := []string{
		"use of closed network connection when the server shuts down",
		"EXPLAIN ANALYZE SELECT * FROM users WHERE email = 'a@b.c'",
		"ADD --chown fails in the Dockerfile",
		"make: *** [Makefile:12: build] Error 1",
		"make broke after my editor reformatted the Makefile",
		"build fails after upgrading to node 20",
		"set -euo pipefail and head -n1 exits 141",
		"update is stuck at 99% on the runner",
		"why does add return nil here",
		"my go program crashes the first time i put something into a map",
		"panic: assignment to entry in nil map\n\ngoroutine 1 [running]:",
		"is `set -o pipefail` worth it in our release script?",
		"here's the log, it dies right after the migration step",
		"here is the error: use of closed network connection",
		"add",
		"",
	}
	for _, p := range problems {
		if isRequest(p) {
			t.Errorf("isRequest(%q) = true, want false", p)
		}
	}
}

// TestRequestNeedsPlainEvidence checks the gate's treatment of a request:
// a hit that clears the floor but not twice over is injected for a
// question and not for a request asking for work on the same words; one
// that clears it twice over is injected for both; and the classifier's
// rescue under the floor is never given to a request.
func TestRequestNeedsPlainEvidence(t *testing.T) {
	const docs = 1000
	query := "pagination orders endpoint page"
	terms := len(index.Terms(query))
	floorBM25 := floorFor(terms, minEvidence, minEvidencePerRootTerm) * IDFCap
	hit := index.Result{ID: "lrn-n-plus-one", Title: "A list page issues one query per row",
		Why: index.Why{BM25: 1.3 * floorBM25, QueryBM25: 3 * floorBM25, MatchedTerms: 2}}
	if kept, _ := throughGate([]index.Result{hit}, docs, query, false, false, GateStrict); len(kept) != 1 {
		t.Fatalf("a question: kept %v, want %s", resultIDs(kept), hit.ID)
	}
	if kept, _ := throughGate([]index.Result{hit}, docs, query, true, false, GateStrict); len(kept) != 0 {
		t.Errorf("a request on the same evidence: kept %v, want none", resultIDs(kept))
	}
	strong := hit
	strong.Why.BM25 = 2.2 * floorBM25
	if kept, _ := throughGate([]index.Result{strong}, docs, query, true, false, GateStrict); len(kept) != 1 {
		t.Errorf("a request with evidence twice the floor: kept %v, want %s", resultIDs(kept), strong.ID)
	}

	// The agreeing hit under the floor of TestGateRescuesAgreement.
	rq := "sqlite busy_timeout four workers write database"
	rterms := len(index.Terms(rq))
	under := 0.8 * floorFor(rterms, minEvidence, minEvidencePerRootTerm) * IDFCap
	agree := index.Result{ID: "lrn-sqlite-locked", Title: "SQLite database is locked with several writers",
		KeyInsight: "Set busy_timeout on every connection and use WAL when workers write one database.",
		Why:        index.Why{BM25: under, QueryBM25: 1.5 * under, MatchedTerms: rterms - 1, Identifiers: 1}}
	runnerUp := index.Result{ID: "lrn-other", Title: "Worker pool sizing", Why: index.Why{BM25: 0.2 * under, QueryBM25: 1.5 * under, MatchedTerms: 1}}
	if kept, _ := throughGate([]index.Result{agree, runnerUp}, docs, rq, false, false, GateStrict); len(kept) != 1 {
		t.Fatalf("a question: the gate rescued %v, want %s", resultIDs(kept), agree.ID)
	}
	if kept, _ := throughGate([]index.Result{agree, runnerUp}, docs, rq, true, false, GateStrict); len(kept) != 0 {
		t.Errorf("a request: the gate rescued %v, want none", resultIDs(kept))
	}
}

// TestQuestionFloor checks the floor a question needs: 0.9 of it in a KB
// of up to idfCapDocs learnings, the whole floor above (where everyday
// words reach the idf cap), and twice the floor for a request either way.
// The hit has none of what the gate's classifier rescues on (its words
// only in the body, a close runner-up, no identifier).
func TestQuestionFloor(t *testing.T) {
	query := "sqlite busy_timeout four workers write database"
	floorBM25 := floorFor(len(index.Terms(query)), minEvidence, minEvidencePerRootTerm) * IDFCap
	hit := index.Result{ID: "lrn-notes", Title: "Notes from the migration",
		Why: index.Why{BM25: 0.95 * floorBM25, QueryBM25: 3 * floorBM25, MatchedTerms: 2}}
	close := index.Result{ID: "lrn-other", Title: "Worker pool sizing", Why: index.Why{BM25: 0.9 * floorBM25, QueryBM25: 3 * floorBM25, MatchedTerms: 2}}
	// The floor a question's hit must clear for the gate to weigh it as
	// over the floor (its veto, not its rescue).
	terms := len(index.Terms(query))
	for _, tc := range []struct {
		docs int
		want bool
	}{
		{idfCapDocs, true},
		{idfCapDocs + 1, false},
	} {
		if got := clears(hit, evidence(hit, tc.docs), promptFloor(terms, tc.docs)); got != tc.want {
			t.Errorf("KB of %d: the hit clears the question floor: %v, want %v", tc.docs, got, tc.want)
		}
		if f := hitFeatures([]index.Result{hit, close}, 0, tc.docs, query); (f.Clears > 0) != tc.want {
			t.Errorf("KB of %d: the gate sees the hit clear the floor: %v, want %v", tc.docs, f.Clears > 0, tc.want)
		}
	}
	// A request for work is held to twice the whole floor.
	if kept, _ := throughGate([]index.Result{hit, close}, idfCapDocs, query, true, false, GateStrict); len(kept) > 0 {
		t.Errorf("a request kept %v, want nothing", resultIDs(kept))
	}
}
