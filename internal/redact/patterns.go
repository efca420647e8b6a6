package redact

import (
	"encoding/base64"
	"strings"
	"unicode/utf8"

	"github.com/reflectkb/reflect/internal/lazyre"
)

// pattern is a secret with a recognisable shape that starts with one of its
// markers (lowercase literals). The regexp is matched at each marker hit,
// anchored, after a word-boundary check, on a window of at most max bytes
// (default 512) of the hit's line: that keeps each match cheap. The secret
// is submatch 1 when the regexp has a group, else the whole match.
type pattern struct {
	kind    string
	prio    int
	markers []string
	re      *lazyre.Regexp
	max     int
	valid   func(secret string) bool
	// groups: every submatch that matched is a secret of its own (an id
	// and the secret that follows it).
	groups bool
	// lead is how far into the match the marker sits, for shapes whose
	// only literal is in the middle (Azure's "8Q~").
	lead int
}

func anchored(expr string) *lazyre.Regexp { return lazyre.New(`^(?:` + expr + `)`) }

var patterns = []pattern{
	{kind: "github-token", prio: prioToken, markers: []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_"},
		re: anchored(`gh[pousr]_[A-Za-z0-9]{36,251}\b`)},
	{kind: "github-token", prio: prioToken, markers: []string{"github_pat_"},
		re: anchored(`github_pat_[A-Za-z0-9_]{22,255}\b`)},
	{kind: "gitlab-token", prio: prioToken, markers: []string{"glpat-"},
		re: anchored(`glpat-[A-Za-z0-9_-]{20,}`)},
	{kind: "slack-token", prio: prioToken, markers: []string{"xox"},
		re: anchored(`xox[abposre](?:\.xox[a-z])?-[A-Za-z0-9-]{10,}`)},
	{kind: "slack-token", prio: prioToken, markers: []string{"xapp-"},
		re: anchored(`xapp-[0-9]+-[A-Za-z0-9-]{10,}`)},
	// The webhook's secret is its path; the host stays for context.
	{kind: "slack-webhook", prio: prioToken, markers: []string{"hooks.slack.com"},
		re: anchored(`hooks\.slack\.com/((?:services|workflows|triggers)/[A-Za-z0-9/_-]+)`)},
	{kind: "anthropic-key", prio: prioToken, markers: []string{"sk-ant-"},
		re: anchored(`sk-ant-[A-Za-z0-9_-]{20,}`)},
	// Real keys are random: mixed case and digits. Requiring that keeps
	// words such as "sk-learn-compatible-estimators" intact.
	{kind: "openai-key", prio: prioToken, markers: []string{"sk-"},
		re: anchored(`sk-[A-Za-z0-9_-]{20,}`), valid: openAIKey},
	{kind: "stripe-key", prio: prioToken, markers: []string{"sk_live_", "rk_live_", "sk_test_", "rk_test_", "sk_prod_", "rk_prod_"},
		re: anchored(`[rs]k_(?:live|test|prod)_[A-Za-z0-9]{16,}`)},
	{kind: "stripe-key", prio: prioToken, markers: []string{"whsec_"},
		re: anchored(`whsec_[A-Za-z0-9+/=]{24,}`)},
	{kind: "google-api-key", prio: prioToken, markers: []string{"aiza"},
		re: anchored(`AIza[0-9A-Za-z_-]{35,}`)},
	{kind: "aws-access-key", prio: prioToken, markers: []string{"akia", "asia"},
		re: anchored(`(?:AKIA|ASIA)[A-Z0-9]{16}\b`)},
	{kind: "npm-token", prio: prioToken, markers: []string{"npm_"},
		re: anchored(`npm_[A-Za-z0-9]{36,}\b`)},
	// Real tokens are 34 letters (older ones letters and digits), so
	// requiring both cases, not digits, is what tells them from
	// identifiers such as hf_requiredCharacteristicTypesForDisplay.
	{kind: "huggingface-token", prio: prioToken, markers: []string{"hf_"},
		re: anchored(`hf_[A-Za-z0-9]{34}\b`), valid: upperAndLower},
	{kind: "huggingface-token", prio: prioToken, markers: []string{"_org_"}, lead: len("api"),
		re: anchored(`api_org_[A-Za-z0-9]{34}\b`), valid: upperAndLower},
	{kind: "sendgrid-key", prio: prioToken, markers: []string{"sg."},
		re: anchored(`SG\.[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{16,64}\b`), valid: letterAndDigit},
	// Vendor tokens with a distinctive prefix, after gitleaks' rules.
	{kind: "1password-token", prio: prioToken, markers: []string{"_eyj"}, lead: len("ops"),
		re: anchored(`ops_eyJ[A-Za-z0-9+/]{64,}={0,3}`)},
	{kind: "1password-secret-key", prio: prioToken, markers: []string{"a3-"},
		re: anchored(`A3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}\b`)},
	{kind: "adobe-secret", prio: prioToken, markers: []string{"p8e-"},
		re: anchored(`p8e-[A-Za-z0-9]{32}\b`), valid: letterAndDigit},
	{kind: "alibaba-access-key", prio: prioToken, markers: []string{"ltai"},
		re: anchored(`LTAI[A-Za-z0-9]{20}\b`)},
	{kind: "aws-bedrock-key", prio: prioToken, markers: []string{"bsk"}, lead: 1,
		re: anchored(`ABSK[A-Za-z0-9+/]{100,}={0,2}`)},
	{kind: "azure-client-secret", prio: prioToken, markers: []string{"q~"}, lead: 4,
		re: anchored(`[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.-]{31,34}`)},
	{kind: "cloudflare-key", prio: prioToken, markers: []string{"v1.0-"},
		re: anchored(`v1\.0-[a-f0-9]{24}-[a-f0-9]{146}`)},
	{kind: "doppler-token", prio: prioToken, markers: []string{"dp.pt.", "dp.st.", "dp.ct.", "dp.sa.", "dp.scim.", "dp.audit."},
		re: anchored(`dp\.(?:pt|st|ct|sa|scim|audit)\.[A-Za-z0-9_.-]{40,}`)},
	{kind: "easypost-key", prio: prioToken, markers: []string{"ezak", "eztk"},
		re: anchored(`EZ[AT]K[A-Za-z0-9]{54}`)},
	{kind: "facebook-token", prio: prioToken, markers: []string{"aam", "aac"}, lead: 1,
		re: anchored(`EAA[MC][A-Za-z0-9]{100,}`)},
	{kind: "flyio-token", prio: prioToken, markers: []string{"fm1r_", "fm1a_", "fm2_"},
		re: anchored(`fm1[ar]_[A-Za-z0-9+/]{100,}={0,3}|fm2_[A-Za-z0-9+/]{100,}={0,3}`)},
	{kind: "flyio-token", prio: prioToken, markers: []string{"o1_"}, lead: 1,
		re: anchored(`fo1_[\w-]{43}`)},
	{kind: "grafana-token", prio: prioToken, markers: []string{"glc_", "glsa_"},
		re: anchored(`glc_[A-Za-z0-9+/]{32,400}={0,2}|glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}`)},
	{kind: "harness-token", prio: prioToken, markers: []string{"pat."},
		re: anchored(`pat\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{20}`)},
	{kind: "heroku-key", prio: prioToken, markers: []string{"rku-"}, lead: 1,
		re: anchored(`HRKU-AA[0-9A-Za-z_-]{58}`)},
	{kind: "intra42-secret", prio: prioToken, markers: []string{"s-s4t2ud-", "s-s4t2af-"},
		re: anchored(`s-s4t2(?:ud|af)-[a-f0-9]{64}`)},
	{kind: "notion-token", prio: prioToken, markers: []string{"tn_"}, lead: 1,
		re: anchored(`ntn_[0-9]{11}[A-Za-z0-9]{35}\b`)},
	{kind: "openshift-token", prio: prioToken, markers: []string{"256~"}, lead: len("sha"),
		re: anchored(`sha256~[\w-]{43}\b`)},
	{kind: "sentry-token", prio: prioToken, markers: []string{"_eyj"}, lead: len("sntrys"),
		re: anchored(`sntrys_eyJ[A-Za-z0-9+/=_-]{60,}`)},
	{kind: "sentry-token", prio: prioToken, markers: []string{"ntryu_"}, lead: 1,
		re: anchored(`sntryu_[a-f0-9]{64}`)},
	{kind: "sourcegraph-token", prio: prioToken, markers: []string{"sgp_"},
		re: anchored(`sgp_(?:[A-Fa-f0-9]{16}|local)_[A-Fa-f0-9]{40}|sgp_[A-Fa-f0-9]{40}`)},
	{kind: "vault-token", prio: prioToken, markers: []string{"hvs.", "hvb."},
		re: anchored(`hv[sb]\.[\w-]{90,300}`)},
	{kind: "teams-webhook", prio: prioToken, markers: []string{".office.com/webhookb2/"}, lead: len("webhook"),
		re: anchored(`webhook\.office\.com/(webhookb2/[A-Za-z0-9@/_-]{40,})`)},
	{kind: "contribsys-key", prio: prioToken, markers: []string{"__contribsys__com"}, lead: len("bundle_enterprise"),
		re: anchored(`(?i:BUNDLE_ENTERPRISE__CONTRIBSYS__COM)["']?\s*[:=]\s*["']?([a-f0-9]{8}:[a-f0-9]{8})`)},
	{kind: "contribsys-key", prio: prioToken, markers: []string{"__contribsys__com"}, lead: len("bundle_gems"),
		re: anchored(`(?i:BUNDLE_GEMS__CONTRIBSYS__COM)["']?\s*[:=]\s*["']?([a-f0-9]{8}:[a-f0-9]{8})`)},
	// A Twilio API key sid and, when it follows as in "SK…:secret" or
	// Client("SK…", "secret"), its secret.
	{kind: "twilio-key", prio: prioToken, markers: []string{"sk"}, groups: true,
		re: anchored(`(SK[0-9a-fA-F]{32})\b(?:["']?(?:\s*[:,]\s*|\s+(?:(?i:secret|and)\s+)?)["']?([A-Za-z0-9]{32})\b)?`)},
	// Base64 of a token ("echo -n $TOKEN | base64"): the markers are the
	// base64 of token prefixes (and of "eyJ", a JWT), and the run counts
	// only when what it decodes to holds a secret.
	{kind: "base64-secret", prio: prioToken, markers: base64Markers, max: 16 << 10,
		re: anchored(`[A-Za-z0-9+/_-]{24,}={0,2}`), valid: decodesToSecret},
	{kind: "base64-secret", prio: prioToken, markers: base64Markers1, lead: 1, max: 16 << 10,
		re: anchored(`[A-Za-z0-9+/_-]{24,}={0,2}`), valid: decodesToSecret},
	{kind: "base64-secret", prio: prioToken, markers: base64Markers2, lead: 2, max: 16 << 10,
		re: anchored(`[A-Za-z0-9+/_-]{24,}={0,2}`), valid: decodesToSecret},
	// Header and payload are base64url JSON objects, hence "eyJ" ({").
	{kind: "jwt", prio: prioJWT, markers: []string{"eyj"}, max: 16 << 10,
		re: anchored(`eyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]*`)},
}

