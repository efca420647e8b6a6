package recall

import (
	"regexp"
	"strings"
	"unicode"

	"github.com/reflectkb/reflect/index"
)

// The code-span way through the gate. A prompt that quotes code in
// backticks — `v := v`, `set -o pipefail` — names exactly what it asks
// about, but the index splits the quote into words that are each common
// ("v" is no word, "set" and "go" are in many learnings), so neither the
// floor nor the classifier sees how telling the quote is. A learning whose
// title or key insight holds the quote verbatim is the one meant, when it
// is also the best lexical hit and shares more of the prompt than the quote
// alone: "what does `git rebase -i` do" matches a learning that mentions
// git rebase -i in passing on two words only, and must stay silent.

// codeSpan is a backtick quote of one line.
var codeSpan = regexp.MustCompile("`([^`\n]{3,80})`")

// minSpanTerms and minSpanMatched are how much of the query (words, and
// their share) a hit that holds a quote must match besides.
const (
	minSpanTerms   = 3
	minSpanMatched = 0.5
)

// codeSpans returns the prompt's backtick quotes that read as code rather
// than a quoted name (`--verbose`, `created_by`, which the identifier
// feature already weighs): more than one token, holding a letter,
// lowercased with their spaces collapsed.
func codeSpans(query string) []string {
	var out []string
	for _, m := range codeSpan.FindAllStringSubmatch(query, -1) {
		s := strings.ToLower(strings.Join(strings.Fields(m[1]), " "))
		if len(strings.Fields(s)) < 2 || !strings.ContainsFunc(s, unicode.IsLetter) {
			continue
		}
		out = append(out, s)
	}
	return out
}

// quotesCode reports whether r's title or key insight holds one of the
// query's code spans verbatim and r matches enough of the query besides.
func quotesCode(r index.Result, query string, terms int) bool {
	spans := codeSpans(query)
	if len(spans) == 0 || terms == 0 || r.Why.MatchedTerms < minSpanTerms ||
		float64(r.Why.MatchedTerms)/float64(terms) < minSpanMatched {
		return false
	}
	have := strings.ToLower(strings.Join(strings.Fields(r.Title+" \n "+r.KeyInsight), " "))
	for _, s := range spans {
		if strings.Contains(have, s) {
			return true
		}
	}
	return false
}
