package writer

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/reflectkb/reflect/internal/lazyre"
	"github.com/reflectkb/reflect/internal/text"
	"github.com/reflectkb/reflect/transcript"
)

// fixes reports whether ok, a success with the same command key as the
// failure f, is its fix rather than the next thing that happened to run.
// A command key names a program and, for tools such as go or git, its
// subcommand; for a program that has none (cat, ls, python, curl) the key
// alone pairs "cat /etc/x.conf" failing with "cat README.md" working, two
// unrelated reads. So:
//   - a correction from the user explains whatever came next of that
//     program ("no, use ls /var/cache/widget");
//   - otherwise the success must be about the same thing: the same
//     target (a word that is not a flag, shared by both), or neither
//     names one; a subcommand counts as the thing, unless both name
//     targets and none is shared ("go test ./a" is no fix of "go test ./b");
//   - and something must have changed: the same command line run again
//     with no edit in between is a retry, which teaches nothing.
func fixes(f *failure, ok transcript.Event) bool {
	if len(f.corrections) > 0 {
		return true
	}
	failedCmd, okCmd := text.OneLine(f.ev.Command), text.OneLine(ok.Command)
	if failedCmd == okCmd && len(ok.Files) == 0 {
		return false
	}
	ft, ot := targets(failedCmd, f.key), targets(okCmd, f.key)
	if len(ft) == 0 && len(ot) == 0 {
		return true
	}
	for _, t := range ft {
		if slices.Contains(ot, t) {
			return true
		}
	}
	// A subcommand with a target on one side only ("git push" and "git
	// push origin main", "go test" and "go test ./...") is the same work.
	return strings.Contains(f.key, " ") && (len(ft) == 0 || len(ot) == 0)
}

// reRedirect is a redirection word: "2>/dev/null", ">", ">>out", "<in".
var reRedirect = lazyre.New(`^[0-9]*(?:[<>]|&>)`)

// maxTargets bounds the words compared: the target of a command is near
// its program's name, and a pasted script is not read to its end.
const maxTargets = 16

// targets are the words of cmd after its key's words that name what it
// works on: not flags, not redirections (nor the file one redirects to),
// compared without a leading "./" or trailing "/".
func targets(cmd, key string) []string {
	args := keyed(cmd, key, 0)
	n := len(strings.Fields(key))
	if len(args) < n {
		return nil
	}
	var out []string
	skipNext := false
	for _, a := range args[n:] {
		switch {
		case skipNext:
			skipNext = false
		case reRedirect.MatchString(a):
			// A bare operator's file is the next word.
			skipNext = strings.TrimLeft(a, "0123456789<>&") == ""
		case strings.HasPrefix(a, "-") && a != "-":
		default:
			t := strings.TrimSuffix(strings.TrimPrefix(a, "./"), "/")
			if t != "" && !slices.Contains(out, t) {
				out = append(out, t)
			}
		}
		if len(out) == maxTargets {
			break
		}
	}
	return out
}

// keyed returns the words of the simple command of cmd that key names: its
// main command, or the script a shell runs with -c ("bash -lc 'make
// idp'"), whose words are those of the script.
func keyed(cmd, key string, depth int) []string {
	args := transcript.MainCommand(cmd)
	if len(args) == 0 {
		return nil
	}
	prog, _, _ := strings.Cut(key, " ")
	if filepath.Base(args[0]) == prog || depth == 2 {
		return args
	}
	for _, a := range args[1:] {
		if strings.Contains(a, " ") && transcript.CommandKey(a) == key {
			return keyed(a, key, depth+1)
		}
	}
	return args
}
