package importer

import "path/filepath"

// geminiNative is what Gemini CLI loads: ~/.gemini/GEMINI.md, and
// GEMINI.md in the session's directory or above.
var geminiNative = native{
	agent: "gemini",
	loads: func(s Session, abs string) bool {
		if home := s.Dirs.Home; home != "" && abs == filepath.Join(home, ".gemini", "GEMINI.md") {
			return true
		}
		return filepath.Base(abs) == "GEMINI.md" && above(filepath.Dir(abs), s.Cwd)
	},
}
