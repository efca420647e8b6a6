package backfill

import (
	"path/filepath"
	"strings"

	"github.com/reflectkb/reflect/internal/fsutil"
)

// geminiSource is Gemini CLI's chats per project, whose directory the
// project's .project_root names.
var geminiSource = source{
	agent: "gemini",
	layouts: func(d Dirs) []layout {
		return []layout{{filepath.Join(orDefault(d.GeminiHome, d.Home), ".gemini", "tmp"), []string{"*", "chats", "*.json*"}}}
	},
	describe: func(c *candidate) {
		if filepath.Ext(c.path) != ".jsonl" {
			c.unsupported = "a Gemini CLI chat in the format before 0.61 (one JSON document), which reflect does not read"
		}
		c.cwdHint = projectRoot(filepath.Dir(filepath.Dir(c.path)))
	},
}

// projectRoot is the directory Gemini CLI's .project_root in dir names,
// or "" (older versions name the directory by a hash and keep no file).
func projectRoot(dir string) string {
	data, err := fsutil.ReadRegular(filepath.Join(dir, ".project_root"), 4096)
	if err != nil {
		return ""
	}
	p := strings.TrimSpace(string(data))
	if !filepath.IsAbs(p) || strings.ContainsAny(p, "\n\x00") {
		return ""
	}
	return filepath.Clean(p)
}
