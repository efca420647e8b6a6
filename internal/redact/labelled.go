package redact

import (
	"bytes"
	"strings"
)

// labelWords find candidate keys; keyKind decides whether the whole key
// names a secret. "key" alone is only a marker: api_key, private_key and
// friends qualify, sort_key does not.
var labelWords = []string{"secret", "token", "pass", "auth", "cred", "key"}

// labelledAt redacts a value labelled as a secret around the label word
// found at i (wlen bytes):
//
//	KEY=value   export KEY="value"   key: value   "key": "value"   key := "value"
//	--password value   Authorization: Bearer value   the token is <high-entropy>
//
// It returns where the next hit may start: after the key, or after the
// value if that was redacted or is long (so runs such as "token=token=…"
// stay linear). A short value that is code is searched for keys inside it.
func labelledAt(s string, i, wlen int, add addFunc) int {
	ks, ke := i, i+wlen
	for ks > 0 && isKeyChar(s[ks-1]) {
		ks--
	}
	for ke < len(s) && isKeyChar(s[ke]) {
		ke++
	}
	redacted := false
	end := labelled(s, ks, ke, func(start, end int, kind string, prio int) {
		redacted = true
		add(start, end, kind, prio)
	})
	if redacted || end-ke > 1024 {
		return max(end, ke)
	}
	return ke
}

func isKeyChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.'
}

// labelled handles the key s[ks:ke] and returns the end of the value it
// looked at (0 if none). The cheap syntax checks come first: most label
// words in a text are prose, not keys.
func labelled(s string, ks, ke int, add addFunc) int {
	key := s[ks:ke]
	p := ke
	// The closing quote of a quoted key, plain or JSON-escaped.
	if p < len(s) && isQuote(s[p]) {
		p++
	} else if p+1 < len(s) && s[p] == '\\' && isQuote(s[p+1]) {
		p += 2
	}
	q := skipBlank(s, p)
	sep := separator(s, q)
	if sep == "" {
		if end, ok := codeLabel(s, ks, ke, p, q, add); ok {
			return end
		}
		switch {
		case q == p || q >= len(s):
		case strings.HasPrefix(key, "--") && p == ke && s[q] != '-':
			// --password value; but in "--token password: X" the next
			// word is a label of its own, left to its own hit.
			if kind, ok := keyKind(key); ok && kind != "authorization" && !labelNext(s, q) {
				return label{key: key, kind: kind, flag: true}.value(s, q, add)
			}
		case plainWord(key):
			// prose: "the token is <value>"; only high-entropy values.
			w := q
			for w < len(s) && s[w] >= 'a' && s[w] <= 'z' {
				w++
			}
			if v := s[q:w]; (v == "is" || v == "was") && w < len(s) && (s[w] == ' ' || s[w] == '\t') {
				a, b := bareValue(s, skipBlank(s, w), "")
				if v := s[a:b]; len(v) >= 12 && letterAndDigit(v) && !strings.Contains(v, "[REDACTED:") {
					if kind, ok := keyKind(key); ok && kind != "authorization" {
						add(a, b, kind, prioLabeled)
					}
				}
				return b
			}
		}
		return 0
	}
	if sep == ":" && ks > 0 && s[ks-1] == ':' {
		return 0 // a segment of a colon-separated name (ARN, URN), not a label
	}
	kind, ok := keyKind(key)
	if !ok {
		return 0
	}
	q = skipBlank(s, q+len(sep))
	if kind == "authorization" {
		return authorization(s, q, add)
	}
	return label{
		key: key, kind: kind, sep: sep,
		inQuery: ks > 0 && (s[ks-1] == '?' || s[ks-1] == '&'),
		inConn:  ks > 0 && s[ks-1] == ';',
	}.value(s, q, add)
}

