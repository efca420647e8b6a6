package writer

import (
	"context"
	"github.com/reflectkb/reflect/transcript"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/reflectkb/reflect/internal/lazyre"
	"github.com/reflectkb/reflect/internal/redact"
	"github.com/reflectkb/reflect/internal/text"
	"github.com/reflectkb/reflect/store"
)

// Builtin is the writer that needs no LLM: it reads the condensed events
// with fixed rules and finds
//   - a failed shell command later fixed by a successful run of the same
//     program and subcommand, or of the same program on the same target,
//     with the user's corrections or edits in between (see fixes);
//   - a failed command the user corrected but that never succeeded;
//   - a reported problem the assistant explained ("…, so …", "because"),
//     fixed by editing files, and that the user confirmed works;
//   - explicit instructions: a prompt sentence starting "remember",
//     "always" or "never".
//
// It is deterministic, so the same transcript always gives the same
// learnings, and it never calls out: it is the writer of last resort and
// the one tests can rely on.
type Builtin struct{}

// Name returns "builtin".
func (Builtin) Name() string { return "builtin" }

// Bounds of builtin learnings. A title is read in a list; an insight in a
// context block injected under a 1,500-character budget.
const (
	maxBuiltinLearnings  = 10
	maxTitleRunes        = 100
	maxInsightBytes      = 400
	maxProblemBytes      = 800
	maxSolutionBytes     = 1200
	maxCorrections       = 3
	maxInstructionPrompt = 1500
	maxInstructionBytes  = 300
	maxTags              = 6
	maxTerms             = 3
)

// Confidence and kind of rule, which rank the learnings when a session
// yields more than maxBuiltinLearnings: the user's own words first.
const (
	rankInstruction = iota
	rankCorrected
	rankFixed
	rankRerun
)

// Write returns the learnings the rules find in c; none for a skipped
// condensation.
func (Builtin) Write(ctx context.Context, c *transcript.Condensed) (*Output, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := &Output{}
	if c == nil || c.Skip != "" {
		return out, nil
	}
	x := &extractor{c: c, open: map[string]*failure{}, seen: map[string]bool{}}
	out.Learnings = x.run()
	return out, nil
}

// failure is a failed shell command awaiting its fix.
type failure struct {
	ev          transcript.Event
	key         string
	corrections []string
	fixed       bool
}

// problem is a reported problem being worked on: from a prompt that names
// one until the user acknowledges the result or moves on.
type problem struct {
	prompt         string
	causes, fixes  []string
	files          []string
	claimed, acked bool
}

type ranked struct {
	d    Draft
	rank int
	pos  int
}

type extractor struct {
	c      *transcript.Condensed
	found  []ranked
	open   map[string]*failure // unfixed failures by command key
	order  []*failure          // failures in order, for the corrected-but-unfixed ones
	recent *failure            // corrections attach here until the user moves on
	prob   *problem
	seen   map[string]bool // titles already drafted
}

func (x *extractor) run() []Draft {
	for _, ev := range x.c.Events {
		switch ev.Kind {
		case transcript.ToolFailed:
			x.failed(ev)
		case transcript.ToolSucceeded:
			x.succeeded(ev)
		case transcript.UserPrompt:
			x.prompt(ev.Text)
		case transcript.AssistantFinal:
			x.answer(ev)
		}
	}
	x.endProblem()
	for _, f := range x.order {
		if !f.fixed && len(f.corrections) > 0 {
			x.add(x.correctionDraft(f), rankCorrected)
		}
	}
	// Keep the best-ranked learnings, in transcript order.
	sort.SliceStable(x.found, func(i, j int) bool { return x.found[i].rank < x.found[j].rank })
	if len(x.found) > maxBuiltinLearnings {
		x.found = x.found[:maxBuiltinLearnings]
	}
	sort.SliceStable(x.found, func(i, j int) bool { return x.found[i].pos < x.found[j].pos })
	drafts := make([]Draft, 0, len(x.found))
	for _, r := range x.found {
		drafts = append(drafts, r.d)
	}
	return drafts
}

