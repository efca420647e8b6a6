package hooks

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/reflectkb/reflect/index"
	"github.com/reflectkb/reflect/internal/correction"
	"github.com/reflectkb/reflect/internal/lazyre"
	"github.com/reflectkb/reflect/internal/redact"
	"github.com/reflectkb/reflect/internal/shellwords"
	"github.com/reflectkb/reflect/internal/text"
	"github.com/reflectkb/reflect/knowledge"
	"github.com/reflectkb/reflect/store"
)

// Bounds of a mini-learning's text. A title is read in a list, an insight
// in an injected context block with a 1,500-character budget.
const (
	maxTitleChars      = 80
	maxInsightCommand  = 120
	maxInsightSays     = 300
	maxCorrectionStore = 1000
)

// MiniLearning turns a failed command and the user's correction of it into a
// learning of type mini and confidence low: the user's words, recorded
// unchecked. The title names the program and the gist of the correction
// ("curl: use --insecure for local dev instead"); the key insight joins the
// command, the error and the correction. All text is redacted and
// <private> blocks are dropped, whatever the caller passed. An empty
// project makes the learning global.
func MiniLearning(f Failure, correction string, project string, now time.Time) *store.Learning {
	correction = redact.String(correction)
	said := text.ClipRunes(text.OneLine(correction), maxCorrectionStore)
	prog, sub := programOf(f.Command)
	head := text.OneLine(redact.String(f.ErrorHead))
	command := redact.String(f.Command)

	l := &store.Learning{
		Type:       "mini",
		Confidence: "low",
		Title:      redact.String(miniTitle(prog, sub, said, head, f.ExitCode)),
		KeyInsight: redact.String(miniInsight(command, head, f.ExitCode, said)),
		Body:       redact.String(miniBody(f, command, said)),
		Tags:       miniTags(prog),
		Scope:      "project",
		Project:    project,
		Created:    now.UTC().Truncate(time.Second),
		Source:     &store.Source{Harness: f.Agent, SessionID: f.SessionID, Trigger: "correction"},
	}
	if head != "" {
		l.Symptoms = []string{head}
	}
	if project == "" {
		l.Scope = "global"
	}
	l.ID = store.NewID(l.Title, l.KeyInsight)
	return l
}

// miniTitle is "<program>: <gist of the correction>", or, when the
// correction has nothing usable left (it was all private), what failed.
func miniTitle(prog, sub, said, head string, code int) string {
	name := prog
	if sub != "" {
		name += " " + sub
	}
	if name == "" {
		name = "shell command"
	}
	if g := gist(said); g != "" {
		return text.ClipWordsHalf(name+": "+g, maxTitleChars)
	}
	if head != "" {
		return text.ClipWordsHalf(name+" failed: "+strings.TrimPrefix(head, prog+": "), maxTitleChars)
	}
	return fmt.Sprintf("%s failed with exit code %d", name, code)
}

func miniInsight(command, head string, code int, said string) string {
	what := fmt.Sprintf("exit code %d", code)
	if head != "" {
		what = `"` + head + `"`
	}
	cmd := "the command"
	if c := text.OneLine(command); c != "" {
		cmd = inlineCode(text.ClipRunes(c, maxInsightCommand))
	}
	return fmt.Sprintf("%s failed with %s; the user said: %s", cmd, what, text.ClipRunes(said, maxInsightSays))
}

