package index

import (
	"fmt"
	"math"
	"slices"
	"testing"
)

func TestExpandVocabulary(t *testing.T) {
	cases := []struct {
		text  string
		added []string
	}{
		{"pod restarts with OOMKilled", []string{"out", "memory", "oom", "exit", "code", "137"}},
		{"container ran out of memory", []string{"oom", "oomkilled", "exit", "code", "137"}},
		{"k8s rollout stuck", []string{"kubernetes"}},
		{"the ENV var is empty in CI", []string{"environment", "variable"}},
		// Spelled-out forms are not expanded into abbreviations.
		{"kubernetes rollout stuck", nil},
		{"write a test for the test database", nil},
		// A phrase matches on consecutive words only.
		{"env is a var", nil},
		{"nothing to expand here", nil},
	}
	for _, c := range cases {
		terms := Terms(c.text)
		got, aliases := expandVocabulary(c.text, terms)
		if !slices.Equal(got[:len(terms)], terms) {
			t.Errorf("%q: the query's own words changed: %v", c.text, got)
		}
		if added := got[len(terms):]; !slices.Equal(added, c.added) {
			t.Errorf("%q: added %v, want %v", c.text, added, c.added)
		}
		for _, w := range c.added {
			if len(aliases[w]) == 0 {
				t.Errorf("%q: %q added without the words it stands for", c.text, w)
			}
		}
	}
	// Bounded however many groups a query names.
	many := "oom k8s env var db repo dir deps auth creds perms config tz pg js gh"
	got, _ := expandVocabulary(many, Terms(many))
	if n := len(got) - len(Terms(many)); n > maxExpansion {
		t.Errorf("added %d words, want at most %d", n, maxExpansion)
	}
}

// A prompt that says k8s finds the learning that says Kubernetes; the
// alias is worth no more than the word it stands for.
func TestSearchVocabulary(t *testing.T) {
	k := newKB(t)
	k.write(t, doc{ID: "lrn-kube", Title: "Kubernetes rollout stuck on a failing readiness probe", Body: "kubectl rollout status hangs.\n"})
	k.write(t, doc{ID: "lrn-oom", Title: "Container killed with exit code 137", KeyInsight: "The kernel OOM killer ended it; raise the memory limit.", Body: "dmesg shows it.\n"})
	for i := 0; i < 6; i++ {
		k.write(t, doc{ID: fmt.Sprintf("lrn-other%d", i), Title: fmt.Sprintf("Unrelated note %d about caching", i), Body: "cache invalidation.\n"})
	}
	ix := k.open(t)
	if res := search(t, ix, Query{Text: "k8s stuck", Signals: Lexical}); len(res) == 0 || res[0].ID != "lrn-kube" {
		t.Errorf("k8s stuck: %v, want lrn-kube first", ids(res))
	}
	if res := search(t, ix, Query{Text: "pod ran out of memory", Signals: Lexical}); len(res) == 0 || res[0].ID != "lrn-oom" {
		t.Errorf("out of memory: %v, want lrn-oom first", ids(res))
	}
	// "kubernetes" typed in full and "k8s" expanded to it score the
	// learning alike but for the alias weight.
	full := search(t, ix, Query{Text: "kubernetes", Signals: Lexical})
	short := search(t, ix, Query{Text: "k8s", Signals: Lexical})
	if len(full) == 0 || len(short) == 0 {
		t.Fatalf("kubernetes: %v, k8s: %v", ids(full), ids(short))
	}
	if got, want := short[0].Why.BM25, aliasWeight*full[0].Why.BM25; math.Abs(got-want) > 1e-9 {
		t.Errorf("k8s scores %v, want %v (alias weight × kubernetes' %v)", got, want, full[0].Why.BM25)
	}
}