func (x *extractor) add(d Draft, rank int) {
	d = x.finish(d)
	if d.Title == "" || x.seen[strings.ToLower(d.Title)] {
		return
	}
	x.seen[strings.ToLower(d.Title)] = true
	x.found = append(x.found, ranked{d: d, rank: rank, pos: len(x.found)})
}

// isShellTool names the tools whose Command is a shell command line:
// Claude's, Codex's and Gemini CLI's (run_shell_command).
func isShellTool(tool string) bool {
	switch tool {
	case "Bash", "bash", "shell", "powershell", "shell_command", "exec_command", "local_shell", "container.exec", "run_shell_command":
		return true
	}
	return false
}

func (x *extractor) failed(ev transcript.Event) {
	if !isShellTool(ev.Tool) {
		return
	}
	key := transcript.CommandKey(ev.Command)
	if key == "" {
		return
	}
	f := x.open[key]
	if f == nil {
		// The first failure is the problem; later ones of the same
		// program are attempts at it.
		f = &failure{ev: ev, key: key}
		x.open[key] = f
		x.order = append(x.order, f)
	}
	x.recent = f
}

func (x *extractor) succeeded(ev transcript.Event) {
	key := transcript.CommandKey(ev.Command)
	f := x.open[key]
	if f == nil || !fixes(f, ev) {
		return
	}
	delete(x.open, key)
	f.fixed = true
	if x.recent == f {
		x.recent = nil
	}
	d, rank := x.fixDraft(f, ev)
	x.add(d, rank)
}

func (x *extractor) prompt(text string) {
	for _, in := range instructions(text) {
		x.add(x.instructionDraft(in), rankInstruction)
	}
	corr := transcript.IsCorrection(text)
	switch {
	case corr && x.recent != nil:
		if len(x.recent.corrections) < maxCorrections {
			x.recent.corrections = append(x.recent.corrections, text)
		}
	case !corr:
		x.recent = nil
	}
	if p := x.prob; p != nil {
		switch {
		case reAck.MatchString(text):
			p.acked = true
			x.endProblem()
		case !corr:
			x.endProblem()
		}
	}
	if x.prob == nil && !corr && reProblem.MatchString(text) {
		x.prob = &problem{prompt: text}
	}
}

func (x *extractor) answer(ev transcript.Event) {
	p := x.prob
	if p == nil {
		return
	}
	for _, s := range sentences(ev.Text) {
		switch {
		case reCause.MatchString(s):
			if len(p.causes) < 2 {
				p.causes = append(p.causes, s)
			}
		case reFixVerb.MatchString(s):
			if len(p.fixes) < 2 {
				p.fixes = append(p.fixes, s)
			}
		}
		if reClaim.MatchString(s) {
			p.claimed = true
		}
	}
	for _, f := range ev.Files {
		if !slices.Contains(p.files, f) {
			p.files = append(p.files, f)
		}
	}
}

// endProblem drafts the problem being worked on if it was explained,
// fixed by an edit, and confirmed by the user (medium) or at least
// claimed fixed by the assistant (low).
func (x *extractor) endProblem() {
	p := x.prob
	x.prob = nil
	if p == nil || len(p.causes) == 0 || len(p.files) == 0 || !(p.acked || p.claimed) {
		return
	}
	confidence := "low"
	if p.acked {
		confidence = "medium"
	}
	insight := strings.Join(p.causes, " ")
	if len(p.fixes) > 0 {
		insight += " " + p.fixes[0]
	}
	var sol strings.Builder
	if len(p.fixes) > 0 {
		sol.WriteString(strings.Join(p.fixes, " ") + " ")
	}
	sol.WriteString("Changed " + strings.Join(p.files, ", ") + ".")
	if p.acked {
		sol.WriteString(" The user confirmed that it works.")
	}
	g := problemGist(p.prompt)
	x.add(Draft{
		Title:      g,
		KeyInsight: insight,
		Problem:    p.prompt,
		Solution:   sol.String(),
		Confidence: confidence,
		Category:   "debugging",
		Symptoms:   []string{g},
	}, rankFixed)
}

