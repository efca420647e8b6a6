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
// stopword, the stopwords are kept: "how to" still finds something. The
// variables of a pasted log line are dropped (maskLogVariables, isHexID),
// unless they are all the text holds: a search for an address or a commit
// id looks for it.
func Terms(text string) []string {
	if t := terms(text, true); len(t) > 0 {
		return t
	}
	return terms(text, false)
}

func terms(text string, mask bool) []string {
	if mask {
		text = maskLogVariables(text)
	}
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.Is(unicode.Mn, r)
	})
	var kept, stops []string
	seen := map[string]bool{}
	for _, w := range words {
		if seen[w] || mask && isHexID(w) {
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

// The variables of a pasted log line change from one line, run or machine
// to the next and so name nothing a learning could share: timestamps (ISO
// 8601 with a time of day, and the access log's "12/Feb/2026:09:41:17
// +0000"), IPv4 addresses (a port after one stays: 5432 says postgres) and
// UUIDs. Log template mining masks the same variables (Drain: He et al.,
// ICWS 2017). Each one cut into words would add a handful of query words
// that match learnings at random, and raise the relevance floor of a long
// prompt (recall) besides. Special-purpose addresses are no variables and
// stay: 127.0.0.1, 0.0.0.0, 169.254.169.254 and masks (255.255.255.0) name
// something, and so does Go's reference time ("2006-01-02 15:04:05" is a
// layout). A bare date or time stays.

// maskLogVariables returns text without its log variables: its pieces
// (runs of letters, digits and the marks a variable holds), those that are
// no variable joined by spaces, which Terms splits on as it would on the
// text's own separators. Every variable holds a digit, so text without one,
// most prompts, is returned as it is. A hand-written scan: a regular
// expression cost a hook tens of microseconds a call and its compilation.
func maskLogVariables(text string) string {
	if !strings.ContainsAny(text, "0123456789") {
		return text
	}
	pieces := strings.FieldsFunc(text, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.Is(unicode.Mn, r) && !strings.ContainsRune("-:.+/", r)
	})
	kept := make([]string, 0, len(pieces))
	masked := false
	for i := 0; i < len(pieces); i++ {
		p := strings.TrimRight(pieces[i], ".:-")
		next := ""
		if i+1 < len(pieces) {
			next = pieces[i+1]
		}
		switch {
		case strings.HasPrefix(p, "2006-01-02"):
			kept = append(kept, pieces[i])
			continue
		case isDate(p) && len(p) > 10 && p[10] == 'T' && isClock(p[11:]):
		case isDate(p) && len(p) == 10 && isClock(next):
			i++ // the time of day after it
		case isLogDate(p):
			if len(next) == 5 && (next[0] == '+' || next[0] == '-') && digitsAt(next, 1, 4) {
				i++ // its zone
			}
		case isUUID(p):
		default:
			addr, port, ok := ipv4(p)
			if !ok || specialIPv4(addr) {
				kept = append(kept, pieces[i])
				continue
			}
			if port != "" {
				kept = append(kept, port)
			}
		}
		masked = true
	}
	if !masked {
		return text
	}
	return strings.Join(kept, " ")
}

// digitsAt reports whether s holds n ASCII digits from i.
func digitsAt(s string, i, n int) bool {
	if i+n > len(s) {
		return false
	}
	for _, c := range []byte(s[i : i+n]) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// isDate reports whether s starts with an ISO date, 2026-02-20.
func isDate(s string) bool {
	return digitsAt(s, 0, 4) && len(s) >= 10 && s[4] == '-' && digitsAt(s, 5, 2) && s[7] == '-' && digitsAt(s, 8, 2)
}

// isClock reports whether s starts with a time of day, 10:41 or 10:41:07.
func isClock(s string) bool {
	return digitsAt(s, 0, 2) && len(s) >= 5 && s[2] == ':' && digitsAt(s, 3, 2)
}

// isLogDate reports whether s is an access log's date, 12/Feb/2026 with
// its time of day or without.
func isLogDate(s string) bool {
	d := 1
	if digitsAt(s, 0, 2) {
		d = 2
	} else if !digitsAt(s, 0, 1) {
		return false
	}
	if len(s) < d+9 || s[d] != '/' || s[d+4] != '/' || !digitsAt(s, d+5, 4) {
		return false
	}
	for _, c := range []byte(s[d+1 : d+4]) {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
			return false
		}
	}
	return len(s) == d+9 || s[d+9] == ':'
}

// isUUID reports whether s is a UUID, 8-4-4-4-12 hexadecimal digits.
func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i, c := range []byte(s) {
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
				return false
			}
		}
	}
	return true
}

// ipv4 splits s into an IPv4 address and the port after it, if s is one.
func ipv4(s string) (addr, port string, ok bool) {
	if len(s) < 7 || s[0] < '0' || s[0] > '9' {
		return "", "", false
	}
	addr, port, _ = strings.Cut(s, ":")
	if port != "" && !digitsAt(port, 0, len(port)) {
		return "", "", false
	}
	dots, run := 0, 0
	for _, c := range []byte(addr) {
		switch {
		case c == '.' && run > 0:
			dots, run = dots+1, 0
		case '0' <= c && c <= '9' && run < 3:
			run++
		default:
			return "", "", false
		}
	}
	return addr, port, dots == 3 && run > 0
}

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
