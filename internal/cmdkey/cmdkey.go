// Package cmdkey names what a shell command runs — its program and, for
// tools whose first argument names what they do, the subcommand ("go
// test", "git push", "make idp") — and finds the commands a piece of text
// records as failing. The drainer pairs a failure with its fix by key; the
// index keeps the keys of the commands each learning records as failing,
// so that the pre-tool hook can warn before one runs again.
package cmdkey

import (
	"path/filepath"
	"strings"

	"github.com/reflectkb/reflect/internal/lazyre"
	"github.com/reflectkb/reflect/internal/shellwords"
)

// Bounds on what is read of a command: a program's name is near the start.
const (
	keyCommandBytes = 4096
	maxKeySegments  = 32
)

// Commands that only set up the one that matters, and wrappers that run
// another program.
var (
	setupCommands = map[string]bool{
		"cd": true, "pushd": true, "popd": true, "export": true, "set": true, "unset": true,
		"source": true, ".": true, "echo": true, "printf": true, "true": true, ":": true,
		"sleep": true, "clear": true, "alias": true, "ulimit": true, "trap": true, "shopt": true,
	}
	wrappers = map[string]bool{
		"sudo": true, "env": true, "time": true, "timeout": true, "nice": true, "nohup": true,
		"command": true, "exec": true, "stdbuf": true, "xvfb-run": true,
	}
	// Programs whose first word names what they do: "go test" and
	// "go build" fail and get fixed separately.
	multiTools = map[string]bool{
		"go": true, "git": true, "npm": true, "pnpm": true, "yarn": true, "bun": true, "deno": true,
		"npx": true, "bunx": true, "cargo": true, "docker": true, "docker-compose": true, "podman": true,
		"kubectl": true, "helm": true, "terraform": true, "make": true, "gh": true, "pip": true,
		"pip3": true, "uv": true, "poetry": true, "pipenv": true, "bundle": true, "rails": true,
		"rake": true, "mvn": true, "gradle": true, "gradlew": true, "dotnet": true, "swift": true,
		"mix": true, "brew": true, "apt": true, "apt-get": true, "dnf": true, "systemctl": true,
		"aws": true, "gcloud": true, "az": true, "flutter": true, "dart": true, "rustup": true,
		"conda": true, "composer": true, "nx": true, "turbo": true, "just": true, "task": true,
	}
	reSubcommand = lazyre.New(`^[a-z][a-z0-9:_-]*$`)
	reAssignment = lazyre.New(`^[A-Za-z_][A-Za-z0-9_]*=`)
	reDuration   = lazyre.New(`^\d+(?:\.\d+)?[smhd]?$`)
)

// MultiTools lists the programs whose first argument names what they do
// (go, git, npm…), for which Key includes the subcommand.
func MultiTools() []string {
	out := make([]string, 0, len(multiTools))
	for p := range multiTools {
		out = append(out, p)
	}
	return out
}

// Key names the program (and subcommand) a shell command runs:
// "cd svc && FOO=1 go test ./..." gives "go test", "bash -lc 'make idp'"
// gives "make idp". Flags after the subcommand do not change it.
func Key(cmd string) string {
	return keyDepth(cmd, 0)
}

func keyDepth(cmd string, depth int) string {
	return keyOf(MainCommand(cmd), depth)
}

// keyOf is the key of one simple command's words.
func keyOf(args []string, depth int) string {
	if len(args) == 0 {
		return ""
	}
	name := filepath.Base(args[0])
	if IsShell(name) && depth < 2 {
		for i := 1; i+1 < len(args); i++ {
			if strings.HasPrefix(args[i], "-") && strings.HasSuffix(args[i], "c") {
				if k := keyDepth(args[i+1], depth+1); k != "" {
					return k
				}
			}
		}
	}
	switch {
	case strings.HasPrefix(name, "python") && len(args) > 2 && args[1] == "-m":
		return name + " -m " + args[2]
	case multiTools[name] && len(args) > 1 && reSubcommand.MatchString(args[1]):
		if args[1] == "run" && len(args) > 2 && reSubcommand.MatchString(args[2]) {
			return name + " run " + args[2]
		}
		return name + " " + args[1]
	}
	return name
}

// maxKeys bounds Keys: a command line of a hundred steps is a script, and
// its first steps are what a warning can be about.
const maxKeys = 8

// Keys returns the distinct keys of every simple command in cmd that is
// not a setup step ("make gen && go test ./..." gives "make gen", "go
// test"), at most maxKeys of them, in order.
func Keys(cmd string) []string {
	var out []string
	for _, seg := range shellwords.SplitN(window(cmd, keyCommandBytes), maxKeySegments) {
		args := skipWrappers(seg)
		if len(args) == 0 || setupCommands[filepath.Base(args[0])] {
			continue
		}
		k := keyOf(args, 0)
		if k == "" || !plausibleKey(k) {
			continue
		}
		dup := false
		for _, o := range out {
			dup = dup || o == k
		}
		if !dup {
			out = append(out, k)
		}
		if len(out) == maxKeys {
			break
		}
	}
	return out
}

// MainCommand returns the words of the first command of cmd that is not a
// setup step, without wrappers and variable assignments; or the first
// command at all when every one is setup.
func MainCommand(cmd string) []string {
	var first []string
	for _, seg := range shellwords.SplitN(window(cmd, keyCommandBytes), maxKeySegments) {
		args := skipWrappers(seg)
		if len(args) == 0 {
			continue
		}
		if first == nil {
			first = args
		}
		if !setupCommands[filepath.Base(args[0])] {
			return args
		}
	}
	return first
}

// IsShell reports whether name is a shell that runs a script given by -c.
func IsShell(name string) bool {
	switch name {
	case "bash", "sh", "zsh", "dash", "fish":
		return true
	}
	return false
}

func skipWrappers(args []string) []string {
	for len(args) > 0 {
		switch {
		case reAssignment.MatchString(args[0]):
			args = args[1:]
		case wrappers[filepath.Base(args[0])]:
			args = args[1:]
			for len(args) > 0 && (strings.HasPrefix(args[0], "-") || reAssignment.MatchString(args[0]) || reDuration.MatchString(args[0])) {
				if (args[0] == "-u" || args[0] == "-g" || args[0] == "-n") && len(args) > 1 {
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

// window returns at most the first n bytes of s, cut after a delimiter, so
// that a long command is not read to its end for its first words.
func window(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[:n]
	for i := len(s) - 1; i >= 0; i-- {
		switch s[i] {
		case ' ', '\t', '\n', '\r', '"', '\'', '`', ',', ';', '(', ')', '{', '}', '[', ']', '<', '>', '|':
			return s[:i+1]
		}
	}
	return ""
}