// codeLabel handles the ways code and config name a secret without an
// assignment operator next to the key s[ks:ke] (p is after its closing
// quote, q after the blanks that follow):
//
//	<api_token>value</api_token>           an XML element
//	setProperty("api_token", "value")      a call's key and value arguments
//	var apiToken string = "value"          a declaration with a type
//
// ok is false when none applies.
func codeLabel(s string, ks, ke, p, q int, add addFunc) (end int, ok bool) {
	switch {
	case ks > 0 && s[ks-1] == '<' && p == ke && p < len(s) && s[p] == '>':
		return xmlElement(s, ks, ke, add), true
	case p > ke && ks > 1 && isQuote(s[ks-1]) && s[ks-2] == '(' && q < len(s) && s[q] == ',':
		// The value must be a quoted string that looks random: a call
		// such as strings.ReplaceAll(s, "token", "x") holds words.
		r := skipBlank(s, q+1)
		if quoteLen(s, r) != 1 {
			return 0, false
		}
		kind, isKey := keyKind(s[ks:ke])
		c := closingQuote(s, r+1, s[r:r+1])
		if !isKey || kind == "authorization" || c < 0 {
			return 0, false
		}
		if v := s[r+1 : c]; len(v) >= 8 && (letterAndDigit(v) || len(v) >= 12 && strings.Trim(v, "0123456789") == "") && !strings.ContainsAny(v, " \t") && !notSecret(v, true) {
			add(r+1, c, kind, prioLabeled)
		}
		return c, true
	case q > p:
		w := q
		for w < len(s) && isWordChar(s[w]) {
			w++
		}
		if w > q && isTypeName(s[q:w]) {
			if r := skipBlank(s, w); separator(s, r) == "=" {
				if kind, isKey := keyKind(s[ks:ke]); isKey && kind != "authorization" {
					return label{key: s[ks:ke], kind: kind, sep: "="}.value(s, skipBlank(s, r+1), add), true
				}
			}
		}
	}
	return 0, false
}