func miniBody(f Failure, command, said string) string {
	var b strings.Builder
	b.WriteString("## Problem\n\n")
	switch {
	case command == "":
		fmt.Fprintf(&b, "A %s call failed with exit code %d", orDefault(f.Tool, "shell"), f.ExitCode)
	case strings.ContainsAny(command, "\n`"):
		fmt.Fprintf(&b, "This command failed with exit code %d", f.ExitCode)
		b.WriteString(":\n\n" + fenced(command))
	default:
		fmt.Fprintf(&b, "%s failed with exit code %d", inlineCode(command), f.ExitCode)
	}
	if f.Cwd != "" {
		fmt.Fprintf(&b, " in %s", inlineCode(redact.String(f.Cwd)))
	}
	b.WriteString(".\n")
	if ctx := redact.String(f.ErrorContext); strings.TrimSpace(ctx) != "" {
		b.WriteString("\n" + fenced(ctx))
	} else if f.ErrorHead != "" {
		b.WriteString("\n" + fenced(text.OneLine(redact.String(f.ErrorHead))))
	}
	b.WriteString("\n## Solution\n\n")
	b.WriteString("The user corrected it: " + said + "\n")
	b.WriteString("\n## Context\n\n")
	fmt.Fprintf(&b, "Recorded from a %s session when the prompt after the failed command read as a correction. "+
		"This is a mini-learning: the user's words, kept as they were and not verified.\n", orDefault(f.Agent, "coding agent"))
	return b.String()
}

func miniTags(prog string) []string {
	var tag strings.Builder
	for _, r := range strings.ToLower(prog) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-' || r == '+' {
			tag.WriteRune(r)
		}
	}
	if t := strings.Trim(tag.String(), ".-"); t != "" && t != "correction" {
		return []string{t, "correction"}
	}
	return []string{"correction"}
}

// Openers that carry no content, stripped from the front of a title's gist.
var (
	reGistOpener = lazyre.New(`(?i)^(?:(?:no+|nope|nah|nono|actually|hmm+|wait|ok(?:ay)?|so|well|please|pls|just|sorry)\b[\s,.!:;—–-]*)+`)
	reGistJudged = lazyre.New(`(?i)^(?:(?:that's|thats|that is|this is|it's|that was)\s+(?:wrong|not right|incorrect|not correct|not how (?:it works|you do it))|wrong|incorrect|not quite|not like that)\s*[,.!:;—–-]+\s*`)
	// A gist ends at the first sentence or clause break. A comma before
	// "not" or "but" is kept: "the port is 8443, not 8080" is one thought.
	reGistBreak = lazyre.New(`[.!?;]\s|\s[—–-]{1,2}\s|,\s`)
	reContrast  = lazyre.New(`(?i)^(?:not|but|rather|instead)\b`)
	reAside     = lazyre.New(`(?i)^(?:instead of|rather than)\b`)
)

// gist is the part of a correction a title shows: without "no," or
// "that's wrong," in front, up to the first clause break. "instead of X, use
// Y" becomes "use Y instead of X".
func gist(said string) string {
	s := strings.TrimSpace(strings.ReplaceAll(said, "[private]", ""))
	for {
		t := reGistOpener.ReplaceAllString(s, "")
		t = strings.TrimSpace(reGistJudged.ReplaceAllString(t, ""))
		if t == s {
			break
		}
		s = t
	}
	first, rest := splitGist(s)
	if reAside.MatchString(first) && rest != "" {
		second, _ := splitGist(rest)
		first = second + " " + first
	}
	first = strings.TrimRight(strings.TrimSpace(first), ",;:!?—–- ")
	// One full stop ends a sentence; "./..." and "etc..." keep theirs.
	if strings.HasSuffix(first, ".") && !strings.HasSuffix(first, "..") {
		first = strings.TrimRight(first[:len(first)-1], " ")
	}
	return lowerFirst(first)
}

// splitGist cuts s at its first clause break that is not a contrast.
func splitGist(s string) (first, rest string) {
	from := 0
	for {
		loc := reGistBreak.FindStringIndex(s[from:])
		if loc == nil {
			return s, ""
		}
		start, end := from+loc[0], from+loc[1]
		if s[start] == ',' && reContrast.MatchString(s[end:]) {
			from = end
			continue
		}
		return s[:start], strings.TrimSpace(s[end:])
	}
}

// lowerFirst lowercases a sentence's capital ("Use" → "use") but not an
// acronym or a name in capitals ("AWS", "GOFLAGS").
func lowerFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 || !unicode.IsUpper(r) {
		return s
	}
	if next, _ := utf8.DecodeRuneInString(s[n:]); unicode.IsUpper(next) {
		return s
	}
	return string(unicode.ToLower(r)) + s[n:]
}

