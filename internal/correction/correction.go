// Package correction tells whether a user's prompt corrects what a coding
// agent just did ("no, use X instead", "don't use Y", "should have …").
// The hooks use it to turn a correction of a failed command into a
// mini-learning, and the drainer's builtin writer to find corrections in
// transcripts, so both judge a prompt the same way. It only reads text.
package correction

import (
	"sort"
	"strings"

	"github.com/reflectkb/reflect/internal/lazyre"
	"github.com/reflectkb/reflect/internal/text"
)

// A correction is the user telling the agent how the thing that just failed
// should have been done: another tool, flag, path, order or rule ("no, use
// --insecure instead", "don't use sudo", "it's main, not master", "you
// forgot to source .env first"). It is judged from the prompt alone,
// because the prompt hook must decide in microseconds and without a model.
//
// Where the line is drawn:
//   - Requests for new work are not corrections even when they say "use" or
//     "instead": "use the same style as the other file for the new
//     component", "document why we use SQLite instead of Postgres". A prompt
//     that opens with a task verb (add, write, implement, refactor, rename,
//     update, fix, …) is new work unless it also passes judgement ("wrong",
//     "that's not right", an opening "no,").
//   - Questions are not corrections, even "why did you use npm instead of
//     pnpm?": a question asks, a correction tells. Exceptions are the
//     suggestion forms "why not …", "how about …" and polite requests
//     ("could you use pnpm instead?").
//   - Acknowledgements ("ok thanks", "great, now run the tests") are not,
//     unless they carry a strong marker ("ok, use pnpm instead").
//   - Negations about other things ("no rush", "no problem, continue", "I
//     don't know", "don't worry about lint") are not.
//   - A bare "try again" or "that's wrong" says nothing to learn from: it
//     scores too low or has fewer than three words.
//   - Only the first line of a multi-line prompt is read, and a prompt whose
//     first line looks like tool output is a paste, not a correction.

// correctionThreshold is the score a prompt needs: one strong marker
// ("instead", "rather than", "should have used", "wrong flag", "X, not Y",
// "don't use") or two weaker ones (an opening "no,", an imperative such as
// "use …" or "run …", a flag or path, "you need to", a reason such as
// "isn't installed", "first").
const correctionThreshold = 2

// maxCorrectionChars bounds the line that is read: a correction is a
// sentence or two, and a long line is a specification or a paste.
const maxCorrectionChars = 400

// minCorrectionWords rejects bare verdicts ("wrong", "that's wrong",
// "use pnpm"): a mini-learning needs a correction that says something.
const minCorrectionWords = 3

// Is reports whether a prompt reads as a correction of what the agent just
// did. See Explain for the reasons behind a verdict.
func Is(prompt string) bool {
	ok, _ := Explain(prompt)
	return ok
}

// Explain is Is with the reasons: the markers found, or
// why the prompt was rejected outright. It is for
// debugging and for test failure messages.
func Explain(prompt string) (bool, string) {
	v := Judge(prompt)
	return v.Correction, v.reason()
}

// Verdict is the detector's judgement of one prompt.
type Verdict struct {
	// Correction is the answer.
	Correction bool
	rejected   string // why the prompt was rejected outright, if it was
	score      int
	markers    []string
	// ack and task say the prompt moves on (an acknowledgement, new
	// work): CaptureCorrection disarms the watcher on those.
	ack, task bool
}

func (v Verdict) reason() string {
	var b strings.Builder
	if v.Correction {
		b.WriteString("correction")
	} else {
		b.WriteString("not a correction")
	}
	if v.rejected != "" {
		b.WriteString(": " + v.rejected)
	}
	if len(v.markers) > 0 {
		b.WriteString(" [" + strings.Join(v.markers, ", ") + "]")
	}
	return b.String()
}

// MovesOn reports whether the prompt shows that the user has moved past
// the failure: an acknowledgement or a new task.
func (v Verdict) MovesOn() bool { return !v.Correction && (v.ack || v.task) }

// signal is one marker of a correction.
type signal struct {
	name string
	// weight 2 marks a strong marker: enough on its own, and it
	// overrides the acknowledgement rule ("ok, use pnpm instead").
	weight int
	// need lists literals of which every match holds one (in lower): a
	// prompt holding none is told apart by a substring search instead of
	// the regular expressions, which cost far more on the long prompts
	// of a transcript. Empty: always match.
	need  []string
	match func(s signalText) bool
}

// mayMatch reports whether sig can match s: false only when s holds none
// of sig.need.
func (sig signal) mayMatch(s signalText) bool {
	if len(sig.need) == 0 {
		return true
	}
	for _, w := range sig.need {
		if strings.Contains(s.lower, w) {
			return true
		}
	}
	return false
}

