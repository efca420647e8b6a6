package recall

import (
	"slices"
	"testing"

	"github.com/reflectkb/reflect/index"
)

func TestCodeSpans(t *testing.T) {
	for _, tc := range []struct {
		query string
		want  []string
	}{
		{"do I still need `v := v` before `go  func()` in a loop?", []string{"v := v", "go func()"}},
		{"add a `--verbose` flag and `created_by`", nil},                // one token: a name, not code
		{"what does the `?` operator do", nil},                          // too short
		{"a ``` fence\n`not closed", nil},                               // no span on one line
		{"`123 456` is not code", nil},                                  // no letter
		{"is `Set -o  PipeFail` worth it", []string{"set -o pipefail"}}, // case and spaces folded
	} {
		if got := codeSpans(tc.query); !slices.Equal(got, tc.want) {
			t.Errorf("codeSpans(%q) = %q, want %q", tc.query, got, tc.want)
		}
	}
}

func TestQuotesCode(t *testing.T) {
	hit := func(title, insight string, matched int) index.Result {
		return index.Result{Title: title, KeyInsight: insight, Why: index.Why{MatchedTerms: matched}}
	}
	q := "is `set -o pipefail` worth it in our release script?"
	for _, tc := range []struct {
		name  string
		r     index.Result
		terms int
		want  bool
	}{
		{"in the key insight", hit("set -e misses pipelines", "add set -o\npipefail at the top", 3), 5, true},
		{"in the title", hit("Use set -o pipefail", "", 3), 5, true},
		{"too few words besides", hit("Use set -o pipefail", "", 2), 5, false},
		{"too small a share", hit("Use set -o pipefail", "", 3), 7, false},
		{"not verbatim", hit("set -euo pipefail exits on grep", "", 4), 5, false},
	} {
		if got := quotesCode(tc.r, q, tc.terms); got != tc.want {
			t.Errorf("%s: quotesCode = %v, want %v", tc.name, got, tc.want)
		}
	}
	if quotesCode(hit("Use set -o pipefail", "", 5), "is set -o pipefail worth it in our release script?", 5) {
		t.Error("a prompt without backticks quotes no code")
	}
}
