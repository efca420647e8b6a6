package graph

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/reflectkb/reflect/store"
)

// Heuristic is the value of store.Entity.Extracted, and of mentions.source,
// for entities guessed from the text.
const Heuristic = "heuristic"

const (
	// maxEntities bounds what one learning contributes: past two dozen,
	// extra names are noise that only links the learning to everything.
	maxEntities = 24
	// maxRelated bounds the co-occurrence relations of a learning without
	// a sidecar to the pairs among its most telling entities: all pairs of
	// 24 would be 276 rows per learning for a link this weak.
	maxRelated = 8
	// heuristicStrength is the strength (0-10) of a co-occurrence relation:
	// weak, since sharing a learning says little about how two things relate.
	heuristicStrength = 2
)

// Priorities decide which entities survive the maxEntities cut: errors and
// files pin a learning to one situation, generic concepts barely do.
const (
	prioPinned  = iota // errors, files, cited files
	prioNamed          // tools, libraries, config keys
	prioCode           // identifiers
	prioTag            // the learning's tags
	prioGeneric        // protocol and format names (HTTP, JSON)
)

// Extract guesses the entities of a learning that has no sidecar, and links
// the most telling of them pairwise with weak relates_to relations. The
// rules favour precision (see the package comment):
//
//   - files: relative paths with an extension or of three or more
//     segments, "./" and "../" paths, absolute and home paths of two or
//     more segments, Windows paths, bare file names with a code or config
//     extension, well-known names (Dockerfile, go.mod), cited files;
//   - errors: errno names (ECONNREFUSED), compiler and tool codes (E0502,
//     TS2345, ORA-00942, SQLSTATE 23505), HTTP statuses only with their
//     context ("HTTP 404", "status 503", "502 Bad Gateway"), exception
//     types (TypeError), Go sentinels (sql.ErrNoRows), UPPER_SNAKE codes
//     with an error word (ERR_SSL_PROTOCOL_ERROR), crash signals, exit
//     statuses and a curated list of failure messages;
//   - tools, libraries, languages, services: a curated list matched as
//     whole words, where names that are also English words ("go", "make")
//     count only as a command, in code, or capitalised inside a sentence;
//     packages named by an install command (pip install x);
//   - config: $VARS, UPPER_SNAKE settings, --flags, keys of key=value
//     code, configuration file names;
//   - functions: CamelCase, snake_case, qualified (os.ReadFile) and called
//     (fsync()) identifiers outside code blocks, and any identifier written
//     alone in backticks;
//   - concepts: the learning's tags.
//
// URLs, e-mail addresses, numbers, versions and ordinary capitalised words
// are never entities. Entities are marked Extracted "heuristic".
func Extract(l *store.Learning) *store.Sidecar {
	loadVocab()
	sc := &store.Sidecar{DocumentID: l.ID, Entities: []store.Entity{}, Relationships: []store.Relationship{}}
	parts := []string{l.Title, l.KeyInsight, strings.Join(l.Symptoms, "\n"), l.Body}
	x := newExtractor(strings.Join(parts, "\n\n"))
	for _, c := range l.Cites {
		if name, typ, ok := pathEntity(strings.TrimSpace(c.Path), true); ok {
			x.add(name, typ, prioPinned, -1, -1)
		}
	}
	x.run()
	for _, tag := range l.Tags {
		tag = strings.TrimSpace(tag)
		if t, ok := tools[strings.ToLower(tag)]; ok {
			x.add(t.name, t.typ, prioTag, len(x.text), len(x.text))
		} else if tag != "" && utf8.RuneCountInString(tag) <= 60 {
			x.add(tag, "concept", prioTag, len(x.text), len(x.text))
		}
	}
	cands := x.cands
	sort.SliceStable(cands, func(i, j int) bool {
		if cands[i].prio != cands[j].prio {
			return cands[i].prio < cands[j].prio
		}
		return cands[i].start < cands[j].start
	})
	if len(cands) > maxEntities {
		cands = cands[:maxEntities]
	}
	for _, c := range cands {
		sc.Entities = append(sc.Entities, store.Entity{Name: c.name, Type: c.typ, Extracted: Heuristic})
	}
	top := sc.Entities
	if len(top) > maxRelated {
		top = top[:maxRelated]
	}
	for i := range top {
		for j := i + 1; j < len(top); j++ {
			sc.Relationships = append(sc.Relationships, store.Relationship{
				Source: top[i].Name, Target: top[j].Name, Type: "relates_to", Strength: heuristicStrength,
			})
		}
	}
	return sc
}

