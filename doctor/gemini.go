package doctor

import "github.com/reflectkb/reflect/agents"

// geminiHookCheck says per hook whether Gemini CLI will run it.
var geminiHookCheck = hookCheck{agent: "gemini", check: (*Report).checkGeminiHooks}

// checkGeminiHooks says, per reflect entry, whether Gemini CLI will run
// it: hooksConfig.enabled = false turns every hook off, and /hooks disable
// lists a hook's name in hooksConfig.disabled; either is silent in a
// session.
func (r *Report) checkGeminiHooks(settingsPath string) {
	hooks, err := agents.GeminiHooks(settingsPath)
	if err != nil {
		r.add(Check{Name: "gemini hooks run", Status: Warn, Detail: err.Error(),
			Fix: "fix Gemini's settings.json; Gemini CLI will not read it either"})
		return
	}
	for _, h := range hooks {
		c := Check{Name: "gemini " + h.Hook, Status: OK, Detail: h.Event + " runs"}
		if !h.Runs {
			c.Status, c.Detail, c.Fix = Warn, h.Event+" will not run: "+h.Why, agents.GeminiHookFix
		}
		r.add(c)
	}
}
