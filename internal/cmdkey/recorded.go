package cmdkey

import (
	"strings"

	"github.com/reflectkb/reflect/internal/lazyre"
)

// A learning records a failing command as a code span followed, within a
// few words, by what went wrong: "`go test ./...` failed with …" (the
// builtin writer and mini-learnings), "`npm ci` exits 1 when …",
// "`terraform plan` errors out". A code span the text does not say failed
// is a fix or an aside, and warning before it runs would be wrong.
var (
	reSpan    = lazyre.New("`([^`\n]{1,300})`")
	reFailing = lazyre.New(`(?i)^[^.;\n]{0,40}?\b(?:` + failing + `)\b`)
	// reFailingNext is a failure said in the next word or two, for a
	// program named without a code span ("curl exits 60", "npm ci fails").
	reFailingNext = lazyre.New(`(?i)^(?: [a-z]+)? (?:` + failing + `)\b`)
	reWord        = lazyre.New(`\b[a-z][a-z0-9_+-]*[a-z0-9]\b`)
	// reProgram is a program name as people type one: "foo.go" or
	// "SameSite=Strict" in a code span are not commands.
	reProgram = lazyre.New(`^[a-z][a-z0-9_+-]*[0-9a-z]$|^[a-z]$`)
)

// failing is what the words after a command say when it failed.
const failing = `fail(?:s|ed|ing|ure)?|errors?(?:ed)? ?(?:out)?|exit(?:s|ed)? (?:with )?(?:code |status )?[1-9][0-9]*|exit (?:code|status) [1-9][0-9]*|crash(?:es|ed)?|hangs?|hung|breaks?|broke|refuses?|rejects?|(?:does not|doesn't|did not|didn't|won't) (?:work|run|start|build|compile|pass|find)|not found|panics?|panicked|times? out|timed out|aborts?|aborted|denied`

// knownPrograms are single words that are commands even alone in a code
// span ("`make` fails"); any other one-word span is more likely a name.
var knownPrograms = map[string]bool{
	"make": true, "npm": true, "yarn": true, "pnpm": true, "cargo": true, "pytest": true,
	"tsc": true, "jest": true, "vitest": true, "mvn": true, "gradle": true, "bazel": true,
	"docker": true, "terraform": true, "kubectl": true, "helm": true, "eslint": true,
	"prettier": true, "ruff": true, "mypy": true, "black": true, "webpack": true, "vite": true,
	"curl": true, "ssh": true, "rsync": true, "psql": true, "mysql": true, "redis-cli": true,
	"node": true, "deno": true, "bun": true, "tox": true, "nox": true, "golangci-lint": true,
}

// maxRecorded bounds the keys one learning contributes: a learning is
// about one problem, and a hand-edited file listing fifty commands is not
// worth fifty rows.
const maxRecorded = 8

// Recorded returns the keys of the commands text records as failing: code
// spans that hold a plausible command and that the words after them say
// failed. Each of symptoms is a failure already, so every command-like
// code span in one counts, and so does a symptom that is a prompt line
// ("$ go vet ./..."). Keys are distinct and in order of appearance.
func Recorded(text string, symptoms []string) []string {
	var out []string
	add := func(cmd string) {
		if len(out) == maxRecorded {
			return
		}
		k := spanKey(cmd)
		if k == "" {
			return
		}
		for _, o := range out {
			if o == k {
				return
			}
		}
		out = append(out, k)
	}
	for _, s := range symptoms {
		s = strings.TrimSpace(s)
		if rest, ok := strings.CutPrefix(s, "$ "); ok {
			add(rest)
		}
		for _, m := range reSpan.FindAllStringSubmatch(s, maxRecorded) {
			add(m[1])
		}
	}
	for _, loc := range reSpan.FindAllStringSubmatchIndex(text, maxSpans) {
		if reFailing.MatchString(text[loc[1]:min(len(text), loc[1]+120)]) {
			add(text[loc[2]:loc[3]])
		}
	}
	for _, loc := range reWord.FindAllStringIndex(text, maxWords) {
		if cmd, ok := bareCommand(text, loc[0], loc[1]); ok {
			add(cmd)
		}
	}
	return out
}

// maxSpans bounds the code spans looked at in one text.
const maxSpans = 64

// spanKey is the key of the command in a code span, or "" when the span
// does not hold one: a program name that is not one, or a lone word that
// is not a known program.
func spanKey(span string) string {
	span = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(span), "$ "))
	if span == "" {
		return ""
	}
	k := Key(span)
	prog, _, _ := strings.Cut(k, " ")
	if !plausibleKey(k) {
		return ""
	}
	if len(strings.Fields(span)) == 1 && !knownPrograms[prog] && !multiTools[prog] {
		return ""
	}
	return k
}

// plausibleKey reports whether k starts with something shaped like a
// program's name.
func plausibleKey(k string) bool {
	prog, _, _ := strings.Cut(k, " ")
	return reProgram.MatchString(prog) && !setupCommands[prog]
}

// maxWords bounds the words looked at for programs named without a code
// span.
const maxWords = 512

// bareCommand reads a known program named in prose at text[start:end],
// with its subcommand when it has them, and reports whether the next word
// or two say it failed: "curl exits 60 against …", "npm ci fails when …".
func bareCommand(text string, start, end int) (string, bool) {
	prog := text[start:end]
	if !knownPrograms[prog] && !multiTools[prog] {
		return "", false
	}
	if start > 0 && strings.ContainsRune("`/.-", rune(text[start-1])) {
		return "", false // inside a code span, a path or a flag
	}
	cmd := prog
	if multiTools[prog] {
		rest := text[end:]
		if !strings.HasPrefix(rest, " ") {
			return "", false
		}
		sub, _, _ := strings.Cut(rest[1:], " ")
		if !reSubcommand.MatchString(sub) {
			return "", false
		}
		cmd += " " + sub
		end += 1 + len(sub)
	}
	return cmd, reFailingNext.MatchString(text[end:min(len(text), end+60)])
}
