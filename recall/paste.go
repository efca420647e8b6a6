package recall

import (
	"strings"

	"github.com/reflectkb/reflect/internal/lazyre"
	"github.com/reflectkb/reflect/internal/text"
)

// Queries from pasted errors. A prompt that carries a stack trace is mostly
// frames: file paths, line numbers, addresses and function names of the
// runtime and of dependencies, which match every learning that mentions a
// loader or a path and drown the one line that says what went wrong (a
// "Cannot find module '@/lib/db'" with its require stack ranked the right
// learning eighth). pasteQuery keeps the error lines first, then the
// user's own words, and drops the frames; the index searches only the
// first few dozen words, so what comes first is what counts.

// frameLine matches a line of a stack trace or of compiler output that
// locates code rather than says what went wrong: JavaScript and Java
// "at …" frames, Python "File …, line N" and the traceback header, node's
// "Require stack:" list, Go goroutine headers, frames and their file lines,
// native "N: 0x…" frames, Java "... N more", and rustc's "-->" pointers and
// gutter lines.
var frameLine = lazyre.New(`^(?:\s*at\s+\S.*|\s*File ".*", line \d+.*|Traceback \(most recent call last\):.*|Require stack:.*|\s*- [/\\A-Za-z]:?\S*[/\\]\S*|goroutine \d+ \[.*\]:.*|created by \S.*|\s*[\w./*()-]+\(.*\)\s*|\s*/\S+:\d+( \+0x[0-9a-f]+)?|\s*\d+: 0x[0-9a-f]+.*|\s*\.\.\. \d+ more.*|\s*-->.*|\s*\d*\s*\|.*|\s*[\^~-]+\s*.*|\s*[{}\[\]]\s*,?|\s*(?:requireStack|errno|syscall):.*)$`)

// errorLine matches the lines that say what went wrong.
var errorLine = lazyre.New(`(?i)(?:\berror\b|error:|\w(?:error|exception)\b|\bexception\b|\bfatal\b|\bpanic:|\bfailed\b|\bwarning\b|\bE\d{3,5}\b|\bE[A-Z]{4,}\b)`)

// lineSuffix matches a file name's line and column suffix ("cli.js:3:15"),
// not a port (":::8080").
var lineSuffix = lazyre.New(`(\.[A-Za-z]\w{0,5})(?::\d+)+\b`)

// dependencyPath matches a path inside installed node packages; the
// package's name is what the user would search for.
var dependencyPath = lazyre.New(`\S*node_modules/((?:@[^/\s]+/)?[^/\s]+)\S*`)

// locationNoise matches what locates rather than names: hexadecimal
// addresses and paths inside installed dependencies and toolchains.
var locationNoise = lazyre.New(`\b0x[0-9a-fA-F]+\b|\S*(?:site-packages|dist-packages|/usr/lib|/usr/local/lib|/go/pkg/mod|GOROOT)\S*`)

// minFrames is how many frame lines make a prompt a pasted trace: one
// "at …" line can be the user's own sentence ("at least…" does not match,
// but a quoted frame might), two are a trace.
const minFrames = 2

// pasteQuery rewrites a prompt that holds a pasted stack trace into its
// error lines, then its other lines, without frames and location noise.
// Other prompts are returned unchanged.
func pasteQuery(p string) string {
	lines := strings.Split(p, "\n")
	frames := 0
	for _, l := range lines {
		if frameLine.MatchString(l) {
			frames++
		}
	}
	if frames < minFrames {
		return p
	}
	var errs, rest []string
	for _, l := range lines {
		if strings.TrimSpace(l) == "" || frameLine.MatchString(l) {
			continue
		}
		l = lineSuffix.ReplaceAllString(l, "$1")
		l = dependencyPath.ReplaceAllString(l, "$1")
		l = text.OneLine(locationNoise.ReplaceAllString(l, " "))
		if l == "" {
			continue
		}
		if errorLine.MatchString(l) {
			errs = append(errs, l)
		} else {
			rest = append(rest, l)
		}
	}
	if len(errs)+len(rest) == 0 {
		return p
	}
	return strings.Join(append(errs, rest...), "\n")
}