// signalText is the prompt line in the two forms the signals read.
type signalText struct {
	raw   string // original case, for flags, paths and env vars
	lower string // lowercased, typographic quotes folded, spaces collapsed
	body  string // lower without the opener ("no, ") and politeness
}

func rx(expr string) *lazyre.Regexp { return lazyre.New(expr) }

var (
	reInstead    = rx(`\binstead\b`)
	reRatherThan = rx(`\brather than\b`)
	// "should have" followed by a participle: "should have used", not "the
	// user should have a way to …".
	reShouldHave = rx(`\bshould(?:'ve| have|ve| of)\s+(?:\w+ed|\w+en|run|done|set|put|built|made|read|kept|gone|got|begun|chosen|sent|cd)\b`)
	reJudgement  = rx(`\b(?:that's|thats|that is|this is|it's|its|it is|that was|this was)\s+(?:wrong|not right|incorrect|not correct|not how)\b|^(?:wrong|incorrect|not quite|not like that)\b|\bnot like that\b`)
	// "wrong flag", "the wrong python"; not "what's wrong with", "nothing
	// wrong here".
	reWrongNoun   = rx(`\bwrong\s+([a-z][\w.-]*)`)
	wrongNotNoun  = setOf("with", "here", "there", "about", "again", "so", "to", "in", "on", "at", "and", "or", "but", "for", "if", "is", "was", "though")
	reCommaNot    = rx(`,\s*not\s+(?:the\s+|a\s+)?([\w\x60'".~/-]+)`)
	reUseNot      = rx(`\b(?:use|try|run|pass|call)\s+[\w\x60'".~/=:-]+\s+not\s+(?:the\s+|a\s+)?([\w\x60'".~/=:-]+)`)
	commaNotIdiom = setOf("yet", "now", "sure", "really", "bad", "quite", "necessarily", "that", "this", "me", "just", "much", "at", "too", "so", "always", "a", "only", "even", "exactly")
	reNotBut      = rx(`\bnot\s+[^,.;!?]{1,40}?\s+but\s+`)
	reCodeNot     = rx("\x60\\s*,?\\s+not\\s+\\S")
	reDontUse     = rx(`\b(?:don't|do not|dont|never|stop|quit|avoid)\s+(?:use|using)\b`)
	reCorrectIs   = rx(`\bthe (?:correct|right|proper|actual|real) (?:[\w.-]+ ){0,2}(?:is|are|was|lives|goes)\b`)

	reOpener = rx(`^(?:no|nope|nah|nono|no no|actually|hmm,? no|wait)\s*[,.!:;—–-]|^(?:no|nope|nah|actually)\s+(?:no|use|run|try|pass|set|it's|its|the|you|that's|don't|do not)\b`)
	// openerStarts are the first letters of every reOpener match.
	openerStarts = []string{"no", "nah", "actually", "hmm", "wait"}
	reYouModal   = rx(`\byou(?:'ll| will)?\s+(?:need to|have to|must|should|forgot|missed|were supposed to)\b|\byou(?:'re| are)\s+missing\b|\bneeds? to be\b`)
	reEnvReason  = rx(`\b(?:isn't|is not|aren't|are not|wasn't|doesn't|does not|won't|can't|cannot|don't have|no longer|there's no|there is no)\b|\b(?:read-only|is taken|in use|too slow|deprecated|self-signed|outdated)\b`)
	reOrdering   = rx(`\b(?:first|beforehand|before (?:running|building|starting|testing|you|that|it|\w+ing))\b`)
	reAnother    = rx(`\b(?:a different|another)\s+\w+`)
	reSuggest    = rx(`^(?:why not|how about|what about)\b`)
	reDontVerb   = rx(`\b(?:don't|do not|dont|never)\s+(\w+)`)
	dontMeta     = setOf("forget", "worry", "bother", "stop", "hesitate", "mind", "know", "think", "care", "need", "want", "see", "get", "understand", "remember", "have", "like", "be", "use", "rush")

	reCode = rx(strings.Join(codeForms(), "|"))
)

// A code form is a span of text only code has: a quoted span, a flag, a
// path, an environment variable, a port, a dotted name. reCode matches
// any of them; isCode tells the same trying each form's expression only
// where a cheap test says it may match.
type codeForm struct {
	expr string
	// may is false only where expr cannot match.
	may func(s string) bool
	// exact: may is the answer, expr need not run.
	exact bool
}

