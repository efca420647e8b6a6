package transcript

import (
	"strconv"
	"strings"

	json "github.com/go-json-experiment/json/v1"
	"github.com/reflectkb/reflect/internal/cmdkey"
	"github.com/reflectkb/reflect/internal/correction"
	"github.com/reflectkb/reflect/internal/lazyre"
	"github.com/reflectkb/reflect/internal/redact"
	"github.com/reflectkb/reflect/internal/text"
)

// Windows of a long text that are redacted and searched. Only what is
// kept is redacted: redacting a 16 MB tool output to keep 300 bytes of it
// would be most of the cost of condensing.
const (
	windowSlack      = 4096     // beyond a cap, so the kept part is redacted in context
	headWindowBytes  = 16 << 10 // searched for an error line
	tailWindowBytes  = 8 << 10  // searched when the head has none (summaries come last)
	maxContinuedLine = 120      // a head line this short gets its next line too
)

// injectedTags wrap text that the harness or reflect put into the
// conversation, not the user: it is removed before anything else.
var injectedTags = []string{
	"reflect-learnings", "system-reminder", "environment_context",
	"user_instructions", "INSTRUCTIONS", "turn_aborted",
}

// bound returns s without injected blocks, redacted, whitespace-trimmed and
// at most n bytes long.
func bound(s string, n int) string {
	s = window(stripInjected(s), n+windowSlack)
	s = strings.ReplaceAll(redact.String(s), "\r\n", "\n")
	return text.ClipBytes(strings.TrimSpace(s), n)
}

// stripInjected removes every injected block; an unclosed one runs to the
// end of the text, as the harness cut it there.
func stripInjected(s string) string {
	if !strings.Contains(s, "<") {
		return s
	}
	for _, tag := range injectedTags {
		s = stripBlock(s, "<"+tag+">", "</"+tag+">")
	}
	return s
}

func stripBlock(s, open, close string) string {
	i := strings.Index(s, open)
	if i < 0 {
		return s
	}
	var sb strings.Builder
	for i >= 0 {
		sb.WriteString(s[:i])
		j := strings.Index(s[i+len(open):], close)
		if j < 0 {
			return sb.String()
		}
		s = s[i+len(open)+j+len(close):]
		i = strings.Index(s, open)
	}
	sb.WriteString(s)
	return sb.String()
}

// window returns at most the first n bytes of s, cut after a delimiter. A
// cut inside a token would leave a secret's prefix that no redaction rule
// recognises any more; secrets never span a delimiter (private key
// blocks, which do, are redacted even when unclosed).
func window(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[:n]
	for i := len(s) - 1; i >= 0; i-- {
		if isDelimiter(s[i]) {
			return s[:i+1]
		}
	}
	return ""
}

// tailWindow is window for the last n bytes.
func tailWindow(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[len(s)-n:]
	for i := 0; i < len(s); i++ {
		if isDelimiter(s[i]) {
			return s[i:]
		}
	}
	return ""
}

func isDelimiter(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', '"', '\'', '`', ',', ';', '(', ')', '{', '}', '[', ']', '<', '>', '|':
		return true
	}
	return false
}

// Lines of tool output that frame it rather than say anything (Claude's
// and Codex's headers).
var reNoiseLine = lazyre.New(`^(?:(?:Error: )?Exit code:? -?\d+|Wall time:.*|Output:|Process exited with code -?\d+|Process running with session ID.*|Chunk ID:.*|Original token count:.*|Total output lines:.*|Traceback \(most recent call last\):)$`)

// noisePrefixes are the first bytes of every reNoiseLine match: most
// lines are told apart without running the regexp.
var noisePrefixes = []string{"Error: Exit", "Exit code", "Wall time", "Output:", "Process ", "Chunk ID", "Original token", "Total output", "Traceback"}

func isNoise(line string) bool {
	for _, p := range noisePrefixes {
		if strings.HasPrefix(line, p) {
			return reNoiseLine.MatchString(line)
		}
	}
	return false
}

