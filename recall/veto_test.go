package recall

import (
	"testing"

	"github.com/reflectkb/reflect/index"
)

// TestVeto: above idfCapDocs a hit just over the floor that does not lead
// its runner-up is silenced; one that leads it, one that clears the floor
// by far, and the same hits in a KB of idfCapDocs are not.
func TestVeto(t *testing.T) {
	query := "add pagination to the orders endpoint"
	floor := floorFor(len(index.Terms(query)), minEvidence, minEvidencePerRootTerm)
	hit := func(id string, units float64) index.Result {
		return index.Result{ID: id, Why: index.Why{BM25: units * IDFCap, MatchedTerms: 3, QueryBM25: 3 * floor * IDFCap}}
	}
	for _, tc := range []struct {
		name    string
		results []index.Result
		docs    int
		want    bool
	}{
		{"close runner-up at 10,000", []index.Result{hit("a", 1.1*floor), hit("b", 1.0*floor)}, 10000, true},
		{"close runner-up at 1,000", []index.Result{hit("a", 1.1*floor), hit("b", 1.0*floor)}, 1000, false},
		{"wide lead at 10,000", []index.Result{hit("a", 1.1*floor), hit("b", 0.5*floor)}, 10000, false},
		{"far over the floor at 10,000", []index.Result{hit("a", 2*floor), hit("b", 1.9*floor)}, 10000, false},
	} {
		kept, _ := filterPassing(tc.results, tc.docs, func(r index.Result, e float64) bool { return clears(r, e, floor) }, minRelative)
		if got := vetoed(tc.results, kept, tc.docs, query); got != tc.want {
			t.Errorf("%s: vetoed = %v, want %v", tc.name, got, tc.want)
		}
		if got, _ := throughGate(tc.results, tc.docs, query); (len(got) == 0) != tc.want {
			t.Errorf("%s: throughGate kept %d hits, want vetoed %v", tc.name, len(got), tc.want)
		}
	}
}