// fixDraft is the learning of a failure and the command that then worked.
func (x *extractor) fixDraft(f *failure, ok transcript.Event) (Draft, int) {
	failedCmd, okCmd := text.OneLine(f.ev.Command), text.OneLine(ok.Command)
	head := f.ev.Text
	diff := flagDiff(failedCmd, okCmd)
	d := Draft{
		Problem:    failureProblem(f.ev),
		Confidence: "medium",
		Category:   "debugging",
	}
	if head != "" {
		d.Symptoms = []string{head}
	}
	var sol strings.Builder
	for _, c := range f.corrections {
		sol.WriteString("The user corrected it: \"" + c + "\"\n")
	}
	if len(ok.Files) > 0 {
		sol.WriteString("Edited " + strings.Join(ok.Files, ", ") + ".\n")
	}
	sol.WriteString("Then " + code(okCmd) + " succeeded")
	if ok.Text != "" {
		sol.WriteString(": " + ok.Text)
	}
	sol.WriteString(".")
	d.Solution = sol.String()

	what := "failed"
	if head != "" {
		what = "failed with \"" + head + "\""
	}
	rank := rankFixed
	switch {
	case len(f.corrections) > 0:
		g := gist(f.corrections[0])
		d.Title = named(f.key, g)
		d.KeyInsight = capitalize(gist(f.corrections[0])) + ": " + code(failedCmd) + " " + what + "; " + code(okCmd) + " then succeeded."
		rank = rankCorrected
	case diff != "":
		works := "; works with "
		if strings.HasPrefix(diff, "without ") {
			works = "; works "
		}
		d.Title = f.key + ": " + headGist(head, f.key) + works + diff
		d.KeyInsight = code(failedCmd) + " " + what + "; " + code(okCmd) + " works (" + diff + ")."
	case len(ok.Files) > 0:
		d.Title = f.key + " failed (" + headGist(head, f.key) + "); fixed by editing " + strings.Join(ok.Files, ", ")
		d.KeyInsight = code(failedCmd) + " " + what + "; it passed after editing " + strings.Join(ok.Files, ", ") + "."
		// The same command run again after an edit: the fix is in the
		// edit, which this writer cannot explain.
		d.Confidence = "low"
		rank = rankRerun
	default:
		d.Title = f.key + " failed (" + headGist(head, f.key) + "), then " + okCmd + " worked"
		d.KeyInsight = code(failedCmd) + " " + what + "; " + code(okCmd) + " then succeeded."
		d.Confidence = "low"
		rank = rankRerun
	}
	return d, rank
}

// correctionDraft is the learning of a failure the user corrected, that
// never visibly succeeded: the user's words, unchecked.
func (x *extractor) correctionDraft(f *failure) Draft {
	cmd := text.OneLine(f.ev.Command)
	what := "failed"
	if f.ev.Text != "" {
		what = "failed with \"" + f.ev.Text + "\""
	}
	var sol strings.Builder
	for _, c := range f.corrections {
		sol.WriteString("The user corrected it: \"" + c + "\"\n")
	}
	d := Draft{
		Title:      named(f.key, gist(f.corrections[0])),
		KeyInsight: capitalize(gist(f.corrections[0])) + ": " + code(cmd) + " " + what + ".",
		Problem:    failureProblem(f.ev),
		Solution:   strings.TrimSpace(sol.String()),
		Confidence: "low",
		Category:   "correction",
	}
	if f.ev.Text != "" {
		d.Symptoms = []string{f.ev.Text}
	}
	return d
}