var reErrorLine = lazyre.New(`(?i)\b(?:errors?|fail(?:ed|ure|s|ing)?|fatal|panic(?:ked)?|exception|denied|refused|not found|no such|cannot|can't|could not|couldn't|unable|undefined|invalid|unexpected|missing|timed out|timeout|mismatch|forbidden|unauthori[sz]ed|not allowed|abort(?:ed)?)\b|ERR!|(?-i:[A-Za-z](?:Error|Exception))\b`)

// errorWords are lowercase literals of which every reErrorLine match
// holds one. Searching for them first keeps the regexp to a few candidate
// lines of a long log (running it on every line was most of the cost of
// condensing).
var errorWords = []string{
	"err", "fail", "fatal", "panic", "exception", "denied", "refused", "not found", "no such",
	"cannot", "can't", "could not", "couldn't", "unable", "undefined", "invalid", "unexpected",
	"missing", "timed out", "timeout", "mismatch", "forbidden", "unauthori", "not allowed", "abort",
}

// toolUseErrorTags are removed from Claude's error results.
var toolUseErrorTags = strings.NewReplacer("<tool_use_error>", "", "</tool_use_error>", "")

// errorHead returns the line of a failed call's output that says what went
// wrong: the first line that reads as an error (with the next line when it
// is short, as in "--- FAIL: TestX" + "x_test.go:31: token expired"), else
// the last such line of the output's tail, else its first line.
func errorHead(out string) string {
	out = stripInjected(out)
	out = toolUseErrorTags.Replace(out)
	if strings.HasPrefix(out, "The user doesn't want to proceed with this tool use") {
		return "rejected by the user"
	}
	head := redact.String(window(out, headWindowBytes))
	if l, rest, ok := nextErrorLine(head); ok {
		if len(l) <= maxContinuedLine {
			if next, _ := nextMeaningfulLine(rest); next != "" {
				l += " | " + next
			}
		}
		return text.ClipBytes(l, MaxErrorBytes)
	}
	if len(out) > headWindowBytes {
		tail := redact.String(tailWindow(out, tailWindowBytes))
		last := ""
		for l, rest, ok := nextErrorLine(tail); ok; l, rest, ok = nextErrorLine(rest) {
			last = l
		}
		if last != "" {
			return text.ClipBytes(last, MaxErrorBytes)
		}
	}
	first, _ := nextMeaningfulLine(head)
	return text.ClipBytes(first, MaxErrorBytes)
}

// nextErrorLine returns the first line of s that reads as an error, with
// its whitespace collapsed, and the text after it.
func nextErrorLine(s string) (line, rest string, ok bool) {
	low := asciiLower(s)
	next := make([]int, len(errorWords))
	for i, w := range errorWords {
		next[i] = strings.Index(low, w)
	}
	for pos := 0; ; {
		at := -1
		for i, w := range errorWords {
			if next[i] >= 0 && next[i] < pos {
				if next[i] = strings.Index(low[pos:], w); next[i] >= 0 {
					next[i] += pos
				}
			}
			if next[i] >= 0 && (at < 0 || next[i] < at) {
				at = next[i]
			}
		}
		if at < 0 {
			return "", "", false
		}
		start := strings.LastIndexByte(s[:at], '\n') + 1
		end := len(s)
		if i := strings.IndexByte(s[at:], '\n'); i >= 0 {
			end = at + i
		}
		l := text.OneLine(s[start:end])
		if !isNoise(l) && reErrorLine.MatchString(l) {
			return l, s[end:], true
		}
		pos = end + 1
	}
}

// nextMeaningfulLine returns the first non-blank, non-header line of s
// with its whitespace collapsed, and the text after it.
func nextMeaningfulLine(s string) (line, rest string) {
	for s != "" {
		l, r, _ := strings.Cut(s, "\n")
		s = r
		if l = text.OneLine(l); l != "" && !isNoise(l) {
			return l, s
		}
	}
	return "", ""
}

// asciiLower lowercases ASCII letters only, so that byte offsets in the
// result are offsets in s.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// outputHead summarises a successful call's output by its first line.
func outputHead(out string) string {
	first, _ := nextMeaningfulLine(redact.String(window(stripInjected(out), headWindowBytes)))
	return text.ClipBytes(first, maxOutputBytes)
}