// match tries p at the marker hit at. Like regexp's FindAll, a match
// hides the hits inside it from the same pattern, which keeps runs such as
// "sk-sk-sk-…" linear.
func (p *pattern) match(f *finder, i, at int, add addFunc) {
	s := f.s
	if at -= p.lead; at < 0 {
		return
	}
	if at > 0 && isWordChar(s[at-1]) || at < f.patEnd[i] {
		return
	}
	limit := p.max
	if limit == 0 {
		limit = 512
	}
	end := min(len(s), at+limit)
	if nl := strings.IndexByte(s[at:end], '\n'); nl >= 0 {
		end = at + nl
	}
	m := p.re.FindStringSubmatchIndex(s[at:end])
	if m == nil {
		return
	}
	a, b := at+m[0], at+m[1]
	if p.groups {
		f.patEnd[i] = at + m[1]
		for g := 2; g+1 < len(m); g += 2 {
			if m[g] >= 0 && letterAndDigit(s[at+m[g]:at+m[g+1]]) {
				add(at+m[g], at+m[g+1], p.kind, p.prio)
			}
		}
		return
	}
	if len(m) > 2 {
		a, b = at+m[2], at+m[3]
	}
	f.patEnd[i] = at + m[1]
	if p.valid != nil && !p.valid(s[a:b]) {
		return
	}
	// A match cut by the window goes on to the end of the token.
	if b == end {
		b = f.tokenEnd(b)
		f.patEnd[i] = b
	}
	add(a, b, p.kind, p.prio)
}