var codeFormList = []codeForm{
	{expr: "\x60[^\x60]+\x60", may: holds('`')},
	{expr: `(?:^|\s)--?[A-Za-z][\w-]*`, may: opensWord('-')},
	{expr: `(?:^|\s)(?:\.{1,2}/|~/|/)\S+`, may: holds('/')},
	{expr: `\S+/\S+`, may: hasSlashWord, exact: true},
	{expr: `\b[A-Z][A-Z0-9_]+=\S`, may: holds('=')},
	{expr: `(?:^|\s):\d{2,5}\b`, may: opensWord(':')},
	{expr: `(?:^|\s)\.[a-z]\w*`, may: opensWord('.')},
}

var codeFormRes = func() []*lazyre.Regexp {
	out := make([]*lazyre.Regexp, len(codeFormList))
	for i, f := range codeFormList {
		out[i] = rx(f.expr)
	}
	return out
}()

func codeForms() []string {
	out := make([]string, len(codeFormList))
	for i, f := range codeFormList {
		out[i] = f.expr
	}
	return out
}

// isCode is reCode.MatchString(s).
func isCode(s string) bool {
	for i, f := range codeFormList {
		if f.may(s) && (f.exact || codeFormRes[i].MatchString(s)) {
			return true
		}
	}
	return false
}

// holds is a test that s holds the byte c.
func holds(c byte) func(string) bool {
	return func(s string) bool { return strings.IndexByte(s, c) >= 0 }
}

// opensWord is a test that s holds the byte c at its start or after
// white space.
func opensWord(c byte) func(string) bool {
	return func(s string) bool {
		for i := 0; i < len(s); i++ {
			if s[i] == c && (i == 0 || isSpace(s[i-1])) {
				return true
			}
		}
		return false
	}
}

// hasSlashWord reports whether s holds a slash between two characters
// that are not white space, which is what reCode's \S+/\S+ matches.
func hasSlashWord(s string) bool {
	for i := 1; i+1 < len(s); i++ {
		if s[i] == '/' && !isSpace(s[i-1]) && !isSpace(s[i+1]) {
			return true
		}
	}
	return false
}

// isSpace is \s of a regular expression.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'
}

// directives are the imperatives that say how to do something. Counted
// only at the start of a clause, so "use" in "I'd like to use Tailwind"
// is not one.
var directives = setOf("use", "run", "try", "pass", "set", "export", "source", "drop", "remove",
	"start", "stop", "call", "cd", "switch", "prefix", "quote", "escape", "install", "download",
	"point", "change", "put", "bump", "rerun", "restart", "specify", "include", "exclude",
	"enable", "disable", "launch", "invoke", "apply", "upgrade", "downgrade", "pin", "unset",
	"go with", "stick with", "stick to", "switch to", "check out")

