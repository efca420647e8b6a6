package graph

import (
	"strings"
	"unicode"
)

// The single-token rules of Extract: what a stripped token must look like
// to be an error code, a path, a module, an identifier. They are plain
// byte loops rather than regular expressions because they run on every
// token of every learning at reindex time.

// errorName recognises single-token error codes and types.
func errorName(s string, tick bool) (string, bool) {
	if errnos[s] || errorWords[s] || crashSignals[s] {
		return s, true
	}
	if i := strings.LastIndex(s, "::"); i >= 0 && strings.HasPrefix(s[i+2:], "ERR_") {
		s = s[i+2:] // net::ERR_CONNECTION_REFUSED
	}
	up := strings.ToUpper(s)
	switch {
	case len(s) == 5 && s[0] == 'E' && isDigits(s[1:]): // rustc E0502
		return s, true
	case codeWithPrefix(s, compilerPrefixes, 4, 5):
		return s, true
	case strings.HasPrefix(up, "SQLSTATE") && len(s) > 8:
		code := strings.Trim(s[8:], "[]=: ")
		if len(code) == 5 && isAlnumString(code) {
			return "SQLSTATE " + strings.ToUpper(code), true
		}
	case strings.HasPrefix(up, "HTTP") && len(s) >= 7:
		code := strings.TrimLeft(s[4:], "-_")
		if isStatus(code, false) || isStatus(strings.ToLower(code), true) {
			return "HTTP " + strings.ToLower(code), true
		}
	case len(s) == 10 && (strings.HasPrefix(s, "0x8") || strings.HasPrefix(s, "0X8")) && isHex(s[3:]):
		return s, true // HRESULT failure codes
	}
	if j := strings.IndexByte(s, '-'); j > 0 && oracle[s[:j]] && len(s)-j-1 == 5 && isDigits(s[j+1:]) {
		return s, true // ORA-00942
	}
	if isException(s) {
		return lastComponent(s), true
	}
	if isGoSentinel(s) {
		return s, true
	}
	if isUpperIdent(s) && strings.Contains(s, "_") {
		for _, p := range errorPrefixes {
			if strings.HasPrefix(s, p) {
				return s, true
			}
		}
		for _, part := range strings.Split(s, "_") {
			if errorParts[part] {
				return s, true
			}
		}
	}
	// Lint codes (E501, W291, C0114) are too short to trust in prose, but
	// alone in a code span they are what they look like.
	if tick && len(s) >= 4 && len(s) <= 6 && isUpperASCII(s[0]) {
		k := 1
		for k < len(s) && isUpperASCII(s[k]) {
			k++
		}
		if k <= 3 && len(s)-k >= 3 && isDigits(s[k:]) {
			return s, true
		}
	}
	return "", false
}

// compilerPrefixes are the letter prefixes of numbered diagnostics:
// TypeScript, C#, VB, MSVC linker, MSBuild, .NET SDK, NuGet, ShellCheck,
// Roslyn analyzers.
var compilerPrefixes map[string]bool

var oracle map[string]bool

func codeWithPrefix(s string, prefixes map[string]bool, minDigits, maxDigits int) bool {
	k := 0
	for k < len(s) && isUpperASCII(s[k]) {
		k++
	}
	n := len(s) - k
	return k > 0 && prefixes[s[:k]] && n >= minDigits && n <= maxDigits && isDigits(s[k:])
}

// isException matches exception and error types, bare or qualified:
// TypeError, java.lang.NullPointerException, requests.exceptions.HTTPError.
func isException(s string) bool {
	last := lastComponent(s)
	if last != s && !isQualifiedPath(s) {
		return false
	}
	for _, suf := range []string{"Error", "Exception", "Fault", "Warning"} {
		if strings.HasSuffix(last, suf) && len(last) >= len(suf)+2 && isUpperASCII(last[0]) && isAlnumString(last) {
			return true
		}
	}
	return false
}

func lastComponent(s string) string {
	if i := strings.LastIndex(s, "::"); i >= 0 {
		s = s[i+2:]
	}
	if i := strings.LastIndexByte(s, '.'); i >= 0 {
		s = s[i+1:]
	}
	return s
}

// isQualifiedPath: identifier segments joined by '.' or "::".
func isQualifiedPath(s string) bool {
	s = strings.ReplaceAll(s, "::", ".")
	for _, seg := range strings.Split(s, ".") {
		if !isIdent(seg) || strings.ContainsAny(seg, ".:$#-") {
			return false
		}
	}
	return true
}

// isGoSentinel matches pkg.ErrSomething (sql.ErrNoRows, io.ErrUnexpectedEOF).
func isGoSentinel(s string) bool {
	i := strings.IndexByte(s, '.')
	if i < 1 || !strings.HasPrefix(s[i+1:], "Err") || len(s) < i+5 || !isUpperASCII(s[i+4]) {
		return false
	}
	return isLowerIdent(s[:i]) && isAlnumString(s[i+1:])
}