// tokenEnd returns the end of the run of token characters containing i,
// remembering the last run so repeated calls inside one run stay linear.
func (f *finder) tokenEnd(i int) int {
	if i >= f.runFrom && i <= f.runTo {
		return f.runTo
	}
	j := i
	for j < len(f.s) && isTokenChar(f.s[j]) {
		j++
	}
	f.runFrom, f.runTo = i, j
	return j
}

func isWordChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

func isTokenChar(c byte) bool {
	return isWordChar(c) || c == '-' || c == '.' || c == '+' || c == '/' || c == '='
}

// urlPassword redacts the password of scheme://user:password@host, keeping
// user and host; at is the position of "://". The password runs to the last
// '@' of the authority, so passwords containing '@' or ':' go whole. A user
// part with brackets is a placeholder already.
func urlPassword(s string, at int, add addFunc) {
	i := at
	for i > 0 && isSchemeChar(s[i-1]) {
		i--
	}
	if !hasLetter(s[i:at]) {
		return
	}
	j := at + len("://")
	k := j
	for k < len(s) && !isURLStop(s[k]) {
		k++
	}
	auth := s[j:k]
	last := strings.LastIndexByte(auth, '@')
	if last < 0 {
		return
	}
	user, pw, ok := strings.Cut(auth[:last], ":")
	if !ok || pw == "" || strings.ContainsAny(user, "@[]") {
		return
	}
	if isPlaceholders(pw) || isReference(pw) || strings.Trim(pw, "*") == "" || docPasswords[asciiLower(pw)] {
		return
	}
	a := j + len(user) + 1
	add(a, a+len(pw), "url-password", prioURL)
}