// wrappers run the command that follows them; the program is that command.
// The value lists the wrapper's options that take an argument.
var wrappers = map[string]map[string]bool{
	"sudo": setOf("-u", "-g", "-C", "-D", "-h", "-p", "-U", "-r", "-t", "-T", "--user", "--group", "--chdir"),
	"env":  setOf("-u", "-C", "-S", "--unset", "--chdir", "--split-string"),
	"doas": setOf("-u", "-C"), "timeout": setOf("-s", "-k", "--signal", "--kill-after"),
	"nice": setOf("-n", "--adjustment"), "stdbuf": setOf(), "time": setOf("-f", "-o"),
	"nohup": setOf(), "exec": setOf("-a"), "command": setOf(), "builtin": setOf(), "caffeinate": setOf("-t", "-w"),
}

// setup commands prepare for the real one in "cd dir && make".
var setupCommands = setOf("cd", "pushd", "popd", "export", "source", ".", "set", "unset", "echo", "true", ":", "printf", "sleep", "mkdir", "clear")

// multiTools are programs whose first argument names what they do, so
// "go test" and "git push" say more than "go" and "git".
var multiTools = setOf("go", "git", "npm", "pnpm", "yarn", "bun", "docker", "podman", "kubectl",
	"cargo", "helm", "terraform", "make", "pip", "pip3", "poetry", "uv", "gh", "aws", "gcloud",
	"az", "brew", "apt", "apt-get", "dotnet", "mvn", "gradle", "bundle", "rails", "systemctl",
	"npx", "deno", "composer", "mix", "rustup", "conda", "flyctl", "heroku", "supabase", "dnf", "yum")

var reSubcommand = lazyre.New(`^[a-z][a-z0-9-]{0,19}$`)

// programOf returns the program a shell command runs (its basename) and, for
// multiTools, the subcommand: "cd api && sudo -E go test ./..." gives "go",
// "test". Setup commands and wrappers are skipped and "bash -c SCRIPT" is
// looked into.
func programOf(command string) (prog, sub string) {
	return programOfDepth(command, 0)
}

func programOfDepth(command string, depth int) (prog, sub string) {
	for _, seg := range shellwords.Split(command) {
		args := skipWrappers(seg)
		if len(args) == 0 {
			continue
		}
		name := filepath.Base(args[0])
		if setupCommands[name] {
			continue
		}
		if isShell(name) && depth < 2 {
			for i := 1; i+1 < len(args); i++ {
				if strings.HasPrefix(args[i], "-") && strings.HasSuffix(args[i], "c") {
					if p, s := programOfDepth(args[i+1], depth+1); p != "" {
						return p, s
					}
				}
			}
		}
		// Only a plain word right after the program is a subcommand:
		// flags before it ("go -C dir test") are too varied to skip.
		if multiTools[name] && len(args) > 1 && reSubcommand.MatchString(args[1]) {
			sub = args[1]
		}
		return name, sub
	}
	return "", ""
}

// skipWrappers drops leading variable assignments and wrappers with their
// own options ("FOO=1 sudo -u root timeout 30 make" gives "make").
func skipWrappers(args []string) []string {
	for len(args) > 0 {
		switch {
		case isAssignment(args[0]):
			args = args[1:]
		case wrappers[filepath.Base(args[0])] != nil:
			withArg := wrappers[filepath.Base(args[0])]
			args = args[1:]
			for len(args) > 0 && (strings.HasPrefix(args[0], "-") || isDuration(args[0]) || isAssignment(args[0])) {
				if withArg[args[0]] && len(args) > 1 {
					args = args[1:]
				}
				args = args[1:]
			}
		default:
			return args
		}
	}
	return nil
}

var reAssignment = lazyre.New(`^[A-Za-z_][A-Za-z0-9_]*=`)

func isAssignment(w string) bool { return reAssignment.MatchString(w) }

