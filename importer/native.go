package importer

import (
	"path/filepath"
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
	base, dir := filepath.Base(abs), filepath.Dir(abs)
	home := s.Dirs.Home
	switch s.Agent {
	case "claude":
		switch {
		case abs == filepath.Join(s.Dirs.ClaudeDir(), "CLAUDE.md"):
			return true
		case abs == filepath.Join(s.Dirs.ClaudeDir(), "projects", ClaudeSlug(s.rootOrCwd()), "memory", "MEMORY.md"):
			return true
		case base == "CLAUDE.md" || base == "CLAUDE.local.md":
			if filepath.Base(dir) == ".claude" {
				dir = filepath.Dir(dir)
			}
			return above(dir, s.Cwd)
		case filepath.Base(dir) == "rules" && filepath.Base(filepath.Dir(dir)) == ".claude":
			return above(filepath.Dir(filepath.Dir(dir)), s.Cwd)
		}
	case "codex":
		if abs == filepath.Join(s.Dirs.CodexDir(), "AGENTS.md") {
			return true
		}
		return (base == "AGENTS.md" || base == "AGENTS.override.md") && above(dir, s.Cwd) && below(dir, s.rootOrCwd())
	case "opencode":
		return base == "AGENTS.md" && above(dir, s.Cwd) && below(dir, s.rootOrCwd())
	case "copilot":
		if base == "copilot-instructions.md" && filepath.Base(dir) == ".github" {
			return s.Root != "" && filepath.Dir(dir) == s.Root
		}
		return base == "AGENTS.md" && above(dir, s.Cwd) && below(dir, s.rootOrCwd())
	case "gemini":
		if home != "" && abs == filepath.Join(home, ".gemini", "GEMINI.md") {
			return true
		}
		return base == "GEMINI.md" && above(dir, s.Cwd)
	}
	return false
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