// docPasswords are the stand-ins documentation uses, as in
// https://user:password@host; they hide nothing.
var docPasswords = map[string]bool{"password": true, "pass": true, "passwd": true, "secret": true, "token": true}

func isSchemeChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '+' || c == '.' || c == '-'
}

func isURLStop(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', '\v', '\f', '/', '?', '#', '"', '\'', '<', '>':
		return true
	}
	return false
}

func hasLetter(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
			return true
		}
	}
	return false
}

// bearer redacts "Bearer <token>" outside an Authorization header; at is
// the position of "bearer" (any case). The token must look like one, so
// "Bearer authentication" stays.
func bearer(s string, at int, add addFunc) {
	if at > 0 && isWordChar(s[at-1]) {
		return
	}
	a := skipBlank(s, at+len("bearer"))
	if a == at+len("bearer") {
		return
	}
	b := a
	for b < len(s) && (isTokenChar(s[b]) || s[b] == '~') {
		b++
	}
	if b-a >= 16 && letterAndDigit(s[a:b]) {
		add(a, b, "bearer-token", prioHeader)
	}
}

var (
	pemBegin = anchored(`-----BEGIN[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----`)
	pemEnd   = lazyre.New(`-----END[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----`)
)

// pem redacts a private key block from BEGIN (at) through END, across lines
// or JSON-escaped newlines. A block without END (a truncated paste) runs
// over the base64 and header lines that follow it.
func (f *finder) pem(at int, add addFunc) {
	s := f.s
	m := pemBegin.FindStringIndex(s[at:min(len(s), at+128)])
	if m == nil {
		return
	}
	end := at + m[1]
	// The next END is remembered so many BEGINs stay linear.
	if !f.noPEMEnd && f.pemEnd < end {
		if e := pemEnd.FindStringIndex(s[end:]); e != nil {
			f.pemEnd = end + e[1]
		} else {
			f.noPEMEnd = true
		}
	}
	if f.noPEMEnd {
		end = pemBody(s, end)
	} else {
		end = f.pemEnd
	}
	add(at, end, "private-key", prioBlock)
}