// cand is an entity found in the text, with where it was first seen.
type cand struct {
	name, norm, typ string
	prio            int
	start, end      int // byte offsets in the text; -1 for cited files
}

type extractor struct {
	text  string
	cands []cand
	seen  map[string]bool
	toks  []token
	words []word
}

// token is a run of non-space text with its wrapping punctuation stripped.
type token struct {
	s          string // stripped
	raw        string // as in the text
	start, end int    // offsets of s
	line       int
	call       bool // written as a call: "fsync()" or "open(path)"
	code       bool // inside a fenced code block
	tick       bool // inside a `code span`
	tickWhole  bool // the whole content of a code span
	firstInSp  bool // first token of its code span
}

// word is a lower-cased run of letters, digits and '_' (the phrase matcher's
// unit), with its offsets.
type word struct {
	s          string
	start, end int
}

func newExtractor(text string) *extractor {
	return &extractor{text: text, seen: map[string]bool{}}
}

// add records an entity unless one with the same norm was found first: the
// earlier, more specific rule decides the type.
func (x *extractor) add(name, typ string, prio, start, end int) {
	name = strings.TrimSpace(name)
	norm := Normalize(name)
	if norm == "" || utf8.RuneCountInString(name) > 80 || x.seen[norm] {
		return
	}
	x.seen[norm] = true
	x.cands = append(x.cands, cand{name: name, norm: norm, typ: typ, prio: prio, start: start, end: end})
}

func (x *extractor) run() {
	x.tokenize()
	x.phrases()
	for i := range x.toks {
		x.token(i)
	}
}

// tokenize splits the text into tokens and words, marking fenced code
// blocks and code spans, and blanking URLs and e-mail addresses out of the
// words so no phrase or status is read from inside one.
func (x *extractor) tokenize() {
	text := x.text
	inFence := false
	line := 0
	lower := asciiLower(text)
	for ls := 0; ls < len(text); line++ {
		le := strings.IndexByte(text[ls:], '\n')
		if le < 0 {
			le = len(text)
		} else {
			le += ls
		}
		ln := text[ls:le]
		if t := strings.TrimLeft(ln, " \t"); strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			inFence = !inFence
			ls = le + 1
			continue
		}
		// code spans of this line (outside fences): pairs of backticks
		var spans [][2]int
		if !inFence {
			open := -1
			for i := 0; i < len(ln); i++ {
				if ln[i] == '`' {
					if open < 0 {
						open = i
					} else {
						spans = append(spans, [2]int{ls + open + 1, ls + i})
						open = -1
					}
				}
			}
		}
		for i := 0; i < len(ln); {
			for i < len(ln) && isSep(ln, i) {
				i++
			}
			j := i
			for j < len(ln) && !isSep(ln, j) {
				j++
			}
			if j > i {
				x.addToken(ls+i, ls+j, line, inFence, spans, lower)
			}
			i = j
		}
		ls = le + 1
	}
	x.words = splitWords(string(lower))
}

// isSep tells whether ln[i] separates tokens: white space, backticks, and
// the "](" of a markdown link, so "[docs](a/b.md)" yields the path.
func isSep(ln string, i int) bool {
	switch c := ln[i]; c {
	case ' ', '\t', '\r', '`', '\v', '\f':
		return true
	case '(':
		return i > 0 && ln[i-1] == ']'
	}
	return false
}

