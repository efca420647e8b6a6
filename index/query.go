package index

import (
	"strings"
	"unicode"

	"github.com/reflectkb/reflect/internal/lazyre"
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
	words := strings.FieldsFunc(strings.ToLower(maskLogVariables(text)), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.Is(unicode.Mn, r)
	})
	var kept, stops []string
	seen := map[string]bool{}
	for _, w := range words {
		if seen[w] || isHexID(w) {
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

// logVariables matches the parts of a pasted log line that change from one
// line, run or machine to the next and so name nothing a learning could
// share: timestamps (ISO 8601 with a time of day, and the access log's
// "12/Feb/2026:09:41:17 +0000"), IPv4 addresses (a port after one stays:
// 5432 says postgres) and UUIDs. Special-purpose addresses are no
// variables and stay: 127.0.0.1, 0.0.0.0, 169.254.169.254 and masks
// (255.255.255.0) name something, and so does Go's reference time
// ("2006-01-02 15:04:05" is a layout). Log template mining masks the same
// variables (Drain: He et al., ICWS 2017). Each one cut into words would
// add a handful of query words that match learnings at random, and raise
// the relevance floor of a long prompt (recall) besides. A bare date or
// time stays.
var logVariables = lazyre.New(`\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z\b|[+-]\d{2}:?\d{2}\b)?|\b\d{1,2}/[A-Za-z]{3}/\d{4}(?::\d{2}){0,3}(?: [+-]\d{4})?|\b\d{1,3}(?:\.\d{1,3}){3}\b|(?i:\b[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12}\b)`)

// maskLogVariables replaces the log variables of text by spaces.
func maskLogVariables(text string) string {
	return logVariables.Get().ReplaceAllStringFunc(text, func(m string) string {
		if ipv4.MatchString(m) && specialIPv4(m) || strings.HasPrefix(m, "2006-01-02") {
			return m
		}
		return " "
	})
}

var ipv4 = lazyre.New(`^\d{1,3}(?:\.\d{1,3}){3}$`)

// specialIPv4 reports whether an IPv4 address is one of the special-purpose
// ones that mean the same on every machine (RFC 6890): this host
// (0.0.0.0/8), loopback (127/8), link-local (169.254/16, the cloud metadata
// service) and broadcast or netmasks (255.*).
func specialIPv4(a string) bool {
	first := a[:strings.IndexByte(a, '.')]
	return first == "0" || first == "127" || first == "255" || strings.HasPrefix(a, "169.254.")
}

// isHexID reports whether a word is a hexadecimal id (a commit, a request
// or container id, a pod's hash: "3f0a2e1c", "6c8d9f7b5"): eight digits or
// more, with both letters and digits.
func isHexID(w string) bool {
	if len(w) < 8 {
		return false
	}
	letters, digits := 0, 0
	for _, r := range w {
		switch {
		case '0' <= r && r <= '9':
			digits++
		case 'a' <= r && r <= 'f':
			letters++
		default:
			return false
		}
	}
	return letters > 0 && digits > 0
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
