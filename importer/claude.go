package importer

import "path/filepath"

// claudeNative is what Claude Code loads: ~/.claude/CLAUDE.md, the
// project's auto-memory MEMORY.md, CLAUDE.md and CLAUDE.local.md (or
// under .claude/) and .claude/rules in the session's directory or above.
var claudeNative = native{
	agent: "claude",
	loads: func(s Session, abs string) bool {
		base, dir := filepath.Base(abs), filepath.Dir(abs)
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
		return false
	},
}