func (x *extractor) instructionDraft(in string) Draft {
	return Draft{
		Title:      text.ClipWords(in, maxTitleRunes),
		KeyInsight: in,
		Solution:   in + " (the user's explicit instruction)",
		Confidence: "high",
		Category:   "convention",
	}
}

func failureProblem(ev transcript.Event) string {
	s := code(text.OneLine(ev.Command)) + " failed"
	if ev.ExitCode > 0 {
		s += " (exit " + strconv.Itoa(ev.ExitCode) + ")"
	}
	if ev.Text != "" {
		s += ": " + ev.Text
	}
	return s
}

// finish bounds and redacts a draft (its text comes from a redacted
// condensation; redacting again costs little and guards the rules' own
// concatenations) and derives its tags, cites and entities.
func (x *extractor) finish(d Draft) Draft {
	d.Title = redact.String(text.ClipWords(text.OneLine(d.Title), maxTitleRunes))
	d.KeyInsight = redact.String(text.ClipBytes(text.OneLine(d.KeyInsight), maxInsightBytes))
	d.Problem = redact.String(text.ClipBytes(d.Problem, maxProblemBytes))
	d.Solution = redact.String(text.ClipBytes(d.Solution, maxSolutionBytes))
	for i, s := range d.Symptoms {
		d.Symptoms[i] = redact.String(text.ClipBytes(text.OneLine(s), transcript.MaxErrorBytes))
	}
	text := d.Title + "\n" + d.KeyInsight + "\n" + d.Problem + "\n" + d.Solution
	for _, f := range x.c.Files {
		if strings.Contains(text, f) {
			d.Cites = append(d.Cites, f)
			d.Entities = append(d.Entities, store.Entity{Name: f, Type: "file"})
		}
	}
	var tags []string
	addTag := func(t string) {
		t = strings.ToLower(strings.Trim(t, ".-_"))
		if t != "" && len(tags) < maxTags && !slices.Contains(tags, t) {
			tags = append(tags, t)
		}
	}
	for _, p := range programsIn(text) {
		addTag(p)
		d.Entities = append(d.Entities, store.Entity{Name: p, Type: "tool"})
	}
	for _, f := range d.Cites {
		addTag(strings.TrimPrefix(path.Ext(f), "."))
	}
	for _, t := range terms(d.Title + " " + d.KeyInsight) {
		addTag(t)
	}
	if d.Category == "correction" {
		addTag("correction")
	}
	d.Tags = tags
	return d
}

// Rules for prompts and answers.
var (
	reAck     = lazyre.New(`(?i)^(?:perfect|great|thanks|thank you|thx|nice|awesome|excellent|cool|lgtm|yes|yep|yay|works)\b|\b(?:that|it|this) (?:works|worked|fixed it|did it)\b|\b(?:works|working) now\b`)
	reProblem = lazyre.New(`(?i)\b(?:fix|bug|broken|fails?|failing|failed|failure|errors?|crash(?:es|ed|ing)?|exception|panics?|mismatch|regression|doesn't work|does not work|not working|isn't working)\b`)
	reCause   = lazyre.New(`(?i)\bbecause\b|\bcaused by\b|\broot cause\b|\bdue to\b|\bthe (?:problem|issue|bug|culprit|cause) (?:is|was)\b|,\s*so\b|\bwhich (?:means|is why)\b|\bthat's why\b|\bthe reason\b`)
	reFixVerb = lazyre.New(`(?i)\b(?:switch|chang|replac|fix|updat|set|add|remov|inject|renam)\w*\b`)
	reClaim   = lazyre.New(`(?i)\btests? (?:now )?pass|\b(?:now )?works now\b|\bnow works\b|\bfixed\b|\bresolved\b|\bsucceeds?\b`)

	reSentenceEnd  = lazyre.New(`[.!?]+(?:\s+|$)|\n+`)
	reInstruction  = lazyre.New(`(?i)^(?:(?:please|pls|also|and|so|ok|okay|oh)[,\s]+)*(remember|always|never)\b[\s:,-]*`)
	reRememberLead = lazyre.New(`(?i)^(?:that|to)\s+`)
	// After "always"/"never", a verb in the third person or the past
	// ("always fails", "never worked") reports, it does not instruct.
	reNotImperative = lazyre.New(`(?i)^(?:mind|is|was|are|were|has|have|had|does|did|\w+ed|\w*[^s]s)\b`)

	reGistOpener    = lazyre.New(`(?i)^(?:(?:no+|nope|nah|actually|hmm+|wait|ok(?:ay)?|so|well|please|pls|just|sorry|that's wrong|that is wrong|wrong)\b[\s,.!:;-]*)+`)
	reProblemOpener = lazyre.New(`(?i)^(?:(?:please|pls|can you|could you|help me|let's|lets|we need to|i need you to|try to)\s+)*(?:fix|debug|investigate|look into|solve|figure out)\s+(?:the|this|a|an|my|our)?\s*`)
)

