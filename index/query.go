package index

import (
	"strings"
	"unicode"
)

// maxQueryTerms bounds how many words of a long prompt are searched: past a
// few dozen, extra OR terms only add noise and time.
const maxQueryTerms = 48

// stopwords are dropped from queries (not from documents): they match almost
// every learning and drown the words that carry the meaning.
var stopwords = toSet(`a an and are as at be but by for if in into is it no not of on or such that the their then there these they this to was will with i you he she we me my your our its his her them what when where who how which do does did have has had from about`)

func toSet(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// Terms splits text the way FTS5's unicode61 tokenizer does (letters and
// digits; everything else separates), lowercases, drops stopwords and
// duplicates, and keeps at most maxQueryTerms. When every word is a
// stopword, the stopwords are kept: "how to" still finds something.
func Terms(text string) []string {
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.Is(unicode.Mn, r)
	})
	var kept, stops []string
	seen := map[string]bool{}
	for _, w := range words {
		if seen[w] {
			continue
		}
		seen[w] = true
		if stopwords[w] || (len([]rune(w)) == 1 && !unicode.IsDigit([]rune(w)[0])) {
			stops = append(stops, w)
			continue
		}
		kept = append(kept, w)
	}
	if len(kept) == 0 {
		kept = stops
	}
	if len(kept) > maxQueryTerms {
		kept = kept[:maxQueryTerms]
	}
	return kept
}

// QuoteQuery turns free text into an FTS5 query: every term in double
// quotes, joined with OR, so that FTS5 operators, column filters, prefixes
// and unbalanced quotes in the user's text are only ever words. It returns
// "" when the text has no searchable words.
func QuoteQuery(text string) string {
	return quoteAll(Terms(text))
}

func quoteAll(terms []string) string {
	var b strings.Builder
	for i, t := range terms {
		if i > 0 {
			b.WriteString(" OR ")
		}
		b.WriteByte('"')
		b.WriteString(strings.ReplaceAll(t, `"`, `""`))
		b.WriteByte('"')
	}
	return b.String()
}

// Identifiers returns the tokens of text that look like code: paths,
// snake_case and CamelCase names, flags, error codes, versions. They are
// matched as substrings in the trigram table, where word splitting would
// lose them ("-fPIC", "ERR_SSL_PROTOCOL_ERROR", "callback/cookie.go").
func Identifiers(text string) []string {
	var out []string
	seen := map[string]bool{}
	for _, f := range strings.Fields(text) {
		tok := strings.Trim(f, "\"'`()[]{}<>,;!?")
		tok = strings.TrimRight(tok, ".:")
		if len(tok) < 3 || len(tok) > 128 || !looksLikeIdentifier(tok) {
			continue
		}
		key := strings.ToLower(tok)
		if seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, tok)
		if len(out) == maxQueryTerms {
			break
		}
	}
	return out
}

func looksLikeIdentifier(tok string) bool {
	var letters, digits, upperInside, marks int
	for i, r := range tok {
		switch {
		case unicode.IsLetter(r):
			letters++
			if i > 0 && unicode.IsUpper(r) {
				upperInside++
			}
		case unicode.IsDigit(r):
			digits++
		case strings.ContainsRune("_./:-+#=@", r):
			marks++
		default:
			return false
		}
	}
	if letters == 0 {
		return false
	}
	switch {
	case marks > 0 && letters+digits >= 2:
		return true
	case digits > 0:
		return true // E1234, sha256, utf8
	case upperInside > 0:
		return true // CamelCase, fPIC, SameSite
	}
	return false
}

// Stems returns the words of text as the lexical index stores them:
// lowercased and stemmed (Snowball English), so callers can tell which
// words of a title matched a query ("cookies" matches "cookie").
func Stems(text string) []string {
	return analyze(text, map[string]string{})
}