// pemBody returns where the body of an unterminated key block starting at
// i ends: the rest of the BEGIN line if it is base64 (possibly with escaped
// newlines), then whole lines of base64 or "Header: value".
func pemBody(s string, i int) int {
	for i < len(s) && (isBase64(s[i]) || s[i] == '\\' || s[i] == '\r') {
		i++
	}
	for i < len(s) && s[i] == '\n' {
		j := strings.IndexByte(s[i+1:], '\n')
		if j < 0 {
			j = len(s)
		} else {
			j += i + 1
		}
		line := strings.TrimSpace(s[i+1 : j])
		if line == "" || !(allBase64(line) || isPEMHeader(line)) {
			return i
		}
		i = j
	}
	return i
}

func isBase64(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '='
}

func allBase64(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isBase64(s[i]) {
			return false
		}
	}
	return true
}

// isPEMHeader matches "Proc-Type: 4,ENCRYPTED" and "DEK-Info: …" lines.
func isPEMHeader(line string) bool {
	k, _, ok := strings.Cut(line, ": ")
	if !ok || k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		if c := k[i]; !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c == '-') {
			return false
		}
	}
	return true
}

// mixedCase reports whether a token has upper case, lower case and digits,
// as random keys do and words do not.
func mixedCase(s string) bool {
	var up, low, dig bool
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= 'A' && c <= 'Z':
			up = true
		case c >= 'a' && c <= 'z':
			low = true
		case c >= '0' && c <= '9':
			dig = true
		}
	}
	return up && low && dig
}

// base64Markers are the base64 of token prefixes that start the encoded
// text (ghp_, sk-ant-, AKIA, eyJ, ...), as far as the prefix alone decides
// the encoding, lowercased like every marker. Those whose first two
// letters are common in prose (eg, ag, ls, qu) are cut by one or two letters
// and matched with a lead, so prose does not send the scanner to them.
var (
	base64Markers  = []string{"z2hwx", "z2hvx", "z2h1x", "z2hzx", "z2hyx", "z2l0ahvix3bhdf", "z2xwyxqt", "c2styw50l", "c2stchjvai", "c2st", "qvnjq", "bnbtx", "u0cu", "zxlk", "c2tfbgl2zv"}
	base64Markers1 = []string{"g94yi", "g94cc", "g94ys", "gzf"} // eG94Yi (xoxb-), aGZf (hf_)
	base64Markers2 = []string{"0tls1crudjt", "tjq", "l6y"}      // LS0tLS1CRUdJT (-----BEGIN), QUtJQ (AKIA), QUl6Y (AIza)
)

// decodesToSecret reports a base64 run that decodes to text holding a
// secret. The run may be standard or URL base64, padded or not.
func decodesToSecret(run string) bool {
	run = strings.TrimRight(run, "=")
	if len(run)%4 == 1 {
		run = run[:len(run)-1] // not a whole encoding; decode what is
	}
	enc := base64.RawStdEncoding
	if strings.ContainsAny(run, "-_") {
		enc = base64.RawURLEncoding
	}
	b, err := enc.DecodeString(run)
	if err != nil || !utf8.Valid(b) {
		return false
	}
	return containsSecret(string(b))
}

// containsSecret is Contains, reached through a variable because the
// patterns table cannot refer to the function that reads it.
var containsSecret func(string) bool

func init() { containsSecret = Contains }

// upperAndLower reports a token with both cases, as random letters have.
func upperAndLower(s string) bool {
	var up, low bool
	for i := 0; i < len(s); i++ {
		c := s[i]
		up = up || c >= 'A' && c <= 'Z'
		low = low || c >= 'a' && c <= 'z'
	}
	return up && low
}

// openAIKey leaves Anthropic keys (also "sk-") to their own pattern.
func openAIKey(s string) bool { return !strings.HasPrefix(s, "sk-ant-") && mixedCase(s) }

func letterAndDigit(s string) bool {
	var letter, dig bool
	for i := 0; i < len(s); i++ {
		c := s[i]
		letter = letter || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z'
		dig = dig || c >= '0' && c <= '9'
	}
	return letter && dig
}