func (x *extractor) addToken(start, end, line int, code bool, spans [][2]int, lower []byte) {
	raw := x.text[start:end]
	// The arguments of a call are tokens of their own:
	// panic("ECONNRESET"), open(path/to/file.go).
	if i := strings.IndexByte(raw, '('); i > 0 && i+1 < end-start && !strings.HasPrefix(raw[i+1:], ")") {
		x.addToken(start, start+i+1, line, code, spans, lower)
		x.addToken(start+i+1, end, line, code, spans, lower)
		return
	}
	if isURL(raw) {
		for i := start; i < end; i++ {
			lower[i] = ' '
		}
		return
	}
	s, off, call := strip(raw)
	if s == "" {
		return
	}
	t := token{s: s, raw: raw, start: start + off, end: start + off + len(s), line: line, call: call, code: code}
	for _, sp := range spans {
		if start >= sp[0] && end <= sp[1] {
			t.tick = true
			content := strings.TrimSpace(x.text[sp[0]:sp[1]])
			t.tickWhole = content == raw || content == s
			t.firstInSp = strings.TrimSpace(x.text[sp[0]:start]) == ""
			break
		}
	}
	x.toks = append(x.toks, t)
}

// isURL reports tokens that are links or addresses: their hosts and paths
// are not entities of the learning.
func isURL(s string) bool {
	s = strings.TrimLeft(s, "([<\"'")
	if i := strings.Index(s, "://"); i > 0 && i < 12 {
		return true
	}
	if strings.HasPrefix(s, "www.") || strings.HasPrefix(s, "mailto:") {
		return true
	}
	if at := strings.IndexByte(s, '@'); at > 0 && strings.Contains(s[at:], ".") && !strings.Contains(s[:at], "/") {
		return true // user@example.com (but not node_modules/@types/x)
	}
	return false
}

// strip removes the punctuation that wraps a token in prose: brackets,
// quotes, emphasis, trailing sentence punctuation and a possessive "'s".
// A trailing "()" is removed and reported as call.
func strip(raw string) (s string, off int, call bool) {
	s = raw
	for len(s) > 0 && strings.IndexByte("([{<\"'*", s[0]) >= 0 {
		s = s[1:]
		off++
	}
	for {
		switch {
		case strings.HasSuffix(s, "()"):
			s = s[:len(s)-2]
			call = true
			continue
		case strings.HasSuffix(s, "'s") || strings.HasSuffix(s, "’s"):
			s = strings.TrimSuffix(strings.TrimSuffix(s, "'s"), "’s")
			continue
		case len(s) > 0 && strings.IndexByte(")]}>\"'*,;:!?.", s[len(s)-1]) >= 0:
			// "(foo)" loses its ")", but "f(x)" keeps the call shape below
			s = s[:len(s)-1]
			continue
		}
		break
	}
	if i := strings.IndexByte(s, '('); i > 0 {
		s = s[:i]
		call = true
	}
	return s, off, call
}

// asciiLower lower-cases ASCII letters only, so that offsets in the result
// are offsets in s (strings.ToLower may change the length of a rune).
func asciiLower(s string) []byte {
	b := []byte(s)
	for i, c := range b {
		if isUpperASCII(c) {
			b[i] = c + 'a' - 'A'
		}
	}
	return b
}

func splitWords(lower string) []word {
	var out []word
	for i := 0; i < len(lower); {
		for i < len(lower) && !isWordByte(lower[i]) {
			i++
		}
		j := i
		for j < len(lower) && isWordByte(lower[j]) {
			j++
		}
		if j > i {
			out = append(out, word{s: lower[i:j], start: i, end: j})
		}
		i = j
	}
	return out
}

// isWordByte keeps non-ASCII bytes inside words: "café" is one word.
func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c >= 0x80
}

// phraseIndex maps the first word of each error phrase to the phrases, as
// word lists, longest first.
var phraseIndex map[string][][]string