var reExitHeader = lazyre.New(`^(?:(?:Error: )?Exit code:? |Process exited with code )(-?\d+)\s*$`)

// exitHeader finds the exit code Claude and Codex print at the top of a
// command's output ("Exit code 60", "Exit code: 1", "Process exited with
// code 2").
func exitHeader(out string) (int, bool) {
	for i := 0; i < 4 && out != ""; i++ {
		line, rest, _ := strings.Cut(out, "\n")
		if m := reExitHeader.FindStringSubmatch(strings.TrimSpace(line)); m != nil {
			n, err := strconv.Atoi(m[1])
			return n, err == nil
		}
		out = rest
	}
	return 0, false
}

// MultiTools lists the programs whose first argument names what they do
// (go, git, npm…), for which CommandKey includes the subcommand. The
// builtin writer tags learnings that name them.
func MultiTools() []string { return cmdkey.MultiTools() }

// CommandKey names the program (and subcommand) a shell command runs:
// "cd svc && FOO=1 go test ./..." gives "go test", "bash -lc 'make idp'"
// gives "make idp". A later success with the same key is the fix of a
// failure.
func CommandKey(cmd string) string { return cmdkey.Key(cmd) }

// MainCommand returns the words of the first command of cmd that is not a
// setup step, without wrappers and variable assignments; or the first
// command at all when every one is setup.
func MainCommand(cmd string) []string { return cmdkey.MainCommand(cmd) }

func isShell(name string) bool { return cmdkey.IsShell(name) }

// maxCorrectionBytes: a longer prompt is a new task, whatever its words.
const maxCorrectionBytes = 1000

// IsCorrection reports whether a prompt reads as a correction of what the
// agent just did, judged by the same detector as the hooks' mini-learnings.
func IsCorrection(prompt string) bool {
	return len(prompt) <= maxCorrectionBytes && correction.Is(prompt)
}

// str decodes a JSON string, or returns "" for anything else: the
// transcript formats drift, and a field of a new shape is as good as
// absent.
func str(raw json.RawMessage) string {
	if len(raw) == 0 || raw[0] != '"' {
		return ""
	}
	if in, ok := plainString(raw); ok {
		return string(in)
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

// boolean decodes a JSON boolean; anything else is false.
func boolean(raw json.RawMessage) bool {
	return string(raw) == "true"
}

// object decodes a JSON object into its fields, or returns nil.
func object(raw json.RawMessage) map[string]json.RawMessage {
	if len(raw) == 0 || raw[0] != '{' {
		return nil
	}
	m, err := decodeObject(raw)
	if err != nil {
		return nil
	}
	return m
}

// array decodes a JSON array into its elements, or returns nil.
func array(raw json.RawMessage) []json.RawMessage {
	if len(raw) == 0 || raw[0] != '[' {
		return nil
	}
	a, err := decodeArray(raw)
	if err != nil {
		return nil
	}
	return a
}

// integer decodes a JSON number that is an integer.
func integer(raw json.RawMessage) (int, bool) {
	var n int
	if len(raw) == 0 || json.Unmarshal(raw, &n) != nil {
		return 0, false
	}
	return n, true
}

// textPart is a part of a list of parts.
type textPart struct {
	Type json.RawMessage `json:"type"`
	Text json.RawMessage `json:"text"`
}

// partsText joins the text of a content value that is a string or a list
// of parts ({"type":"text","text":…}, {"type":"input_text",…}, …).
func partsText(raw json.RawMessage, types ...string) string {
	if s := str(raw); s != "" {
		return s
	}
	var texts []string
	for _, p := range array(raw) {
		var part textPart
		if decodeRaw(p, &part) != nil {
			continue
		}
		if len(types) > 0 && !contains(types, str(part.Type)) {
			continue
		}
		if t := str(part.Text); t != "" {
			texts = append(texts, t)
		}
	}
	return strings.Join(texts, "\n")
}