// pathEntity recognises file paths and names. cited is true for a path
// from the learning's cites, which is a file whatever it looks like.
func pathEntity(s string, cited bool) (name, typ string, ok bool) {
	if s == "" || len(s) > 200 || isURL(s) {
		return "", "", false
	}
	if cited {
		return s, fileType(s), true
	}
	if strings.ContainsAny(s, "/\\") {
		if isPath(s) {
			return s, fileType(s), true
		}
		return "", "", false
	}
	return bareFile(s)
}

// fileType is "config" for files that configure a tool, else "file".
func fileType(p string) string {
	base := strings.ToLower(p)
	if i := strings.LastIndexAny(base, "/\\"); i >= 0 {
		base = base[i+1:]
	}
	ext := ""
	if i := strings.LastIndexByte(base, '.'); i > 0 {
		ext = base[i+1:]
	}
	if configNames[base] || configExts[ext] || strings.HasPrefix(base, ".env") {
		return "config"
	}
	return "file"
}

// bareFile recognises a file name without directories: main.go,
// package.json, Dockerfile, .gitignore.
func bareFile(s string) (name, typ string, ok bool) {
	lower := strings.ToLower(s)
	if configNames[lower] || lower == ".env" || strings.HasPrefix(lower, ".env.") && isPathSegment(lower[1:]) {
		return s, "config", true
	}
	if knownDirs[lower] {
		return s, "file", true
	}
	i := strings.LastIndexByte(s, '.')
	// A capital in the extension is a method or a field ("mu.Lock",
	// "cfg.Key"), not a file.
	if i <= 0 || i == len(s)-1 || !fileExts[s[i+1:]] {
		return "", "", false
	}
	stem := s[:i]
	if stem[0] == '.' {
		stem = stem[1:]
	}
	if stem == "" || !isPathSegment(stem) || !hasLetter(stem) || !isAlnum(stem[0]) && stem[0] != '_' {
		return "", "", false
	}
	return s, fileType(s), true
}

// isPath recognises paths with directories, trading recall for precision:
// "and/or", "TCP/IP", "1/2" and "example.com/page" are not files.
func isPath(s string) bool {
	if len(s) >= 4 && isLetter(s[0]) && s[1] == ':' && (s[2] == '\\' || s[2] == '/') {
		return hasLetter(s[3:]) // C:\Users\x
	}
	seps := "/"
	if strings.Contains(s, "\\") && !strings.Contains(s, "/") {
		seps = "\\"
	}
	rel := true
	switch {
	case strings.HasPrefix(s, "~/"):
		s, rel = s[2:], false
	case strings.HasPrefix(s, "/"):
		s, rel = s[1:], false
	case strings.HasPrefix(s, "./"), strings.HasPrefix(s, "../"):
		for strings.HasPrefix(s, "./") || strings.HasPrefix(s, "../") {
			s = s[strings.IndexByte(s, '/')+1:]
		}
		rel = false
	}
	dir := strings.HasSuffix(s, seps)
	s = strings.TrimRight(s, seps)
	segs := strings.Split(s, seps)
	longest := 0
	for _, seg := range segs {
		if seg == "" || !isPathSegment(seg) {
			return false
		}
		if n := letters(seg); n > longest {
			longest = n
		}
	}
	if longest < 2 {
		return false
	}
	if !rel {
		// absolute, home or ./ paths: the leading mark makes them paths,
		// but "/api" or "/s" alone are too short to tell.
		return len(segs) >= 2 || strings.HasPrefix(s, ".") || strings.ContainsAny(segs[0], "._-")
	}
	if isDomain(segs[0]) {
		return false // a URL without its scheme
	}
	last := segs[len(segs)-1]
	if j := strings.LastIndexByte(last, '.'); j > 0 && j < len(last)-1 && isLetter(last[j+1]) && isAlnumString(last[j+1:]) && len(last)-j-1 <= 10 {
		return true
	}
	return len(segs) >= 3 || dir && len(segs) >= 2
}

// isDomain: "example.com", "api.github.com".
func isDomain(seg string) bool {
	i := strings.LastIndexByte(seg, '.')
	if i <= 0 {
		return false
	}
	return tlds[seg[i+1:]]
}

var tlds map[string]bool

// modulePath recognises Go module and scoped npm package paths; for
// hosted repositories it keeps the repository root, so every import of
// one module names one library.
func modulePath(s string) (string, bool) {
	if strings.HasPrefix(s, "@") {
		parts := strings.Split(s, "/")
		if len(parts) == 2 && len(parts[0]) > 1 && isPathSegment(parts[0][1:]) && isPathSegment(parts[1]) && strings.ToLower(s) == s {
			return s, true
		}
		return "", false
	}
	parts := strings.Split(s, "/")
	keep, ok := moduleHosts[parts[0]]
	if !ok || len(parts) < keep {
		return "", false
	}
	for _, p := range parts[:keep] {
		if !isPathSegment(p) {
			return "", false
		}
	}
	return strings.Join(parts[:keep], "/"), true
}