// xmlElement redacts the text of <key>value</key> when key names a secret;
// ks and ke bound the key after '<'. The value must be one word, so an
// element holding prose (<token_help>Paste your token</token_help>) stays.
func xmlElement(s string, ks, ke int, add addFunc) int {
	kind, ok := keyKind(s[ks:ke])
	if !ok {
		return ke
	}
	a := ke + 1
	lt := strings.IndexByte(s[a:min(len(s), a+maxQuoted)], '<')
	if lt < 0 || !strings.HasPrefix(s[a+lt:], "</"+s[ks:ke]+">") {
		return ke
	}
	b := a + lt
	for a < b && isSpace(s[a]) {
		a++
	}
	for b > a && isSpace(s[b-1]) {
		b--
	}
	if v := s[a:b]; !strings.ContainsAny(v, " \t\r\n") && !notSecret(v, true) && len(v) >= 3 {
		add(a, b, kind, prioLabeled)
	}
	return b
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// label is a key that names a secret and how its value was introduced.
type label struct {
	key, kind, sep string
	// inQuery: the key is a URL query parameter, so & and # end the value.
	inQuery bool
	// inConn: the key follows a ';', a segment of a connection string
	// (AccountName=x;AccountKey=…;EndpointSuffix=…), so ';' ends the value.
	inConn bool
	// flag: the key is a --option, so even a two-character value that is
	// not a lowercase word (--password PW) is a password.
	flag bool
}

// value redacts the value starting at q unless it is not a secret, and
// returns the end of the value.
func (l label) value(s string, q int, add addFunc) int {
	if q >= len(s) {
		return q
	}
	a, b, quoted := q, q, false
	if n := quoteLen(s, q); n > 0 {
		if c := closingQuote(s, q+n, s[q:q+n]); c >= 0 {
			a, b, quoted = q+n, c, true
		} else {
			a, b = bareValue(s, q+n, l.stops())
		}
	} else {
		a, b = bareValue(s, q, l.stops())
		// "Bearer xyz" as a value: the credential is the second word.
		if w := asciiLower(s[a:b]); (w == "bearer" || w == "basic") && b < len(s) && (s[b] == ' ' || s[b] == '\t') {
			if c, d := bareValue(s, skipBlank(s, b), l.stops()); d-c >= 3 && isWordChar(s[c]) {
				b = d
			}
		}
	}
	v := s[a:b]
	if l.flag && len(v) == 2 && !quoted && hasUpperOrDigit(v) && isWordChar(v[0]) && isWordChar(v[1]) {
		add(a, b, l.kind, prioLabeled)
		return b
	}
	if notSecret(v, quoted) {
		return b
	}
	if quoted {
		// "prefix" + rest is code building a string, not a secret.
		if r := skipBlank(s, b+quoteLen(s, b)); r < len(s) && s[r] == '+' {
			return b
		}
	} else {
		if l.sep == ":" && isTypeName(v) {
			// token: str = "value"
			if r := skipBlank(s, b); separator(s, r) == "=" {
				return label{key: l.key, kind: l.kind, sep: "="}.value(s, skipBlank(s, r+1), add)
			}
			return b
		}
		// After a colon a bare value must end its line ("key: value" in
		// YAML or a header) or look generated, with letters and digits
		// ("user admin password: hunter2 on staging"): "error: wrong key
		// length" and "Token: it expired" are messages.
		if (l.sep == ":" || l.sep == "=>") && !lineEndsAt(s, b) && !(len(v) >= 6 && letterAndDigit(v)) || isCode(v, s, b, l.key) {
			return b
		}
	}
	add(a, b, l.kind, prioLabeled)
	return b
}

// authorization redacts the credential of an Authorization header whose
// value starts at q, keeping the scheme, and returns the end of the value.
func authorization(s string, q int, add addFunc) int {
	if n := quoteLen(s, q); n > 0 {
		q += n
	}
	kind := "authorization"
	a, b := bareValue(s, q, "")
	if b < len(s) && (s[b] == ' ' || s[b] == '\t') {
		switch asciiLower(s[a:b]) {
		case "bearer":
			kind = "bearer-token"
		case "basic":
			kind = "basic-auth"
		case "token", "digest", "negotiate", "ntlm", "apikey", "api-key", "api-token", "apitoken", "key", "sso-key", "aws4-hmac-sha256", "hoba", "mutual":
		default:
			return b // prose: "Authorization: required for every call"
		}
		a, b = bareValue(s, skipBlank(s, b), "")
	}
	if v := s[a:b]; !notSecret(v, false) && len(v) >= 3 {
		add(a, b, kind, prioHeader)
	}
	return b
}

// labelNext reports a key naming a secret followed by its separator at q,
// as "password:" is in "--token password: X".
func labelNext(s string, q int) bool {
	e := q
	for e < len(s) && isKeyChar(s[e]) {
		e++
	}
	if e == q || separator(s, e) == "" {
		return false
	}
	_, ok := keyKind(s[q:e])
	return ok
}

func hasUpperOrDigit(v string) bool {
	return strings.IndexFunc(v, func(r rune) bool { return r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' }) >= 0
}

// separator returns the assignment operator at s[q:], if any.
func separator(s string, q int) string {
	if q >= len(s) {
		return ""
	}
	rest := s[q:]
	switch {
	case strings.HasPrefix(rest, ":::="):
		return rest[:4] // GNU make
	case strings.HasPrefix(rest, "::="):
		return rest[:3] // make, BNF
	case strings.HasPrefix(rest, ":="), strings.HasPrefix(rest, "=>"), strings.HasPrefix(rest, "?="):
		return rest[:2] // Go, Perl and PHP arrays, make
	case strings.HasPrefix(rest, ".=") && len(rest) > 2 && (rest[2] == ' ' || isQuote(rest[2])):
		return rest[:2] // PHP, Perl: $token .= "…"
	case rest[0] == '=' && (len(rest) == 1 || rest[1] != '=' && rest[1] != '~'):
		return "="
	case rest[0] == ':' && (len(rest) == 1 || rest[1] != ':'):
		return ":"
	}
	return ""
}

// stops are the bytes besides blanks and quotes that end the value.
func (l label) stops() string {
	switch {
	case l.inQuery:
		return "&#"
	case l.inConn:
		return ";"
	}
	return ""
}

// bareValue returns the unquoted value at q: up to a blank, a quote, an
// escaped newline or quote (JSON-escaped text), the end of the line, or a
// byte of stops (& and # in a URL query). Trailing punctuation is left out.
func bareValue(s string, q int, stops string) (int, int) {
	e := q
	for e < len(s) {
		c := s[e]
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' || isQuote(c) || strings.IndexByte(stops, c) >= 0 {
			break
		}
		if c == '\\' && e+1 < len(s) && strings.IndexByte(`nrt"'`, s[e+1]) >= 0 {
			break
		}
		e++
	}
	for e > q && strings.IndexByte(trailing, s[e-1]) >= 0 {
		e--
	}
	return q, e
}

// trailing is punctuation that ends a sentence or an expression rather
// than a bare value.
const trailing = ".,:;)}"

const maxQuoted = 4096

func isQuote(c byte) bool { return c == '"' || c == '\'' || c == '`' }

// quoteLen is the length of the opening quote at q: 1 for a quote, 2 for a
// JSON-escaped quote, 0 for none.
func quoteLen(s string, q int) int {
	switch {
	case q < len(s) && isQuote(s[q]):
		return 1
	case q+1 < len(s) && s[q] == '\\' && isQuote(s[q+1]):
		return 2
	}
	return 0
}

// closingQuote finds quote (as opened) on the same line from i, skipping
// backslash-escaped quotes; -1 if the string is not closed on this line
// within maxQuoted bytes, which bounds the work per label.
func closingQuote(s string, i int, quote string) int {
	for end := min(len(s), i+maxQuoted); i < end && s[i] != '\n'; i++ {
		if strings.HasPrefix(s[i:], quote) {
			return i
		}
		if s[i] == '\\' && len(quote) == 1 {
			i++
		}
	}
	return -1
}

func skipBlank(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return i
}

// lineEndsAt reports whether only punctuation, blanks, a comment or the end
// of a (possibly JSON-escaped) line or string follow i.
func lineEndsAt(s string, i int) bool {
	for i < len(s) && strings.IndexByte(trailing, s[i]) >= 0 {
		i++
	}
	i = skipBlank(s, i)
	if i >= len(s) {
		return true
	}
	switch s[i] {
	case '\n', '\r', '#', '"', '\'', '`':
		return true
	case '\\':
		return i+1 < len(s) && strings.IndexByte(`nr"`, s[i+1]) >= 0
	}
	return strings.HasPrefix(s[i:], "//")
}

// plainWord reports whether key is a prose-like word ("token", "Password").
func plainWord(key string) bool {
	if len(key) < 2 {
		return false
	}
	for i := 0; i < len(key); i++ {
		if c := key[i]; !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

const maxKeyWords = 12

// wordBounds splits key into words at punctuation and camelCase
// boundaries: "AWS_SECRET_ACCESS_KEY" → AWS SECRET ACCESS KEY, "OAuthToken"
// → O Auth Token, "APIKey" → API Key. Past maxKeyWords, words merge into
// the last. It returns offsets only, so callers can keep words on the stack.
func wordBounds(key string) (bounds [maxKeyWords][2]int, n int) {
	isUp := func(c byte) bool { return c >= 'A' && c <= 'Z' }
	isLow := func(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' }
	start := -1
	for i := 0; i <= len(key); i++ {
		alnum := i < len(key) && (isUp(key[i]) || isLow(key[i]))
		camel := alnum && start >= 0 && isUp(key[i]) && (isLow(key[i-1]) || i+1 < len(key) && isLow(key[i+1]) && isUp(key[i-1]))
		if start >= 0 && (!alnum || camel) {
			if n == maxKeyWords {
				n--
				start = bounds[n][0]
			}
			bounds[n] = [2]int{start, i}
			n++
			start = -1
		}
		if alnum && start < 0 {
			start = i
		}
	}
	return bounds, n
}

// metaWords end keys that describe a secret rather than hold one:
// TOKEN_LIMIT, password_file, secret_name, AWS_ACCESS_KEY_ID.
var metaWords = map[string]bool{
	"limit": true, "limits": true, "count": true, "counts": true, "length": true, "len": true,
	"size": true, "max": true, "min": true, "budget": true, "type": true, "kind": true,
	"url": true, "uri": true, "endpoint": true, "host": true, "file": true, "path": true,
	"dir": true, "name": true, "id": true, "ids": true, "arn": true, "expiry": true,
	"expires": true, "expiration": true, "ttl": true, "timeout": true, "used": true,
	"usage": true, "field": true, "label": true, "prompt": true, "header": true,
	"enabled": true, "required": true, "env": true, "var": true, "mode": true,
	"method": true, "provider": true, "format": true, "helper": true, "policy": true,
}

// keyKind reports whether key names a secret, and which kind.
// "authorization" means the key is an Authorization header.
func keyKind(key string) (string, bool) {
	for key != "" && (key[0] == '-' || key[0] == '.') {
		key = key[1:]
	}
	// A dotted key is named by its last part: spring.datasource.password
	// is a password, pass.OtherFiles and secrets.txt are not.
	if i := strings.LastIndexByte(key, '.'); i >= 0 {
		key = key[i+1:]
	}
	var buf [64]byte
	lower := buf[:0]
	if len(key) > len(buf) {
		lower = make([]byte, 0, len(key))
	}
	for i := 0; i < len(key); i++ {
		c := key[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		lower = append(lower, c)
	}
	bounds, n := wordBounds(key)
	var wsArr [maxKeyWords][]byte
	for i, b := range bounds[:n] {
		wsArr[i] = lower[b[0]:b[1]]
	}
	ws := wsArr[:n]
	// A service account's private_key_id names its key; leaked with the
	// client email it is what an attacker looks the key up by.
	if n >= 3 && string(ws[n-3]) == "private" && string(ws[n-2]) == "key" && string(ws[n-1]) == "id" {
		return "private-key-id", true
	}
	if len(ws) == 0 || metaWords[string(ws[len(ws)-1])] {
		return "", false
	}
	if string(ws[len(ws)-1]) == "authorization" {
		return "authorization", true
	}
	var secret, aws, password, token, credential, pass bool
	for _, w := range ws {
		secret = secret || bytes.Contains(w, []byte("secret"))
		aws = aws || string(w) == "aws"
		password = password || bytes.Contains(w, []byte("password")) || bytes.Contains(w, []byte("passwd")) || bytes.Contains(w, []byte("passphrase"))
		pass = pass || string(w) == "pass" && len(ws) > 1 // DB_PASS, not "PASS:"
		// "tokens" counts and a "tokenizer" is code.
		token = token || bytes.Contains(w, []byte("token")) && !bytes.Contains(w, []byte("tokens")) && !bytes.Contains(w, []byte("tokeniz"))
		credential = credential || bytes.Contains(w, []byte("credential")) || string(w) == "creds" || string(w) == "cred"
	}
	// BASIC_AUTH, ClientAuth, oauth2; not authUser or auth_url.
	last := ws[len(ws)-1]
	auth := bytes.HasSuffix(last, []byte("auth")) || string(last) == "oauth2" || string(last) == "authkey"
	// pair reports "<first>key" or "<first> key": api_key, privateKey.
	pair := func(first string) bool {
		for i, w := range ws {
			if len(w) == len(first)+3 && string(w[:len(first)]) == first && string(w[len(first):]) == "key" ||
				string(w) == first && i+1 < len(ws) && string(ws[i+1]) == "key" {
				return true
			}
		}
		return false
	}
	switch {
	case secret && (aws || pair("access")):
		return "aws-secret-key", true
	case pair("private"):
		return "private-key", true
	case pair("api"):
		return "api-key", true
	case password || pass:
		return "password", true
	case token:
		return "token", true
	case credential:
		return "credential", true
	case secret || auth || pair("access") || pair("signing") || pair("encryption") || pair("master") || pair("account"):
		return "secret", true
	}
	return "", false
}

// notSecret reports values that are not secrets even under a secret label.
func notSecret(v string, quoted bool) bool {
	// A value holding a placeholder was decided on by an earlier pass:
	// leaving it alone is what makes String idempotent. "[private]" is
	// made before the rules run in every pass, so text around it is judged
	// (and redacted) as a whole.
	if v == "" || strings.Contains(v, "[REDACTED:") {
		return true
	}
	if strings.Contains(v, privatePlaceholder) {
		return isPlaceholders(v)
	}
	if isReference(v) || isSmallNumber(v) || nullWords[asciiLower(v)] {
		return true
	}
	if strings.Contains(v, "://") || strings.HasPrefix(v, "arn:") ||
		strings.HasPrefix(v, "~/") || strings.HasPrefix(v, "./") || strings.HasPrefix(v, "../") {
		return true
	}
	if v[0] == '{' || v[0] == '[' && !strings.HasPrefix(v, "[REDACTED:") && !strings.HasPrefix(v, privatePlaceholder) {
		return true // an object or array literal
	}
	if quoted {
		return false
	}
	// Calls, index expressions and composite literals, maybe behind & or *.
	e := strings.TrimLeft(v, "&*")
	if i := strings.IndexAny(e, "([{"); i == 0 && e[0] == '(' || i > 0 && isIdentPath(e[:i]) ||
		len(e) < len(v) && isIdentPath(e) {
		return true
	}
	return len(v) < 3 || isDottedPath(v) && !hasRandomPart(v) || isGenericType(v) || codeWords[v]
}

// codeWords are keywords that follow an assignment in code.
var codeWords = map[string]bool{
	"range": true, "iota": true, "new": true, "await": true, "async": true, "function": true,
	"lambda": true, "yield": true, "func": true, "struct": true, "make": true, "this": true,
	"self": true, "typeof": true, "require": true, "import": true, "not": true,
}

// isCode reports bare values that are code rather than secrets: a variable
// named like the key (token = token, hc.trafficSecret = secret), an identifier
// ending a struct or map entry (PrivateKey: testKey,) or followed by an
// operator (auth := user + ":" + pass), or a multi-word
// identifier without digits assigned to a camelCase field
// (config.ClientAuth = RequireAnyClientCert). Passwords that look exactly
// like such identifiers under such keys are the accepted cost.
func isCode(v, s string, end int, key string) bool {
	if !isIdentPath(v) {
		return false
	}
	if i := strings.LastIndexByte(key, '.'); i >= 0 {
		key = key[i+1:]
	}
	if lv := asciiLower(v); strings.Contains(asciiLower(key), lv) && strings.Trim(lv, "abcdefghijklmnopqrstuvwxyz") == "" {
		return true // token = token, hc.trafficSecret = secret
	}
	// The end of an entry (PrivateKey: testKey, or {Auth: auth}) or an
	// operand (auth := user + ":" + pass).
	if end < len(s) && strings.IndexByte(",})", s[end]) >= 0 {
		return true
	}
	if r := skipBlank(s, end); r > end && r < len(s) && (s[r] == '+' || s[r] == '|') {
		return true
	}
	if !camelCase(key) {
		return false // config keys (smtp_pass, DB_PASSWORD) take any value
	}
	humps := false
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c >= '0' && c <= '9' {
			return false
		}
		if i > 0 && (c == '_' || c >= 'A' && c <= 'Z' && v[i-1] >= 'a' && v[i-1] <= 'z') {
			humps = true
		}
	}
	return humps
}

// camelCase reports a lower-case letter followed by a capital, as in Go,
// Java or JavaScript field names (ClientAuth, tokenState).
func camelCase(key string) bool {
	for i := 1; i < len(key); i++ {
		if key[i] >= 'A' && key[i] <= 'Z' && key[i-1] >= 'a' && key[i-1] <= 'z' {
			return true
		}
	}
	return false
}

// nullWords are booleans, nulls and settings that are never secrets.
var nullWords = map[string]bool{
	"true": true, "false": true, "yes": true, "no": true, "on": true, "off": true,
	"null": true, "nil": true, "none": true, "undefined": true, "empty": true, "n/a": true,
	"required": true, "optional": true, "enabled": true, "disabled": true, "default": true,
	"read": true, "write": true,
}

// isReference reports variable references, substitutions and placeholders:
// $TOKEN, ${{ secrets.X }}, "cmd $(pass show x)", %TOKEN%, %s, {{ .Token }},
// <your-token>.
func isReference(v string) bool {
	return v != "" && (v[0] == '$' || v[0] == '<' || v[0] == '%' || strings.HasPrefix(v, "{{") ||
		strings.Contains(v, "$(") || strings.Contains(v, "${"))
}

// isSmallNumber: at most 8 digits, an optional fraction and unit
// (4096, 0.7, 30s, 512mb, 80%), or a hex constant of up to 8 digits.
func isSmallNumber(v string) bool {
	i := 0
	if i < len(v) && (v[i] == '+' || v[i] == '-') {
		i++
	}
	if h := v[i:]; len(h) > 2 && h[0] == '0' && (h[1] == 'x' || h[1] == 'X') {
		// 0x7, 0x2000741e: constants up to 32 bits.
		return len(h) <= 10 && strings.Trim(h[2:], "0123456789abcdefABCDEF") == ""
	}
	d := 0
	for i < len(v) && v[i] >= '0' && v[i] <= '9' {
		i++
		d++
	}
	if d == 0 || d > 8 {
		return false
	}
	if i < len(v) && v[i] == '.' {
		i++
		for i < len(v) && v[i] >= '0' && v[i] <= '9' {
			i++
		}
	}
	switch asciiLower(v[i:]) {
	case "", "%", "x", "s", "ms", "m", "h", "d", "w", "k", "b", "kb", "mb", "gb", "kib", "mib", "gib":
		return true
	}
	return false
}

// isDottedPath reports code such as self.token or config.Auth.Token.
func isDottedPath(v string) bool { return strings.Contains(v, ".") && isIdentPath(v) }

// hasRandomPart reports a dotted value with a long part mixing cases and
// digits, which no hand-written name has: Vault's s.ZC9Ecf4M5g9o34Q6RkzGsj0z.
func hasRandomPart(v string) bool {
	for _, p := range strings.Split(v, ".") {
		if len(p) >= 16 && mixedCase(p) {
			return true
		}
	}
	return false
}

// isIdentPath reports an identifier or a dotted path of identifiers.
func isIdentPath(v string) bool {
	for _, p := range strings.Split(v, ".") {
		if p == "" || !(p[0] == '_' || p[0] >= 'a' && p[0] <= 'z' || p[0] >= 'A' && p[0] <= 'Z') {
			return false
		}
		for i := 1; i < len(p); i++ {
			if c := p[i]; !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
				return false
			}
		}
	}
	return true
}

var typeNames = map[string]bool{
	"string": true, "str": true, "bytes": true, "bool": true, "boolean": true, "number": true,
	"int": true, "int64": true, "any": true, "object": true, "unknown": true, "text": true,
	"char": true, "varchar": true, "secretstr": true,
}

func isTypeName(v string) bool { return typeNames[asciiLower(strings.TrimRight(v, "?|"))] }

// isGenericType reports Optional[str], list[str] and the like.
func isGenericType(v string) bool {
	i := strings.IndexByte(v, '[')
	return i > 0 && strings.HasSuffix(v, "]") && isIdentPath(v[:i]) && isIdentPath(v[i+1:len(v)-1])
}
