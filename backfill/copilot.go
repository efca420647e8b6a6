package backfill

import "path/filepath"

// copilotSource is Copilot CLI's session-state/<session id>/events.jsonl.
var copilotSource = source{
	agent: "copilot",
	layouts: func(d Dirs) []layout {
		return []layout{{filepath.Join(orDefault(d.Copilot, filepath.Join(d.Home, ".copilot")), "session-state"), []string{"*", "events.jsonl"}}}
	},
	describe: func(c *candidate) { c.sessionID = filepath.Base(filepath.Dir(c.path)) },
}
