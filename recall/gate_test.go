package recall

import (
	"strings"
	"testing"

	"github.com/reflectkb/reflect/index"
)

// TestGateRescuesAgreement checks the classifier beside the floor: in a KB
// of 1,000, a hit under the floor that leads the rest of the KB by far,
// holds the query's words in its title and key insight and contains the
// identifier the prompt names is injected (issue 28's first failure
// class); the same evidence without that agreement — a close runner-up,
// the words only in the body — is not; and a hit the floor already takes
// stays taken.
func TestGateRescuesAgreement(t *testing.T) {
	const docs = 1000
	query := "sqlite busy_timeout four workers write database"
	terms := len(index.Terms(query))
	floorBM25 := floorFor(terms, minEvidence, minEvidencePerRootTerm) * IDFCap
	under := 0.8 * floorBM25
	strong := index.Result{ID: "lrn-sqlite-locked", Title: "SQLite database is locked with several writers",
		KeyInsight: "Set busy_timeout on every connection and use WAL when workers write one database.",
		Why:        index.Why{BM25: under, QueryBM25: 1.5 * under, MatchedTerms: terms - 1, Identifiers: 1}}
	runnerUp := index.Result{ID: "lrn-other", Title: "Worker pool sizing", Why: index.Why{BM25: 0.2 * under, QueryBM25: 1.5 * under, MatchedTerms: 1}}

	kept, _ := throughGate([]index.Result{strong, runnerUp}, docs, query, false, false, GateStrict)
	if len(kept) != 1 || kept[0].ID != strong.ID {
		t.Errorf("agreeing hit under the floor: kept %v, want %s", resultIDs(kept), strong.ID)
	}
	if kept, _ := aboveFloor([]index.Result{strong, runnerUp}, docs, terms); len(kept) != 0 {
		t.Fatalf("the floor alone took %v: the case does not test the gate", resultIDs(kept))
	}

	weak := strong
	weak.Title, weak.KeyInsight = "Notes from the migration", ""
	weak.Why.Identifiers = 0
	weak.Why.MatchedTerms = 2
	close := runnerUp
	close.Why.BM25 = 0.95 * under
	if kept, _ := throughGate([]index.Result{weak, close}, docs, query, false, false, GateStrict); len(kept) != 0 {
		t.Errorf("hit under the floor without agreement: kept %v, want none", resultIDs(kept))
	}

	above := strong
	above.Why.BM25 = 1.2 * floorBM25
	if kept, _ := throughGate([]index.Result{above, close}, docs, query, false, false, GateStrict); len(kept) == 0 || kept[0].ID != above.ID {
		t.Errorf("hit above the floor: kept %v, want %s", resultIDs(kept), above.ID)
	}
}

func resultIDs(rs []index.Result) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.ID
	}
	return out
}

// A hit that clears the floor but has nothing else going for it (a
// runner-up as strong, its words only in the body) is vetoed for a
// prompt, and kept for a task the MCP recall tool is asked about.
func TestGateVetoesAWeakPass(t *testing.T) {
	const docs = 1000
	query := "worker pool database locked retries"
	floor := promptFloor(len(index.Terms(query)), docs) * IDFCap
	hit := index.Result{ID: "lrn-hit", Title: "Notes from the migration",
		Why: index.Why{BM25: 1.05 * floor, QueryBM25: 3 * floor, MatchedTerms: 2}}
	twin := index.Result{ID: "lrn-twin", Title: "Sizing the pool",
		Why: index.Why{BM25: 1.0 * floor, QueryBM25: 3 * floor, MatchedTerms: 2}}
	if f := hitFeatures([]index.Result{hit, twin}, 0, docs, query); f.Clears == 0 || GateStrict.admits(f) {
		t.Fatalf("features %+v: want a pass over the floor the veto refuses", f)
	}
	if kept, _ := throughGate([]index.Result{hit, twin}, docs, query, false, false, GateStrict); len(kept) != 0 {
		t.Errorf("a prompt kept %v, want nothing", resultIDs(kept))
	}
	if kept, _ := throughGate([]index.Result{hit, twin}, docs, query, false, true, GateStrict); len(kept) == 0 || kept[0].ID != hit.ID {
		t.Errorf("a task kept %v, want %s first", resultIDs(kept), hit.ID)
	}
}

// TestGateLevelsAreNested: every level admits what a stricter one admits,
// on either side of the floor, and ParseGate reads the names config
// accepts (the empty one is strict) and refuses others.
func TestGateLevelsAreNested(t *testing.T) {
	for i := 1; i < len(Gates); i++ {
		stricter, looser := Gates[i-1], Gates[i]
		for p := 0.0; p <= 1.0; p += 0.01 {
			for _, f := range []Features{{Clears: 1, Probability: p}, {Probability: p}} {
				if stricter.admits(f) && !looser.admits(f) {
					t.Errorf("%s admits %+v and %s does not", stricter, f, looser)
				}
			}
		}
		sv, sr := stricter.thresholds()
		lv, lr := looser.thresholds()
		if lv > sv || lr > sr || (lv == sv && lr == sr) {
			t.Errorf("%s's thresholds (%.2f, %.2f) are not below %s's (%.2f, %.2f)", looser, lv, lr, stricter, sv, sr)
		}
	}
	if v, r := Gate("").thresholds(); v != 0.30 || r != 0.94 {
		t.Errorf("the zero Gate's thresholds are (%.2f, %.2f), want strict's (0.30, 0.94)", v, r)
	}
	for in, want := range map[string]Gate{"": GateStrict, "strict": GateStrict, " Balanced ": GateBalanced, "EAGER": GateEager} {
		if got, err := ParseGate(in); err != nil || got != want {
			t.Errorf("ParseGate(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := ParseGate("loud"); err == nil || !strings.Contains(err.Error(), "strict, balanced or eager") {
		t.Errorf("ParseGate(\"loud\") = %v; want an error naming the levels", err)
	}
}
