package backfill

import "path/filepath"

// claudeSource is Claude Code's projects/<project>/<session id>.jsonl.
var claudeSource = source{
	agent: "claude",
	layouts: func(d Dirs) []layout {
		return []layout{{filepath.Join(orDefault(d.Claude, filepath.Join(d.Home, ".claude")), "projects"), []string{"*", "*.jsonl"}}}
	},
	describe: func(c *candidate) { c.sessionID = stem(c.path) },
}
