package writer

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
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
// with "auto", claude when on PATH, else codex, else builtin. A chosen writer whose executable is
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
		set := " (writer auto, set by " + origin + ")"
		if p, err := lookPath("claude"); err == nil {
			return &Claude{Path: p, Dir: dir, Env: ch.Env}, "claude found on PATH at " + p + set, nil
		}
		if p, err := lookPath("codex"); err == nil {
			return &Codex{Path: p, Dir: dir, Env: ch.Env}, "no claude on PATH; codex found at " + p + set, nil
		}
		return &Builtin{}, "no claude or codex on PATH" + set, nil
	case "claude", "codex":
		p, err := lookPath(name)
		if err != nil {
			return nil, "", fmt.Errorf("writer %s (set by %s) is not on PATH: install it, or set REFLECT_WRITER to another writer (claude, codex, builtin, command)", name, origin)
		}
		why := fmt.Sprintf("%s at %s, set by %s", name, p, origin)
		if name == "claude" {
			return &Claude{Path: p, Dir: dir, Env: ch.Env}, why, nil
		}
		return &Codex{Path: p, Dir: dir, Env: ch.Env}, why, nil
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
	return nil, "", fmt.Errorf("unknown writer %q (set by %s): use claude, codex, builtin or command", ch.Name, origin)
}