// phrases finds the multi-word errors: curated failure messages, HTTP
// statuses with their context, exit statuses and SQLSTATE codes.
func (x *extractor) phrases() {
	ws := x.words
	at := func(i int) string {
		if i < len(ws) {
			return ws[i].s
		}
		return ""
	}
	for i := 0; i < len(ws); i++ {
		w := ws[i].s
		for _, p := range phraseIndex[w] {
			if x.wordsMatch(i, p) {
				end := ws[i+len(p)-1].end
				phrase := strings.Join(p, " ")
				if code, ok := httpPhrases[phrase]; ok {
					x.add("HTTP "+code, "error", prioPinned, ws[i].start, end)
				} else {
					x.add(x.text[ws[i].start:end], "error", prioPinned, ws[i].start, end)
				}
				break
			}
		}
		switch {
		case w == "http":
			// HTTP 404, HTTP/1.1 502, http 5xx
			j := i + 1
			for j < len(ws) && j <= i+2 && len(ws[j].s) == 1 && isDigits(ws[j].s) {
				j++
			}
			if isStatus(at(j), true) && x.near(i, j, " /.-_") {
				x.add("HTTP "+at(j), "error", prioPinned, ws[i].start, ws[j].end)
			}
		case w == "status" || w == "statuscode" || w == "status_code":
			j := i + 1
			if at(j) == "code" {
				j++
			}
			if isStatus(at(j), false) && x.near(i, j, " -=:") {
				x.add("HTTP "+at(j), "error", prioPinned, ws[i].start, ws[j].end)
			}
		case len(w) == 3 && isStatus(w, true) && strings.HasSuffix(w, "xx"):
			x.add("HTTP "+w, "error", prioPinned, ws[i].start, ws[i].end)
		case len(w) == 3 && isStatus(w, false):
			if r, ok := httpReasons[w]; ok {
				if rw := splitWords(r); x.near(i, i+1, " -") && x.wordsMatch(i+1, wordStrings(rw)) {
					x.add("HTTP "+w, "error", prioPinned, ws[i].start, ws[i+len(rw)].end)
				}
			}
		case w == "exit" && (at(i+1) == "code" || at(i+1) == "status") && isDigits(at(i+2)) && len(at(i+2)) <= 3 && x.near(i, i+2, " :"):
			x.add("exit status "+at(i+2), "error", prioPinned, ws[i].start, ws[i+2].end)
		case w == "sqlstate" && len(at(i+1)) == 5 && isAlnumString(at(i+1)) && x.near(i, i+1, " [=:"):
			x.add("SQLSTATE "+strings.ToUpper(at(i+1)), "error", prioPinned, ws[i].start, ws[i+1].end)
		}
	}
}

func wordStrings(ws []word) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = w.s
	}
	return out
}

// wordsMatch tells whether the words from i on are p, with nothing but
// spaces or hyphens between them ("read-only file system"), so a phrase
// never spans a sentence break.
func (x *extractor) wordsMatch(i int, p []string) bool {
	if i+len(p) > len(x.words) {
		return false
	}
	for k, s := range p {
		if x.words[i+k].s != s {
			return false
		}
		if k > 0 && !x.near(i+k-1, i+k, " -") {
			return false
		}
	}
	return true
}

// near reports whether words i to j are separated only by characters of
// gaps ("status=503", "HTTP/1.1 502"), never by a line break: a phrase or
// a status never spans two sentences or lines.
func (x *extractor) near(i, j int, gaps string) bool {
	if j >= len(x.words) {
		return false
	}
	for k := i; k < j; k++ {
		if gap := x.text[x.words[k].end:x.words[k+1].start]; strings.Trim(gap, gaps) != "" {
			return false
		}
	}
	return true
}

