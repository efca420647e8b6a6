package importer

import "path/filepath"

// copilotNative is what Copilot CLI loads: the repository's
// .github/copilot-instructions.md, and AGENTS.md from the repository root
// down to the session's directory.
var copilotNative = native{
	agent: "copilot",
	loads: func(s Session, abs string) bool {
		if dir := filepath.Dir(abs); filepath.Base(abs) == "copilot-instructions.md" && filepath.Base(dir) == ".github" {
			return s.Root != "" && filepath.Dir(dir) == s.Root
		}
		return s.agentsMD(abs)
	},
}
