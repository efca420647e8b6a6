package backfill

import "path/filepath"

// codexSource is Codex's rollouts by day, and the archived ones.
var codexSource = source{
	agent: "codex",
	layouts: func(d Dirs) []layout {
		codex := orDefault(d.Codex, filepath.Join(d.Home, ".codex"))
		return []layout{
			{filepath.Join(codex, "sessions"), []string{"*", "*", "*", "rollout-*.jsonl"}},
			{filepath.Join(codex, "archived_sessions"), []string{"rollout-*.jsonl"}},
		}
	},
	describe: func(c *candidate) {
		// rollout-<time>-<thread id, a UUID>.jsonl
		if s := stem(c.path); len(s) > 36 {
			c.sessionID = s[len(s)-36:]
		}
	},
}
