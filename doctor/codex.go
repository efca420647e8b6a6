package doctor

import "github.com/reflectkb/reflect/agents"

// codexHookCheck says per hook whether Codex trusts it.
var codexHookCheck = hookCheck{agent: "codex", check: (*Report).checkCodexTrust}

// checkCodexTrust says, per reflect entry, whether Codex will run it:
// Codex skips an untrusted hook, or one trusted for an older definition,
// without a word, so "installed" alone would read as working.
func (r *Report) checkCodexTrust(hooksPath string) {
	trust, err := agents.CodexTrust(hooksPath)
	if err != nil {
		r.add(Check{Name: "codex hook trust", Status: Warn, Detail: err.Error(),
			Fix: "fix Codex's config.toml; Codex will not start with it either"})
		return
	}
	for _, t := range trust {
		// Named by reflect's hook so the name fits doctor's column; the
		// detail names the event as Codex's /hooks shows it.
		c := Check{Name: "codex " + t.Hook, Status: OK, Detail: t.Event + " " + t.Describe()}
		if !t.Runs() {
			c.Status, c.Fix = Warn, agents.CodexTrustFix
		}
		r.add(c)
	}
}
