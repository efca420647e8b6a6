package importer

import (
	"path/filepath"
	"slices"
	"strings"
)

// Session is where an agent runs: what decides which instruction files it
// loads by itself.
type Session struct {
	Agent string
	Cwd   string
	// Root is the repository around Cwd ("" outside one) and Project its
	// name as learnings record it.
	Root, Project string
	Dirs          Dirs
}

// Loads reports whether the agent of s already has the file a rule was
// imported from in its context, having loaded it itself: CLAUDE.md (and
// .claude/rules, the project's auto-memory MEMORY.md, ~/.claude/CLAUDE.md)
// for Claude Code; AGENTS.md for Codex, OpenCode and Copilot CLI (which
// also loads .github/copilot-instructions.md); GEMINI.md for Gemini CLI.
// Instruction files are loaded from the session's directory and the
// directories above it, so a rule from another repository's AGENTS.md is
// not loaded. file is the source.file of a learning of project project.
func (s Session) Loads(file, project string) bool {
	abs := s.resolve(file, project)
	if abs == "" {
		return false
	}
	for _, n := range natives {
		if n.agent == s.Agent {
			return n.loads(s, abs)
		}
	}
	return false
}

// native is which instruction files one agent loads by itself. Each lives
// in the agent's file (claude.go, codex.go, …); natives lists them.
type native struct {
	agent string
	// loads reports whether the agent of s loads the file at abs, an
	// absolute path, into its context itself.
	loads func(s Session, abs string) bool
}

// natives are the agents whose instruction files Loads knows, in the
// order of agents.Registry (agents/registry_test.go holds them to it).
var natives = []native{claudeNative, codexNative, geminiNative, openCodeNative, copilotNative}

// NativeAgents are the agents whose own instruction files Loads knows.
func NativeAgents() []string {
	names := make([]string, len(natives))
	for i, n := range natives {
		names[i] = n.agent
	}
	return names
}

// agentsMD reports whether abs is an AGENTS.md (or one of names) in the
// session's directory or above it, inside its repository: what Codex,
// OpenCode and Copilot CLI load.
func (s Session) agentsMD(abs string, names ...string) bool {
	base, dir := filepath.Base(abs), filepath.Dir(abs)
	return (base == "AGENTS.md" || slices.Contains(names, base)) && above(dir, s.Cwd) && below(dir, s.rootOrCwd())
}

// resolve turns a source.file back into a path on this machine: "~/…"
// under the home directory, a relative name under the session's
// repository when the learning is that repository's, "" otherwise.
func (s Session) resolve(file, project string) string {
	switch {
	case file == "":
		return ""
	case strings.HasPrefix(file, "~/"):
		if s.Dirs.Home == "" {
			return ""
		}
		return filepath.Join(s.Dirs.Home, filepath.FromSlash(file[2:]))
	case filepath.IsAbs(file):
		return filepath.Clean(file)
	case s.Root != "" && project != "" && project == s.Project:
		return filepath.Join(s.Root, filepath.FromSlash(file))
	}
	return ""
}

func (s Session) rootOrCwd() string {
	if s.Root != "" {
		return s.Root
	}
	return s.Cwd
}

// above reports whether dir is cwd or one of its parents.
func above(dir, cwd string) bool {
	if cwd == "" {
		return false
	}
	rel, err := filepath.Rel(dir, filepath.Clean(cwd))
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// below reports whether dir is inside root or is it.
func below(dir, root string) bool { return above(root, dir) }