func isDuration(w string) bool {
	w = strings.TrimRight(w, "smhd")
	if w == "" {
		return false
	}
	for _, r := range w {
		if (r < '0' || r > '9') && r != '.' {
			return false
		}
	}
	return true
}

// inlineCode renders s as a markdown code span whose delimiter is longer
// than any backtick run in s.
func inlineCode(s string) string {
	fence := strings.Repeat("`", longestRun(s, '`')+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return fence + s + fence
}

// fenced renders s as a fenced code block that s cannot close early.
func fenced(s string) string {
	fence := strings.Repeat("`", max(3, longestRun(s, '`')+1))
	return fence + "\n" + strings.TrimRight(s, "\n") + "\n" + fence + "\n"
}

func longestRun(s string, c byte) int {
	best, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			run++
			best = max(best, run)
		} else {
			run = 0
		}
	}
	return best
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// PromptEvent is what CaptureCorrection reads from a UserPromptSubmit
// payload. Project is the repository's identity when the caller knows it;
// otherwise the base name of Cwd is used.
type PromptEvent struct {
	Agent     string
	SessionID string
	Prompt    string
	Cwd       string
	Project   string
}

// CaptureCorrection writes a mini-learning when the session has a live
// watcher (a failed command less than WatchTTL ago) and the prompt reads as
// a correction (correction.Is); it returns the learning's id and clears the
// watcher. Otherwise it writes nothing, and the watcher:
//   - stays armed when the prompt is neither (a question such as "why did
//     that fail?" is often followed by the correction);
//   - is cleared when the prompt moves on: an acknowledgement ("ok thanks",
//     "great, now run the tests") or a request for new work ("add OAuth
//     refresh tokens"). A correction after that would be about something
//     else, and pinning it on the old failure would record a wrong lesson.
//
// The learning is written and indexed with ix.Put. When that fails the
// watcher is left for the next prompt (it still expires on time); when
// only the indexing waits on another process's update (index.ErrBusy),
// the learning is on disk and the next refresh indexes it.
func CaptureCorrection(ctx context.Context, ix *index.Index, stateDir string, ev PromptEvent, now time.Time) (id string, ok bool, err error) {
	f, armed := Armed(stateDir, ev.SessionID, now)
	if !armed {
		return "", false, nil
	}
	v := correction.Judge(ev.Prompt)
	if !v.Correction {
		if v.MovesOn() {
			return "", false, Disarm(stateDir, ev.SessionID)
		}
		return "", false, nil
	}
	if ix == nil {
		return "", false, errors.New("capture correction: no index")
	}
	if f.Agent == "" {
		f.Agent = ev.Agent
	}
	l := MiniLearning(f, userWords(ev.Prompt), projectOf(ev, f), now)
	res, err := knowledge.New(ix).Put(ctx, l, nil, now)
	if err != nil && !errors.Is(err, index.ErrBusy) {
		return "", false, fmt.Errorf("capture correction: %w", err)
	}
	return res.ID, true, Disarm(stateDir, ev.SessionID)
}

// userWords returns the prompt up to its first blank line or pasted
// output: "no, use --insecure instead\n\n<the log again>" records the
// correction, not the log.
func userWords(prompt string) string {
	lines := strings.Split(strings.TrimSpace(prompt), "\n")
	for i, line := range lines {
		if i > 0 && (strings.TrimSpace(line) == "" || correction.LooksLikeOutput(strings.TrimSpace(line))) {
			return strings.Join(lines[:i], "\n")
		}
	}
	return strings.Join(lines, "\n")
}

// projectOf names the project a correction belongs to: the caller's
// identity, else the directory the prompt or the failed command ran in.
func projectOf(ev PromptEvent, f Failure) string {
	if ev.Project != "" {
		return ev.Project
	}
	for _, dir := range []string{ev.Cwd, f.Cwd} {
		if dir == "" {
			continue
		}
		if base := filepath.Base(filepath.Clean(dir)); base != "." && base != string(filepath.Separator) {
			return base
		}
	}
	return ""
}

func setOf(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}
