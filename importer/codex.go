package importer

import "path/filepath"

// codexNative is what Codex loads: its home's AGENTS.md, and AGENTS.md or
// AGENTS.override.md from the repository root down to the session's
// directory.
var codexNative = native{
	agent: "codex",
	loads: func(s Session, abs string) bool {
		if abs == filepath.Join(s.Dirs.CodexDir(), "AGENTS.md") {
			return true
		}
		return s.agentsMD(abs, "AGENTS.override.md")
	},
}