// sentences splits text at sentence ends and line breaks.
func sentences(text string) []string {
	var out []string
	for _, s := range reSentenceEnd.Split(text, -1) {
		if s = strings.TrimSpace(s); s != "" {
			// The split drops the punctuation; a period reads as well
			// as any in an insight.
			out = append(out, s+".")
		}
	}
	return out
}

// instructions returns the prompt's sentences that tell the agent what to
// do from now on: "remember: …", "always …", "never …".
func instructions(prompt string) []string {
	// A long prompt is pasted material (docs, logs) more often than
	// typed: its "never …" sentences are not the user's instructions.
	if len(prompt) > maxInstructionPrompt {
		return nil
	}
	var out []string
	for _, s := range reSentenceEnd.Split(prompt, -1) {
		s = strings.TrimSpace(s)
		if len(s) > maxInstructionBytes {
			continue
		}
		m := reInstruction.FindStringSubmatchIndex(s)
		if m == nil {
			continue
		}
		word := strings.ToLower(s[m[2]:m[3]])
		rest := strings.TrimSpace(s[m[1]:])
		if word == "remember" {
			rest = reRememberLead.ReplaceAllString(rest, "")
		} else {
			if reNotImperative.MatchString(rest) {
				continue
			}
			rest = word + " " + rest
		}
		if len(strings.Fields(rest)) < 3 || strings.HasSuffix(rest, "?") {
			continue
		}
		out = append(out, capitalize(rest))
	}
	return out
}

// gist is the part of a correction a title shows: without "no," or
// "that's wrong," in front, and without a trailing period.
func gist(said string) string {
	s := strings.TrimSpace(reGistOpener.ReplaceAllString(text.OneLine(said), ""))
	return strings.TrimRight(s, ". ")
}

// problemGist is a problem prompt without "please fix the" in front.
func problemGist(prompt string) string {
	s := text.OneLine(prompt)
	if t := strings.TrimSpace(reProblemOpener.ReplaceAllString(s, "")); t != "" {
		s = t
	}
	return capitalize(strings.TrimRight(s, ". "))
}

// headGist shortens an error head for a title: without the program's own
// name in front, the exit code in parentheses, or a second line.
func headGist(head, key string) string {
	h, _, _ := strings.Cut(head, " | ")
	prog, _, _ := strings.Cut(key, " ")
	h = strings.TrimPrefix(h, prog+": ")
	h = strings.TrimLeft(h, "-=> ")
	if strings.HasPrefix(h, "(") {
		if i := strings.Index(h, ") "); i > 0 && i < 6 {
			h = h[i+2:]
		}
	}
	if h == "" {
		return "error"
	}
	return text.ClipWords(h, 60)
}

