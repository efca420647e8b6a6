package writer

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/reflectkb/reflect/internal/text"
)

// Choice is the writer the user configured, as Select reads it. The command
// layer fills it from the configuration (drain.writer, drain.command and
// their environment variables), so this package never reads either.
type Choice struct {
	// Name is claude, codex, builtin, command, "auto" for the first of
	// claude and codex on PATH (else builtin), or "" when the user chose
	// none: then the builtin writer runs, since an LLM writer spends from
	// the user's account and only the user may choose that.
	Name string
	// Command is the command writer's command line.
	Command string
	// StateDir, when set, holds the directory the writers run in
	// (StateDir/writer); when empty they run in a new temporary directory.
	StateDir string
	// Origin says where Name was set ("env REFLECT_WRITER", "--writer");
	// empty means the configuration file or the default.
	Origin string
	// CommandOrigin says where Command was set, when known.
	CommandOrigin string
	// ConfigFile is the configuration file named in the hint when the
	// command writer has no command.
	ConfigFile string
	// Env is the environment the selected writer runs with (Claude.Env);
	// nil is this process's.
	Env []string
}

// OptIn is the command that chooses an LLM writer, named wherever reflect
// says that none was chosen.
const OptIn = "reflect config set drain.writer claude"

// LLM reports whether the writer named name (as Choice.Name) may run a
// language model, and so spend: every writer but builtin, and "" (none
// chosen) which Select resolves to builtin.
func LLM(name string) bool {
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "", "builtin":
		return false
	}
	return true
}

// Select returns the writer the drainer should use and why, for `reflect
// doctor` (ARCHITECTURE §6): the chosen writer when set; builtin when none
// is (no LLM runs, and nothing is spent, until the user chooses one);
// with "auto", the first of agentWriters on PATH (claude, else codex),
// else builtin. A chosen writer whose executable is
// missing is an error rather than a silent fallback: the user asked for
// it. lookPath is exec.LookPath when nil.
func Select(ch Choice, lookPath func(string) (string, error)) (Writer, string, error) {
	if lookPath == nil {
		lookPath = exec.LookPath
	}
	// A fixed directory under the state dir, not the session's: see
	// Claude.Dir.
	var dir string
	if ch.StateDir != "" {
		dir = filepath.Join(ch.StateDir, "writer")
	}
	origin := ch.Origin
	if origin == "" {
		origin = "configuration"
	}
	name := strings.ToLower(strings.TrimSpace(ch.Name))
	switch name {
	case "":
		return &Builtin{}, "no writer chosen, so no LLM runs; to let one write learnings: " + OptIn, nil
	case "auto":
		return selectAuto(origin, dir, ch.Env, lookPath)
	case "builtin":
		return &Builtin{}, "builtin, set by " + origin, nil
	case "command":
		line := strings.TrimSpace(ch.Command)
		if line == "" {
			return nil, "", fmt.Errorf("writer command (set by %s) needs a command: set REFLECT_WRITER_COMMAND or drain.command in %s", origin, ch.ConfigFile)
		}
		argv, err := SplitCommand(line)
		if err != nil {
			return nil, "", fmt.Errorf("writer command: %w", err)
		}
		p, err := lookPath(argv[0])
		if err != nil {
			return nil, "", fmt.Errorf("writer command %q: %s is not an executable on PATH: fix REFLECT_WRITER_COMMAND or drain.command", line, argv[0])
		}
		// The command runs in the session's directory: a relative path
		// must not resolve there.
		if abs, err := filepath.Abs(p); err == nil {
			p = abs
		}
		argv[0] = p
		why := fmt.Sprintf("command %q, set by %s", line, origin)
		if o := ch.CommandOrigin; o != "" {
			why += " (command from " + o + ")"
		}
		return &Command{Argv: argv, Env: ch.Env}, why, nil
	}
	a, ok := agentWriterOf(name)
	if !ok {
		return nil, "", fmt.Errorf("unknown writer %q (set by %s): use %s", ch.Name, origin, text.OrList(Names()))
	}
	p, err := lookPath(name)
	if err != nil {
		return nil, "", fmt.Errorf("writer %s (set by %s) is not on PATH: install it, or set REFLECT_WRITER to another writer (%s)", name, origin, strings.Join(Names(), ", "))
	}
	return a.writer(p, dir, ch.Env), fmt.Sprintf("%s at %s, set by %s", name, p, origin), nil
}

// selectAuto is the first agent writer on PATH, in agentWriters' order,
// else builtin.
func selectAuto(origin, dir string, env []string, lookPath func(string) (string, error)) (Writer, string, error) {
	set := " (writer auto, set by " + origin + ")"
	var missing []string
	for _, a := range agentWriters {
		if p, err := lookPath(a.name); err == nil {
			if len(missing) == 0 {
				return a.writer(p, dir, env), a.name + " found on PATH at " + p + set, nil
			}
			return a.writer(p, dir, env), "no " + text.OrList(missing) + " on PATH; " + a.name + " found at " + p + set, nil
		}
		missing = append(missing, a.name)
	}
	return &Builtin{}, "no " + text.OrList(missing) + " on PATH" + set, nil
}

// agentWriter is an agent whose CLI can write learnings: its name (as
// Choice.Name, and the executable's) and the Writer that runs the
// executable at path in dir with env (nil: the process's). Each lives in
// the agent's writer file (claude.go, codex.go); agentWriters lists them.
type agentWriter struct {
	name   string
	writer func(path, dir string, env []string) Writer
}

// agentWriters are the agents' writers, in the order "auto" tries them
// (agents/registry_test.go holds them to agents.Registry's Writer files).
var agentWriters = []agentWriter{claudeWriter, codexWriter}

// AgentWriters are the names of the writers that run an agent's CLI, in
// the order "auto" tries them.
func AgentWriters() []string {
	names := make([]string, len(agentWriters))
	for i, a := range agentWriters {
		names[i] = a.name
	}
	return names
}

// Names are every writer Choice.Name may name: the agents' writers, then
// builtin and command.
func Names() []string { return append(AgentWriters(), "builtin", "command") }

func agentWriterOf(name string) (agentWriter, bool) {
	for _, a := range agentWriters {
		if a.name == name {
			return a, true
		}
	}
	return agentWriter{}, false
}
