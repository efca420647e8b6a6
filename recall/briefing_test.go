package recall

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/reflectkb/reflect/index"
)

func writeProjectDoc(t *testing.T, docs, id, title, insight, confidence, scope, project, updated string) {
	t.Helper()
	doc := fmt.Sprintf("---\nid: %s\ntitle: %q\nconfidence: %s\nscope: %s\nproject: %s\nkey_insight: %q\ncreated: %s\nupdated: %s\n---\n## Problem\n\n%s\n",
		id, title, confidence, scope, project, insight, updated, updated, insight)
	if err := os.WriteFile(filepath.Join(docs, id+".md"), []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
}

var briefNow = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

// A new user's case: one project learning in payments-api, a repository
// whose only commit is "init". The learning shares no word with the
// project's name, branch or commits, and is in the SessionStart block;
// another project's learning is not, even when its words match.
func TestSessionStartBriefsTheProject(t *testing.T) {
	GitEnv(t)
	ix := NewKB(t, func(docs string) {
		CopyCorpus(t, docs)
		writeProjectDoc(t, docs, "lrn-stripe-raw-body", "Stripe webhook signatures need the raw request body",
			"Verify the Stripe-Signature header against the unparsed body; a JSON middleware that parses it first breaks every signature check.",
			"high", "project", "payments-api", "2026-11-01T00:00:00Z")
		writeProjectDoc(t, docs, "lrn-other-payments-api-init", "payments api init checklist",
			"When you init a payments api, run the migrations first.", "high", "project", "other", "2026-11-20T00:00:00Z")
	})
	dir := filepath.Join(t.TempDir(), "checkout")
	NewRepo(t, dir, "main", "git@github.com:acme/payments-api.git", "init")
	res, err := Recall(context.Background(), ix, Request{Kind: SessionStart, Cwd: dir, Now: briefNow, GitTimeout: gitWait})
	if err != nil {
		t.Fatal(err)
	}
	if res.Project != "payments-api" {
		t.Fatalf("project = %q", res.Project)
	}
	got := IDs(res.Injected)
	if !slices.Contains(got, "lrn-stripe-raw-body") {
		t.Errorf("injected %q (skipped %q), want the project's learning", got, res.Skipped)
	}
	if slices.Contains(got, "lrn-other-payments-api-init") {
		t.Errorf("injected %q: another project's learning", got)
	}
	for _, h := range res.Injected {
		if h.ID != "lrn-stripe-raw-body" && !isGlobalInCorpus(t, ix, h.ID) {
			t.Errorf("injected %s, neither this project's nor global", h.ID)
		}
	}
}

// isGlobalInCorpus reports whether id names a learning that is not scoped
// to a project.
func isGlobalInCorpus(t *testing.T, ix *index.Index, id string) bool {
	t.Helper()
	res, err := ix.Search(context.Background(), index.Query{Text: id, Limit: 50})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		if r.ID == id {
			return !otherProject(r, "payments-api")
		}
	}
	return true
}

// The briefing ranks by confidence × recency and stays within the block's
// count; in another project (or none) it adds nothing.
func TestSessionStartBriefingRanksAndBounds(t *testing.T) {
	GitEnv(t)
	ix := NewKB(t, func(docs string) {
		writeProjectDoc(t, docs, "lrn-a-high-new", "alpha deploy needs the VPN", "Connect the VPN before deploying.", "high", "project", "payments-api", "2026-11-20T00:00:00Z")
		writeProjectDoc(t, docs, "lrn-b-high-old", "bravo fixtures live in testdata", "Regenerate fixtures with make fixtures.", "high", "project", "payments-api", "2025-11-20T00:00:00Z")
		writeProjectDoc(t, docs, "lrn-c-low-new", "charlie lint is slow", "Run lint on changed files only.", "low", "project", "payments-api", "2026-11-21T00:00:00Z")
		writeProjectDoc(t, docs, "lrn-d-medium-new", "delta queue names", "Queue names carry the region.", "medium", "project", "payments-api", "2026-11-19T00:00:00Z")
		writeProjectDoc(t, docs, "lrn-e-global", "echo global note", "Global notes need words to match.", "high", "global", "", "2026-11-21T00:00:00Z")
	})
	dir := filepath.Join(t.TempDir(), "checkout")
	NewRepo(t, dir, "main", "git@github.com:acme/payments-api.git", "init")
	res, err := Recall(context.Background(), ix, Request{Kind: SessionStart, Cwd: dir, Max: 3, Now: briefNow, GitTimeout: gitWait})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := IDs(res.Injected), []string{"lrn-a-high-new", "lrn-d-medium-new", "lrn-c-low-new"}; !slices.Equal(got, want) {
		t.Errorf("injected %q, want %q (confidence × recency, three at most, no ungated global)", got, want)
	}

	other := filepath.Join(t.TempDir(), "checkout")
	NewRepo(t, other, "main", "git@github.com:acme/ledger.git", "init")
	res, err = Recall(context.Background(), ix, Request{Kind: SessionStart, Cwd: other, Now: briefNow, GitTimeout: gitWait})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Injected) != 0 {
		t.Errorf("in another project: injected %q", IDs(res.Injected))
	}
}

