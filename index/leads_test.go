package index

import (
	"strings"
	"testing"
)

// "lost my commits after checking out a tag" ranked the learning it
// matches third: its BM25F led the others' by a factor of about four, but
// rank fusion squeezed lexical ranks 1 and 3 into 3% while its medium
// confidence cost 20%. Factors settle near-ties; they do not overturn a
// large lexical lead.
func TestSearchLexicalLeadBeatsConfidence(t *testing.T) {
	k := newKB(t)
	k.write(t, doc{ID: "lrn-tag-detached", Confidence: "medium",
		Title:      "Commits made after checking out a tag vanish when you switch branches",
		KeyInsight: "Checking out a tag detaches HEAD, so new commits belong to no branch; find them with git reflog.",
		Tags:       []string{"git", "detached-head", "tag"},
		Symptoms:   []string{"lost commits after checkout of a tag"},
		Body:       "## Problem\nI checked out v2.3.0, committed, then checked out main: the commits were lost.\n"})
	k.write(t, doc{ID: "lrn-squash", Title: "Squash commits before merging a feature branch",
		KeyInsight: "git rebase -i squashes fixup commits.", Body: "## Problem\nToo many commits.\n"})
	k.write(t, doc{ID: "lrn-sign-tags", Title: "Sign release tags with an ssh key",
		KeyInsight: "git tag -s signs a tag.", Body: "## Problem\nUnsigned releases.\n"})
	k.write(t, doc{ID: "lrn-lost-stash", Title: "A dropped stash can be found with git fsck",
		KeyInsight: "git fsck --lost-found lists dangling commits.", Body: "## Problem\nLost a stash.\n"})
	for i, w := range []string{"docker volumes", "nginx upload limit", "redis eviction", "kafka rebalance"} {
		k.write(t, simple(string(rune('a'+i))+"-other", w))
	}
	ix := k.open(t)
	res := search(t, ix, Query{Text: "lost my commits after checking out a tag", Limit: 5})
	if len(res) == 0 || res[0].ID != "lrn-tag-detached" {
		for _, r := range res {
			t.Logf("%s bm25 %.2f fused %.4f score %.4f", r.ID, r.Why.BM25, r.Why.Fused, r.Score)
		}
		t.Fatalf("ranked %v; want lrn-tag-detached first", ids(res))
	}
}

func TestKeepLexicalLeads(t *testing.T) {
	r := func(id string, bm25, fused, factor float64) Result {
		return Result{ID: id, Score: fused * factor, Why: Why{BM25: bm25, Fused: fused}}
	}
	for _, tc := range []struct {
		name string
		in   []Result // sorted by score, as search sorts them
		want string
	}{
		{"a large lexical lead survives a lower confidence",
			[]Result{r("b", 2.64, 1/61.0, 1), r("c", 3.1, 1/62.0, 1), r("a", 9.82, 1/60.0, 0.8)}, "a b c"},
		{"a near-tie is settled by the factors",
			[]Result{r("b", 9.0, 1/61.0, 1), r("a", 9.82, 1/60.0, 0.8)}, "b a"},
		{"a lead of a quarter survives low confidence",
			[]Result{r("b", 7.35, 0.78, 1), r("a", 9.44, 1.0, 0.55)}, "a b"},
		{"a result other signals rank higher keeps its place",
			[]Result{r("b", 2.64, 1/30.0, 1), r("a", 9.82, 1/60.0, 0.8)}, "b a"},
		{"without lexical evidence nothing moves",
			[]Result{r("b", 0, 1/61.0, 1), r("a", 0, 1/60.0, 0.8)}, "b a"},
	} {
		keepLexicalLeads(tc.in)
		if got := strings.Join(ids(tc.in), " "); got != tc.want {
			t.Errorf("%s: order %q, want %q", tc.name, got, tc.want)
		}
	}
}

// search listed vector-only tail hits at a score of 0.0003 like results;
// hits with a fifth or less of the best lexical evidence are marked weak.
func TestSearchMarksWeakHits(t *testing.T) {
	k := newKB(t)
	k.write(t, doc{ID: "lrn-sqlite", Title: "SQLite database is locked with concurrent writers",
		KeyInsight: "Enable WAL and set busy_timeout for concurrent writers.", Tags: []string{"sqlite", "wal"},
		Body: "## Problem\nTwo writers got database is locked.\n"})
	k.write(t, doc{ID: "lrn-long", Title: "Notes from the quarterly planning meeting",
		Body: "## Notes\n" + strings.Repeat("roadmap hiring budget offsite planning ", 60) + "one writer asked about it.\n"})
	for i, w := range []string{"docker volumes", "nginx upload limit", "redis eviction", "kafka rebalance"} {
		k.write(t, simple(string(rune('a'+i))+"-other", w))
	}
	ix := k.open(t)
	res := search(t, ix, Query{Text: "sqlite database locked by concurrent writers", Limit: 10})
	if len(res) < 2 || res[0].ID != "lrn-sqlite" || res[0].Weak {
		t.Fatalf("want lrn-sqlite first and not weak, got %+v", res)
	}
	weak := 0
	for _, r := range res[1:] {
		want := r.Why.BM25 < weakShare*res[0].Why.BM25
		if r.Weak != want {
			t.Errorf("%s (bm25 %.2f against %.2f): weak %v, want %v", r.ID, r.Why.BM25, res[0].Why.BM25, r.Weak, want)
		}
		if r.Weak {
			weak++
		}
	}
	if weak == 0 {
		t.Errorf("no tail hit marked weak among %v", ids(res))
	}
	// Nothing matches a word of the query: nothing to compare with.
	none := []Result{{ID: "x", Why: Why{VectorRank: 1}}}
	markWeak(none)
	if none[0].Weak {
		t.Error("a vector-only result is weak only beside lexical ones")
	}
}