// named puts the program in front of a gist, unless the gist names it.
func named(key, g string) string {
	prog, _, _ := strings.Cut(key, " ")
	for _, w := range strings.Fields(strings.ToLower(g)) {
		if strings.Trim(w, "`'\",.:;()") == prog {
			return g
		}
	}
	return key + ": " + g
}

// flagDiff says how the command that worked differs from the one that
// failed, by its flags: "--insecure -i", "without --frozen-lockfile".
func flagDiff(failed, ok string) string {
	fa, oa := transcript.MainCommand(failed), transcript.MainCommand(ok)
	var added, removed []string
	for _, a := range oa {
		if strings.HasPrefix(a, "-") && !slices.Contains(fa, a) && !slices.Contains(added, a) {
			added = append(added, a)
		}
	}
	for _, a := range fa {
		if strings.HasPrefix(a, "-") && !slices.Contains(oa, a) && !slices.Contains(removed, a) {
			removed = append(removed, a)
		}
	}
	var parts []string
	if len(added) > 0 {
		parts = append(parts, strings.Join(added, " "))
	}
	if len(removed) > 0 {
		parts = append(parts, "without "+strings.Join(removed, " "))
	}
	return text.ClipWords(strings.Join(parts, ", "), 60)
}

// Programs worth a tag when a learning's text names them.
var knownPrograms = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, p := range transcript.MultiTools() {
		m[p] = true
	}
	for _, p := range []string{"curl", "wget", "ssh", "scp", "rsync", "python", "python3", "node", "deno",
		"pytest", "jest", "vitest", "eslint", "tsc", "prettier", "ruff", "mypy", "black", "java", "javac",
		"gcc", "clang", "cmake", "ninja", "psql", "mysql", "sqlite3", "redis-cli", "openssl", "jq",
		"sed", "awk", "grep", "rg", "find", "tar", "unzip", "chmod", "chown", "ln", "claude", "codex"} {
		m[p] = true
	}
	return m
})

// programsIn lists the known programs that start a command in text: in a
// code span, in parentheses, or a command key before a colon.
func programsIn(text string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(text, func(r rune) bool {
		return unicode.IsSpace(r) || strings.ContainsRune("`'\"(),;:", r)
	}) {
		if knownPrograms()[w] && !slices.Contains(out, w) && isProgramMention(text, w) {
			out = append(out, w)
		}
	}
	return out
}

// isProgramMention tells "go" the program from "go" the verb: the word
// starts a code span or a parenthesis, or ends a title's "name:" prefix.
func isProgramMention(text, w string) bool {
	for _, pre := range []string{"`", "(", "\n", ""} {
		at := pre + w + " "
		if pre == "" {
			if strings.HasPrefix(text, w+" ") || strings.HasPrefix(text, w+":") {
				return true
			}
			continue
		}
		if strings.Contains(text, at) {
			return true
		}
	}
	return false
}

// terms are the words that name things: acronyms and CamelCase
// identifiers (OAuth, SameSite, IdP), not log noise (FAIL) or test names.
func terms(text string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(text, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if len(out) == maxTerms {
			break
		}
		if utf8.RuneCountInString(w) < 3 || termStop[strings.ToUpper(w)] || strings.HasPrefix(w, "Test") {
			continue
		}
		inner := 0
		for _, r := range w[1:] {
			if unicode.IsUpper(r) {
				inner++
			}
		}
		if inner > 0 && !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}

var termStop = map[string]bool{
	"FAIL": true, "FAILED": true, "PASS": true, "ERR": true, "ERROR": true, "WARN": true, "WARNING": true,
	"INFO": true, "DEBUG": true, "TODO": true, "NOTE": true, "FIXME": true, "OK": true, "USER": true,
	"ASSISTANT": true, "EDITED": true, "FILES": true, "DON": true,
}

func code(s string) string {
	if s == "" {
		return "the command"
	}
	return "`" + strings.ReplaceAll(s, "`", "'") + "`"
}

func capitalize(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 || !unicode.IsLower(r) {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}
