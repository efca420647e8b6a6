package hooks

// harness is what one agent's hooks do differently from Claude Code's,
// whose way every field's zero value means. Each lives in the agent's
// file (claude.go, codex_rollout.go, gemini.go, opencode.go, copilot.go);
// harnesses lists them.
type harness struct {
	name string
	// events are the agent's own names for reflect's events, which its
	// answers carry (nil: Claude Code's, which Codex shares).
	events map[string]string
	// normalize makes the agent's payload read like Claude Code's.
	normalize func(p *Payload)
	// context is the agent's answer that adds text to its context, when
	// not Claude Code's hookSpecificOutput (contextOutput).
	context func(text string) any
	// prepare runs first in the hooks that queue the session; done
	// answers with a instead of queueing.
	prepare func(r *invocation) (a answer, done bool, err error)
	// awaitTranscript says the agent may fire its hook before it has
	// created the transcript, which the hook then waits for.
	awaitTranscript bool
	// failure finds a failed shell command where the post-tool payload
	// does not say it failed (Codex's rollout).
	failure func(payload []byte) (Failure, bool)
	// warnAfterTool says the agent's pre-tool hook has no channel to the
	// model, so the warning comes with the post-tool answer of a failed
	// command.
	warnAfterTool bool
}

// harnesses are the agents the hooks answer, in the order of
// agents.Registry (agents/registry_test.go holds them to it).
var harnesses = []harness{claudeHarness, codexHarness, geminiHarness, openCodeHarness, copilotHarness}

// Agents are the harnesses reflect answers (the --agent values).
var Agents = func() []string {
	names := make([]string, len(harnesses))
	for i, h := range harnesses {
		names[i] = h.name
	}
	return names
}()

// harnessOf is agent's entry; an unknown agent (which ValidEvent
// refuses first) gets Claude Code's way.
func harnessOf(agent string) harness {
	for _, h := range harnesses {
		if h.name == agent {
			return h
		}
	}
	return harness{name: agent}
}