// directiveWords are the first words of directives: a clause can open
// with a directive only where the prompt holds one of them.
var directiveWords = func() []string {
	seen := map[string]bool{}
	var out []string
	for d := range directives {
		w, _, _ := strings.Cut(d, " ")
		if !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	sort.Strings(out)
	return out
}()

// taskVerbs open a request for new work.
var taskVerbs = setOf("add", "implement", "write", "create", "document", "refactor", "rename",
	"update", "design", "deploy", "migrate", "summarize", "summarise", "explain", "show",
	"review", "fix", "improve", "extend", "support", "split", "move", "delete", "ship",
	"commit", "merge", "release", "publish", "draft", "plan", "investigate", "debug", "look",
	"find", "list", "describe", "let's", "lets", "build", "make", "clean", "convert", "port")

// questionWords open a question. "could you", "can you" and "would you"
// are left out: they open polite requests.
var questionWords = setOf("what", "what's", "whats", "why", "how", "how's", "is", "isn't",
	"are", "aren't", "does", "doesn't", "do", "did", "didn't", "should", "shall", "where",
	"when", "which", "who", "whose", "was", "were", "has", "have", "any", "am")

// acks open an acknowledgement or a go-ahead.
var reAck = rx(`^(?:ok|okay|k|kk|thanks|thank you|thx|ty|great|perfect|nice|cool|awesome|lgtm|looks good|sounds good|good|yes|yep|yeah|sure|go ahead|continue|keep going|proceed|got it|no worries|no problem|np|never ?mind|nvm|ship it|excellent|all good|it's fine|that's fine|fine|alright)\b`)

// fillers and politeness come before the verb of a clause.
var (
	fillers  = []string{"please", "pls", "plz", "just", "now", "also", "then", "next", "and", "so", "ok", "okay", "maybe", "could you", "can you", "would you", "will you", "instead"}
	reFiller = rx(`^(?:(?:` + strings.Join(fillers, "|") + `)\s*,?\s+)+`)
)

// stripFillers removes the fillers a clause opens with.
func stripFillers(s string) string {
	if !hasPrefixOf(s, fillers) {
		return s
	}
	return reFiller.ReplaceAllString(s, "")
}

// opens reports whether s opens with a correction's opener ("no,").
func opens(s string) bool {
	return hasPrefixOf(s, openerStarts) && reOpener.MatchString(s)
}

func hasPrefixOf(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

var signals = []signal{
	{"instead", 2, []string{"instead"}, func(s signalText) bool { return reInstead.MatchString(s.lower) }},
	{"rather than", 2, []string{"rather than"}, func(s signalText) bool { return reRatherThan.MatchString(s.lower) }},
	{"should have", 2, []string{"should"}, func(s signalText) bool { return reShouldHave.MatchString(s.lower) }},
	{"judgement", 2, []string{"wrong", "incorrect", "not "}, func(s signalText) bool { return reJudgement.MatchString(s.lower) }},
	{"wrong X", 2, []string{"wrong"}, func(s signalText) bool {
		for _, m := range reWrongNoun.FindAllStringSubmatch(s.lower, -1) {
			if !wrongNotNoun[m[1]] {
				return true
			}
		}
		return false
	}},
	{"use X not Y", 2, []string{"not"}, func(s signalText) bool {
		for _, m := range reUseNot.FindAllStringSubmatch(s.lower, -1) {
			if !commaNotIdiom[m[1]] {
				return true
			}
		}
		return false
	}},
	{"X, not Y", 2, []string{"not"}, func(s signalText) bool {
		for _, m := range reCommaNot.FindAllStringSubmatch(s.lower, -1) {
			if !commaNotIdiom[m[1]] {
				return true
			}
		}
		return reNotBut.MatchString(s.lower) || reCodeNot.MatchString(s.lower)
	}},
	{"don't use", 2, []string{"use", "using"}, func(s signalText) bool { return reDontUse.MatchString(s.lower) }},
	{"the correct X is", 2, []string{"the "}, func(s signalText) bool { return reCorrectIs.MatchString(s.lower) }},

	{"opener", 1, nil, func(s signalText) bool { return opens(s.lower) }},
	{"directive", 1, directiveWords, func(s signalText) bool { return hasDirective(s.lower) }},
	{"you need to", 1, []string{"you", "need"}, func(s signalText) bool { return reYouModal.MatchString(s.lower) }},
	{"code", 1, nil, func(s signalText) bool { return isCode(s.raw) }},
	{"reason", 1, []string{"n't", "not", "no longer", "there's no", "there is no", "read-only", "is taken", "in use", "too slow", "deprecated", "self-signed", "outdated"}, func(s signalText) bool { return hasReason(s.lower) }},
	{"ordering", 1, []string{"first", "before"}, func(s signalText) bool { return reOrdering.MatchString(s.lower) }},
	{"alternative", 1, []string{"a different", "another"}, func(s signalText) bool { return reAnother.MatchString(s.lower) }},
	{"suggestion", 1, []string{"why not", "how about", "what about"}, func(s signalText) bool { return reSuggest.MatchString(s.lower) }},
	{"don't do", 1, []string{"don", "do not", "never"}, func(s signalText) bool {
		for _, m := range reDontVerb.FindAllStringSubmatchIndex(s.lower, -1) {
			if !dontMeta[s.lower[m[2]:m[3]]] && !precededByI(s.lower, m[0]) {
				return true
			}
		}
		return false
	}},
}

// Judge scores a prompt.
// Judge returns the detector's Verdict on a prompt.
func Judge(prompt string) Verdict {
	var v Verdict
	line, rejected := correctionLine(prompt)
	s := signalText{raw: line, lower: normalize(line)}
	s.body = stripFillers(stripOpener(s.lower))
	first := firstWord(s.body)
	// Judged even for a prompt rejected as too short: "ok thanks" is
	// still an acknowledgement.
	v.task = taskVerbs[first]
	v.ack = reAck.MatchString(s.lower) && !opens(s.lower)
	if rejected != "" {
		v.rejected = rejected
		return v
	}
	if questionWords[first] && !reSuggest.MatchString(s.lower) && strings.HasSuffix(firstSentence(s.lower), "?") {
		v.rejected = "a question"
		return v
	}
	strong, judged := 0, false
	for _, sig := range signals {
		if !sig.mayMatch(s) || !sig.match(s) {
			continue
		}
		v.score += sig.weight
		v.markers = append(v.markers, sig.name)
		if sig.weight >= 2 {
			strong++
		}
		if sig.name == "judgement" || sig.name == "opener" {
			judged = true
		}
	}
	switch {
	case v.ack && strong == 0:
		v.rejected = "an acknowledgement"
	case v.task && !judged:
		v.rejected = "a request for new work"
	case v.score >= correctionThreshold:
		v.Correction = true
	}
	return v
}

// correctionLine returns the part of the prompt that is judged (its first
// line), or why the prompt cannot be a correction (with the line when there
// is one worth reading for an acknowledgement).
func correctionLine(prompt string) (line, rejected string) {
	prompt = strings.TrimSpace(prompt)
	if prompt == "" {
		return "", "empty"
	}
	if strings.HasPrefix(prompt, "/") && !strings.HasPrefix(prompt, "//") {
		return "", "a slash command"
	}
	first, rest, multiline := strings.Cut(prompt, "\n")
	line = strings.TrimSpace(first)
	if multiline && strings.TrimSpace(rest) != "" && LooksLikeOutput(line) {
		return "", "pasted output"
	}
	if len(line) > maxCorrectionChars {
		return "", "too long"
	}
	if len(strings.Fields(line)) < minCorrectionWords {
		return line, "too short to learn from"
	}
	return line, ""
}

// reOutputLine matches lines tools print, not people: prompts, stack trace
// openers, log levels, timestamps, diff headers, file:line positions,
// "program: error …".
var reOutputLine = rx(`^(?:\$ |> |>>> |npm (?:err|warn)|traceback|error\b|fatal\b|panic:|warning:|exception|caused by|at [\w.$<>]+\(|---|\+\+\+|===|\[[a-z]*\]|\d{4}-\d\d-\d\d|\d\d:\d\d:\d\d|[\w./-]+\.\w+:\d+|e\d{4}|goroutine \d|#\d+ |[\w./-]+: (?:\(\d+\)|error|fatal|warning|cannot|can't|no such|command not found|permission denied))`)

// LooksLikeOutput reports whether a line reads as pasted tool output rather
// than something the user wrote.
func LooksLikeOutput(line string) bool {
	return reOutputLine.MatchString(strings.ToLower(line))
}

// normalize lowercases, folds typographic quotes and dashes and collapses
// white space, so "Don’t" and "don't" read alike.
func normalize(s string) string {
	return text.OneLine(strings.ToLower(quoteFolder.Replace(s)))
}

var quoteFolder = strings.NewReplacer("\u2019", "'", "\u2018", "'", "\u201c", `"`, "\u201d", `"`)

// stripOpener removes a leading "no," / "actually," and the like.
func stripOpener(s string) string {
	if !hasPrefixOf(s, openerStarts) {
		return s
	}
	if loc := reOpener.FindStringIndex(s); loc != nil && loc[0] == 0 {
		rest := s[loc[1]:]
		// The second alternative of reOpener consumes the next word.
		if !strings.ContainsAny(s[:loc[1]], ",.!:;—–-") {
			return strings.TrimSpace(s[len(firstWord(s)):])
		}
		return strings.TrimSpace(rest)
	}
	return s
}

var reClauseBreak = rx(`[,;:.!?(]\s+|\s+[—–-]{1,2}\s+`)

// hasDirective reports whether a clause opens with an imperative of
// directives.
func hasDirective(s string) bool {
	for _, clause := range reClauseBreak.Split(stripOpener(s), -1) {
		clause = stripFillers(strings.TrimSpace(clause))
		w := firstWord(clause)
		if directives[w] {
			return true
		}
		if rest := strings.TrimSpace(strings.TrimPrefix(clause, w)); directives[w+" "+firstWord(rest)] {
			return true
		}
	}
	return false
}

// hasReason reports a statement about why the failed way cannot work
// ("isn't installed", "there's no tty", "is read-only"); "I don't" and
// "I can't" are about the user, not the environment.
func hasReason(s string) bool {
	for _, loc := range reEnvReason.FindAllStringIndex(s, -1) {
		if !precededByI(s, loc[0]) {
			return true
		}
	}
	return false
}

func precededByI(s string, i int) bool {
	before := strings.TrimRight(s[:i], " ")
	return before == "i" || strings.HasSuffix(before, " i")
}

func firstWord(s string) string {
	s = strings.TrimLeft(s, " \t\"'\x60*_")
	end := strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '\'' || r == '-' || r >= 0x80)
	})
	if end < 0 {
		return s
	}
	return s[:end]
}

// firstSentence returns s up to and including its first sentence end.
func firstSentence(s string) string {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '.', '!', '?':
			if i+1 == len(s) || s[i+1] == ' ' {
				return s[:i+1]
			}
		}
	}
	return s
}

func setOf(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}