// moduleHosts are import-path hosts and how many segments name a module.
var moduleHosts = map[string]int{
	"github.com": 3, "gitlab.com": 3, "bitbucket.org": 3, "golang.org": 3, "gonum.org": 3,
	"gopkg.in": 2, "go.uber.org": 2, "google.golang.org": 2, "k8s.io": 2, "sigs.k8s.io": 2,
	"go.yaml.in": 3, "go.opentelemetry.io": 2, "cloud.google.com": 3,
}

// isQualified matches pkg.Func-style names: a lower-case package or object
// then at least one segment with a capital (os.ReadFile, http.Client) or a
// call (console.log()). "e.g" and "example.com" have neither.
func isQualified(s string, call bool) bool {
	s2 := strings.ReplaceAll(s, "::", ".")
	segs := strings.Split(s2, ".")
	if len(segs) < 2 || len(segs[0]) < 2 || !isLowerASCII(segs[0][0]) && segs[0][0] != '_' {
		return false
	}
	upper := false
	for _, seg := range segs {
		if seg == "" || !isIdentSegment(seg) {
			return false
		}
		if hasUpper(seg) {
			upper = true
		}
	}
	return upper || call
}

// isCamel matches CamelCase and camelCase identifiers: a lower-case letter
// directly followed by a capital, and at least two lower-case letters, so
// "SameSite", "parseToken" and "XMLHttpRequest" count, "OAuth", "IPv6" and
// "PhD" do not.
func isCamel(s string) bool {
	if len(s) < 4 || !isLetter(s[0]) {
		return false
	}
	hump, lowers := false, 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !isAlnum(c) {
			return false
		}
		if isLowerASCII(c) {
			lowers++
			if i+1 < len(s) && isUpperASCII(s[i+1]) {
				hump = true
			}
		}
	}
	return hump && lowers >= 2
}

// isSnake matches snake_case identifiers with at least one lower-case
// letter: max_connections, __init__, key_insight.
func isSnake(s string) bool {
	if len(s) < 4 || !hasLower(s) {
		return false
	}
	if len(s) > 4 && strings.HasPrefix(s, "__") && strings.HasSuffix(s, "__") && isIdentSegment(s) {
		return true // Python's dunder names
	}
	inner := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !isAlnum(c) && c != '_' {
			return false
		}
		if c == '_' && i > 0 && i < len(s)-1 && isAlnum(s[i-1]) && isAlnum(s[i+1]) {
			inner = true
		}
	}
	return inner && (isLetter(s[0]) || s[0] == '_')
}

// isUpperIdent matches UPPER_SNAKE and single upper-case words with digits.
func isUpperIdent(s string) bool {
	if len(s) < 2 || !isUpperASCII(s[0]) || strings.HasSuffix(s, "_") || strings.Contains(s, "__") {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !isUpperASCII(c) && !(c >= '0' && c <= '9') && c != '_' {
			return false
		}
	}
	return true
}

func isFlag(s string) bool {
	f := strings.TrimPrefix(s, "--")
	if len(f) < 2 || !isLowerASCII(f[0]) {
		return false
	}
	for i := 0; i < len(f); i++ {
		if c := f[i]; !isLowerASCII(c) && !(c >= '0' && c <= '9') && c != '-' {
			return false
		}
	}
	return true
}

// isIdent: a token made of identifier characters with a letter, as code in
// a span may be written (Foo::bar, $scope, #id, a-b).
func isIdent(s string) bool {
	if s == "" || !hasLetter(s) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !isAlnum(c) && strings.IndexByte("_.:$#-", c) < 0 {
			return false
		}
	}
	return true
}

func isIdentSegment(s string) bool {
	if !isLetter(s[0]) && s[0] != '_' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !isAlnum(c) && c != '_' {
			return false
		}
	}
	return true
}

func isLowerIdent(s string) bool {
	return s != "" && isLowerASCII(s[0]) && isIdentSegment(s)
}

func isPathSegment(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !isAlnum(c) && strings.IndexByte("_.-@+~", c) < 0 {
			return false
		}
	}
	return true
}

func isAlnumString(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isAlnum(s[i]) {
			return false
		}
	}
	return true
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return s != ""
}

func letters(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		if isLetter(s[i]) {
			n++
		}
	}
	return n
}

func hasLetter(s string) bool { return strings.IndexFunc(s, unicode.IsLetter) >= 0 }
func hasUpper(s string) bool  { return strings.IndexFunc(s, unicode.IsUpper) >= 0 }
func hasLower(s string) bool  { return strings.IndexFunc(s, unicode.IsLower) >= 0 }

func isLetter(c byte) bool     { return isUpperASCII(c) || isLowerASCII(c) }
func isUpperASCII(c byte) bool { return c >= 'A' && c <= 'Z' }
func isLowerASCII(c byte) bool { return c >= 'a' && c <= 'z' }
func isAlnum(c byte) bool      { return isLetter(c) || c >= '0' && c <= '9' }