// A session already given the briefing gets the next learnings, not the
// same ones again.
func TestSessionStartBriefingDedupes(t *testing.T) {
	GitEnv(t)
	ix := NewKB(t, func(docs string) {
		for i := range 4 {
			writeProjectDoc(t, docs, fmt.Sprintf("lrn-p%d", i), fmt.Sprintf("note %c", 'k'+i), "Something worth knowing here.", "high", "project", "payments-api",
				fmt.Sprintf("2026-11-%02dT00:00:00Z", 20-i))
		}
	})
	dir := filepath.Join(t.TempDir(), "checkout")
	NewRepo(t, dir, "main", "git@github.com:acme/payments-api.git", "init")
	req := Request{Kind: SessionStart, Cwd: dir, Max: 3, Now: briefNow, SessionID: "s1", StateDir: t.TempDir(), GitTimeout: gitWait}
	first, err := Recall(context.Background(), ix, req)
	if err != nil {
		t.Fatal(err)
	}
	req.Source = "resume"
	second, err := Recall(context.Background(), ix, req)
	if err != nil {
		t.Fatal(err)
	}
	if got := IDs(first.Injected); !slices.Equal(got, []string{"lrn-p0", "lrn-p1", "lrn-p2"}) {
		t.Errorf("first: %q", got)
	}
	if got := IDs(second.Injected); !slices.Equal(got, []string{"lrn-p3"}) {
		t.Errorf("second: %q, want only the one not yet given", got)
	}
}

func TestWithBriefing(t *testing.T) {
	r := func(id, scope, project string) index.Result {
		return index.Result{ID: id, Scope: scope, Project: project}
	}
	brief := []index.Result{r("p1", "project", "pay"), r("p2", "project", "pay"), r("p3", "project", "pay")}
	kept := []index.Result{r("g1", "global", ""), r("o1", "project", "other"), r("p2", "project", "pay")}
	got, ev := withBriefing(brief, kept, []float64{2, 3, 4}, "pay", 3)
	var ids []string
	for _, x := range got {
		ids = append(ids, x.ID)
	}
	// p2 cleared the floor: first. One slot is left to the global hit.
	if want := []string{"p2", "p1", "g1", "p3"}; !slices.Equal(ids, want) {
		t.Errorf("order %q, want %q", ids, want)
	}
	if want := []float64{4, 0, 2, 0}; !slices.Equal(ev, want) {
		t.Errorf("evidence %v, want %v", ev, want)
	}
	if got, _ := withBriefing(nil, kept[:2], []float64{1, 1}, "pay", 3); len(got) != 1 || got[0].ID != "g1" {
		t.Errorf("without a briefing: %v", got)
	}
}

func TestBriefingScore(t *testing.T) {
	s := func(conf, updated string) float64 {
		return briefingScore(index.Result{Confidence: conf, Updated: updated}, briefNow)
	}
	if !(s("high", "2026-11-22T10:00:00Z") > s("medium", "2026-11-22T10:00:00Z") && s("medium", "2026-11-22T10:00:00Z") > s("low", "2026-11-22T10:00:00Z")) {
		t.Error("confidence does not order")
	}
	if got := s("high", "2026-08-24T10:00:00Z"); got < 0.49 || got > 0.51 {
		t.Errorf("90 days old: %v, want half", got)
	}
	if got := s("high", "not a time"); got != 1 {
		t.Errorf("unparsable time: %v, want no decay", got)
	}
}