// isStatus tells whether w is an HTTP status: 100-599, or "4xx" when
// classes are allowed.
func isStatus(w string, classes bool) bool {
	if len(w) != 3 || w[0] < '1' || w[0] > '5' {
		return false
	}
	if classes && w[1:] == "xx" {
		return true
	}
	return isDigits(w)
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// token classifies the i-th token.
func (x *extractor) token(i int) {
	t := x.toks[i]
	if n := len(t.s); n < 2 || n > 120 {
		return
	}
	if x.install(i) {
		return
	}
	if name, typ, prio, ok := x.classify(i); ok {
		x.add(name, typ, prio, t.start, t.end)
	}
}

// installers are the package managers whose "install x" names a package.
var installers = map[string]string{
	"pip": "library", "pip3": "library", "npm": "library", "yarn": "library", "pnpm": "library",
	"bun": "library", "cargo": "library", "gem": "library", "go": "library", "composer": "library",
	"uv": "library", "poetry": "library", "pipx": "tool", "brew": "tool", "apt": "tool",
	"apt-get": "tool", "dnf": "tool", "yum": "tool",
}

var installVerbs map[string]bool

// install handles "pip install requests", "go get golang.org/x/sync": the
// package manager is a tool and up to three packages after it are named.
func (x *extractor) install(i int) bool {
	t := x.toks[i]
	kind, ok := installers[strings.ToLower(t.s)]
	if !ok || i+2 >= len(x.toks) || !installVerbs[x.toks[i+1].s] || x.toks[i+1].line != t.line {
		return false
	}
	// "Go get 'em!": in prose, a command led by an English word counts only
	// when what follows looks like a package (a path, a scope, a known
	// name), not like another word.
	if ambiguous[strings.ToLower(t.s)] && !t.code && !t.tick {
		p := packageName(x.toks[i+2].s)
		if p == "" || !strings.ContainsAny(p, "./@-_0123456789") && tools[p] == nil {
			return false
		}
	}
	if tl := tools[strings.ToLower(t.s)]; tl != nil {
		x.add(tl.name, tl.typ, prioNamed, t.start, t.end)
	}
	n := 0
	for j := i + 2; j < len(x.toks) && x.toks[j].line == t.line && n < 3; j++ {
		p := x.toks[j].s
		if strings.HasPrefix(p, "-") {
			continue // flags
		}
		// Package names are lower-case; prose after the command ("and",
		// "Then") ends the list, as does punctuation after a name.
		name := packageName(p)
		if name == "" || name != strings.ToLower(name) || stopwords[name] {
			break
		}
		n++
		typ := kind
		if tl := tools[strings.ToLower(name)]; tl != nil {
			name, typ = tl.name, tl.typ
		} else if mp, ok := modulePath(name); ok {
			name = mp
		}
		x.add(name, typ, prioNamed, x.toks[j].start, x.toks[j].end)
		if x.toks[j].raw != p {
			break
		}
	}
	return true
}

// packageName is p without a version ("x==1.2", "x@^3", "x>=2"), or "" when
// p is no package name (".", "-r", a file).
func packageName(p string) string {
	if i := strings.IndexAny(p, "=<>~!["); i >= 0 {
		p = p[:i]
	}
	if i := strings.LastIndexByte(p, '@'); i > 0 {
		p = p[:i]
	}
	if p == "" || !isLetter(p[0]) && p[0] != '@' {
		return ""
	}
	for i := 0; i < len(p); i++ {
		c := p[i]
		if !(isAlnum(c) || strings.IndexByte("-_./@", c) >= 0) {
			return ""
		}
	}
	if _, _, ok := bareFile(p); ok {
		return ""
	}
	return p
}

// classify applies the single-token rules in order of precision.
func (x *extractor) classify(i int) (name, typ string, prio int, ok bool) {
	t := x.toks[i]
	s := t.s
	lower := strings.ToLower(s)
	if tl, found := tools[lower]; found {
		if ambiguous[lower] && !x.toolContext(i, tl) {
			return "", "", 0, false
		}
		p := prioNamed
		if tl.typ == "concept" {
			p = prioGeneric
		}
		return tl.name, tl.typ, p, true
	}
	if name, ok := errorName(s, t.tickWhole); ok {
		return name, "error", prioPinned, true
	}
	switch {
	case len(s) > 2 && s[0] == '$':
		v := strings.Trim(s[1:], "{}")
		if isUpperIdent(v) {
			return v, "config", prioNamed, true
		}
		return "", "", 0, false
	case strings.HasPrefix(s, "--"):
		f := s
		if j := strings.IndexByte(f, '='); j > 0 {
			f = f[:j]
		}
		if isFlag(f) {
			return f, "config", prioNamed, true
		}
		return "", "", 0, false
	}
	if mp, ok := modulePath(s); ok {
		return mp, "library", prioNamed, true
	}
	// A call is never a file: "console.log()", "mu.Lock()".
	if !t.call {
		if name, typ, ok := pathEntity(s, false); ok {
			return name, typ, prioPinned, true
		}
	}
	if j := strings.IndexByte(s, '='); j > 0 && !strings.Contains(s, "==") {
		key := s[:j]
		if isUpperIdent(key) || (isIdent(key) && (t.tick || isCamel(key) || isSnake(key))) {
			return key, "config", prioNamed, true
		}
		return "", "", 0, false
	}
	if isUpperIdent(s) && strings.Contains(s, "_") {
		return s, "config", prioNamed, true
	}
	if t.code && !t.tick {
		// Code blocks are full of local names; only the rules above,
		// which name things beyond one program, apply there.
		return "", "", 0, false
	}
	switch {
	case isQualified(s, t.call), isCamel(s) && !notIdentifiers[lower], isSnake(s):
		return s, "function", prioCode, true
	case t.call && isIdent(s) && strings.Contains(t.raw, "()") || t.call && t.tick:
		return s, "function", prioCode, true
	case t.tickWhole && isIdent(s) && s[0] != '-' && !literals[lower] && !isVersion(s):
		return s, "function", prioCode, true
	}
	return "", "", 0, false
}

// isVersion: v1.2.3, 1.21, 3.11.4 and the like are versions, not names.
func isVersion(s string) bool {
	s = strings.TrimPrefix(strings.TrimPrefix(s, "v"), "V")
	return s != "" && strings.Trim(s, "0123456789.-x") == ""
}

// prompts are the tokens after which a code line's next word is a command
// or, after import and from, a library.
var prompts map[string]bool

// toolContext tells whether an ambiguous tool name ("go", "make", "black")
// is meant as the tool: it is a command (first in a code line or code
// span, or followed by one of its subcommands, a flag or a file), or it is
// capitalised inside a sentence ("written in Go").
func (x *extractor) toolContext(i int, tl *tool) bool {
	t := x.toks[i]
	if t.tickWhole || t.firstInSp {
		return true
	}
	if t.code && !t.tick {
		if i == 0 || x.toks[i-1].line != t.line || prompts[x.toks[i-1].raw] || strings.HasSuffix(x.toks[i-1].raw, "$") {
			return true
		}
	}
	// A command is typed in lower case: "Go get 'em!" is not one.
	if i+1 < len(x.toks) && x.toks[i+1].line == t.line && t.s == strings.ToLower(t.s) && !x.verbContext(i) {
		next := x.toks[i+1]
		if tl.subs[next.s] && next.raw == next.s || len(next.s) > 1 && next.s[0] == '-' && next.raw == next.s {
			return true
		}
		if _, _, ok := bareFile(next.s); ok && next.raw == next.s {
			return true
		}
	}
	s := t.s
	if len(s) < 2 || !unicode.IsUpper(rune(s[0])) || strings.ToLower(s[1:]) != s[1:] {
		return false
	}
	return !x.sentenceStart(i)
}

// knownDirs are directories that are entities by name alone.
var knownDirs map[string]bool

// verbWords are the words after which "go", "make" or "run" are verbs of
// a sentence ("you go get them", "we make sure"), not commands.
var verbWords map[string]bool

// verbContext tells whether the word before token i makes it a verb.
func (x *extractor) verbContext(i int) bool {
	if i == 0 || x.toks[i-1].line != x.toks[i].line {
		return false
	}
	p := strings.ToLower(strings.ReplaceAll(x.toks[i-1].raw, "’", "'"))
	return verbWords[p]
}

// sentenceStart tells whether token i begins a sentence, a line, a list
// item or a heading, where capitals say nothing.
func (x *extractor) sentenceStart(i int) bool {
	t := x.toks[i]
	if i == 0 || x.toks[i-1].line != t.line {
		return true
	}
	p := x.toks[i-1].raw
	if strings.ContainsAny(p[len(p)-1:], ".!?:|") {
		return true
	}
	if strings.Trim(p, "#-*+>") == "" {
		return true
	}
	if n := strings.TrimRight(p, ".)"); n != p && isDigits(n) {
		return true
	}
	// a line of markdown markers before the token ("- ", "1. ", "# ")
	for k := i - 1; k >= 0 && x.toks[k].line == t.line; k-- {
		if r := x.toks[k].raw; strings.Trim(r, "#-*+>") != "" && !isDigits(strings.TrimRight(r, ".)")) {
			return false
		}
	}
	return true
}
