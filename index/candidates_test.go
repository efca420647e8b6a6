package index

import (
	"slices"
	"strings"
	"testing"
)

// In a large KB the first candidate query pairs the rarest common words and
// keeps rare words alone; the plain OR of every selective word is the
// fallback. Words in most documents never select candidates. Small KBs use
// the plain OR only.
func TestCandidateQueries(t *testing.T) {
	cs := corpusStats{docs: 10000, df: map[string]int{
		"oauth": 1500, "login": 1600, "callback": 1400, "fail": 700, "state": 3,
		"token": 900, "cooki": 1200, "fix": 6000,
	}}
	terms := []string{"fix", "oauth", "login", "callback", "fails", "state", "token", "cookie"}
	stems := []string{"fix", "oauth", "login", "callback", "fail", "state", "token", "cooki"}
	qs := cs.candidateQueries(terms, stems)
	if len(qs) != 2 {
		t.Fatalf("queries = %q, want a restricted one and the fallback", qs)
	}
	if strings.Contains(qs[0], `"fix"`) || strings.Contains(qs[1], `"fix"`) {
		t.Errorf("a word in 60%% of documents selects candidates: %q", qs)
	}
	if !strings.Contains(qs[0], `"state"`) || strings.Contains(qs[0], `"state" AND`) || strings.Contains(qs[0], `AND "state"`) {
		t.Errorf("the rare word should stand alone: %s", qs[0])
	}
	// The five rarest common words (fails 700, token 900, cookie 1200,
	// callback 1400, oauth 1500) make 10 pairs; login (1600) is left out.
	if n := strings.Count(qs[0], " AND "); n != 10 {
		t.Errorf("%d pairs, want 10: %s", n, qs[0])
	}
	if strings.Contains(qs[0], `"login"`) {
		t.Errorf("the sixth common word was paired: %s", qs[0])
	}
	if want := quoteAll([]string{"oauth", "login", "callback", "fails", "state", "token", "cookie"}); qs[1] != want {
		t.Errorf("fallback = %s, want %s", qs[1], want)
	}

	small := corpusStats{docs: 500, df: cs.df}
	if got := small.candidateQueries(terms, stems); !slices.Equal(got, []string{quoteAll(terms)}) {
		t.Errorf("small KB queries = %q", got)
	}
}
