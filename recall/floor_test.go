package recall

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reflectkb/reflect/index"
	"github.com/reflectkb/reflect/knowledge"
	"github.com/reflectkb/reflect/store"
)

// TestFloorCalibration measures the relevance floor on the calibration
// corpus (testdata/kb, 34 learnings) with the labelled prompts: every
// positive should recall its learning, every negative nothing. The log
// holds the measured precision and recall, the evidence margins and a
// sweep of other floors, which is how the constants in floor.go were
// chosen.
func TestFloorCalibration(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ix := NewKB(t, func(docs string) { CopyCorpus(t, docs) })
	pos, neg := LoadPrompts(t)
	if len(pos) < 25 || len(neg) < 25 {
		t.Fatalf("calibration needs at least 25 prompts of each kind, have %d and %d", len(pos), len(neg))
	}
	counts, err := ix.Count(ctx)
	if err != nil {
		t.Fatal(err)
	}

	// End to end, with the floor in floor.go.
	var s Score
	for _, l := range append(append([]Labelled{}, pos...), neg...) {
		res, err := Recall(ctx, ix, Request{Kind: Prompt, Prompt: l.Prompt})
		if err != nil {
			t.Fatal(err)
		}
		ids := IDs(res.Injected)
		s.Add(l, ids)
		switch {
		case l.Want == "" && len(ids) > 0:
			t.Logf("noise: %q recalled %v", l.Prompt, ids)
		case l.Want != "" && !contains(ids, l.Want):
			t.Logf("miss:  %q recalled %v, want %s", l.Prompt, ids, l.Want)
		}
		if l.Want != "" && contains(ids, l.Want) && ids[0] != l.Want {
			t.Logf("note:  %q recalled %s first, then %s", l.Prompt, ids[0], l.Want)
		}
	}
	t.Logf("floor: evidence ≥ max(%.2f, %.2f × √terms) and ≥ %.2f × best; %d learnings, %d+%d prompts: %s",
		minEvidence, minEvidencePerRootTerm, minRelative, counts.Learnings, len(pos), len(neg), s)
	if s.Precision() < 0.95 || s.Recall() < 0.9 || s.SilenceRate() < 0.95 {
		t.Errorf("floor below target (precision ≥ 0.95, recall ≥ 0.90, silent on ≥ 95%% of unrelated prompts): %s", s)
	}

	// The margins: how close the weakest intended learning and the
	// strongest unrelated hit come to the floor of their prompt.
	type searched struct {
		l       Labelled
		terms   int
		results []index.Result
	}
	var all []searched
	minPos, maxNeg := math.Inf(1), 0.0
	var minPosPrompt, maxNegPrompt string
	for _, l := range append(append([]Labelled{}, pos...), neg...) {
		results, err := ix.Search(ctx, index.Query{Text: l.Prompt, Limit: DefaultMax + searchHeadroom})
		if err != nil {
			t.Fatal(err)
		}
		n := len(index.Terms(l.Prompt))
		all = append(all, searched{l, n, results})
		floor := floorFor(n, minEvidence, minEvidencePerRootTerm)
		for _, r := range results {
			e := evidence(r, counts.Learnings) / floor
			if l.Want == "" && e > maxNeg {
				maxNeg, maxNegPrompt = e, l.Prompt
			}
			if l.Want == r.ID && e < minPos {
				minPos, minPosPrompt = e, l.Prompt
			}
		}
	}
	t.Logf("weakest intended learning: %.2f × its floor (%q)", minPos, minPosPrompt)
	t.Logf("strongest unrelated hit:   %.2f × its floor (%q)", maxNeg, maxNegPrompt)
	if minPos < 1 || maxNeg >= 1 {
		t.Errorf("the floor does not separate the unrelated (%.2f) from the intended (%.2f)", maxNeg, minPos)
	}

	// The sweep the constants were chosen from.
	var b strings.Builder
	fmt.Fprintf(&b, "sweep (evidence floor, per √term, relative → score):\n")
	row := func(ev, root, rel float64) {
		var sw Score
		for _, x := range all {
			kept, _ := filterFloor(x.results, counts.Learnings, floorFor(x.terms, ev, root), rel)
			var ids []string
			for i := 0; i < len(kept) && i < DefaultMax; i++ {
				ids = append(ids, kept[i].ID)
			}
			sw.Add(x.l, ids)
		}
		fmt.Fprintf(&b, "  %.2f %.2f %.2f → %s\n", ev, root, rel, sw)
	}
	for _, ev := range []float64{1.0, 1.5, 1.75, 1.9, 2.0, 2.25, 2.5, 3.0} {
		row(ev, 0, minRelative)
		row(ev, minEvidencePerRootTerm, minRelative)
	}
	for _, root := range []float64{0.5, 0.6, 0.8, 0.9, 1.0} {
		row(minEvidence, root, minRelative)
	}
	row(minEvidence, minEvidencePerRootTerm, 0)
	t.Log(b.String())
}

// A first-day knowledge base of three learnings: the session-start query of
// the project they came from recalls the matching one, and an unrelated
// prompt still recalls nothing.
func TestFloorTinyKB(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	ix, err := index.Open(ctx, filepath.Join(dir, "documents"), filepath.Join(dir, "index"))
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	for _, l := range []*store.Learning{
		{Title: "OAuth redirect bug: login fails with state mismatch after the callback", KeyInsight: "The state cookie is set with SameSite=Strict, so the browser drops it on the cross-site redirect back from the identity provider. Switching it to SameSite=Lax.", Confidence: "medium", Project: "auth-service", Scope: "project", Tags: []string{"oauth", "samesite"}},
		{Title: "curl: use --insecure for local dev instead, the dev cert is self-signed", KeyInsight: "curl failed with a self-signed certificate; use --insecure for local dev.", Confidence: "medium", Project: "auth-service", Scope: "project", Tags: []string{"curl"}},
		{Title: "Always run the callback tests with the fake IdP before pushing", KeyInsight: "Always run the callback tests with the fake IdP (make idp-fake) before pushing.", Confidence: "high", Project: "auth-service", Scope: "project"},
	} {
		l.Created = now
		l.FillDefaults(now)
		if _, err := knowledge.New(ix).Put(ctx, l, nil, now); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct{ query, want string }{
		{"auth-service oauth redirect callback keep state cookie across", "lrn-oauth-redirect-bug-login-fails-with-state-mismatch-after-the"},
		{"write a haiku about autumn leaves", ""},
		{"rename this variable to count in the parser", ""},
	} {
		results, err := ix.Search(ctx, index.Query{Text: tc.query, Limit: 10, Project: "auth-service"})
		if err != nil {
			t.Fatal(err)
		}
		kept, _ := aboveFloor(results, 3, len(index.Terms(tc.query)))
		switch {
		case tc.want == "" && len(kept) > 0:
			t.Errorf("%q recalled %s in a tiny KB; want silence", tc.query, kept[0].ID)
		case tc.want != "" && (len(kept) == 0 || !strings.HasPrefix(kept[0].ID, tc.want)):
			t.Errorf("%q recalled %v; want %s first", tc.query, kept, tc.want)
		}
	}
}
