package hooks

import (
	"encoding/json"
	"io"
)

// contextOutput is the answer that injects text into the agent's context.
// Every agent accepts exactly this shape for its session-start and prompt
// events (Gemini CLI for SessionStart and BeforeAgent, where it appends
// the text to the prompt); Codex rejects any other field (its output
// schemas have additionalProperties: false), so nothing else is ever added
// here.
type contextOutput struct {
	HookSpecificOutput struct {
		HookEventName     string `json:"hookEventName"`
		AdditionalContext string `json:"additionalContext"`
	} `json:"hookSpecificOutput"`
}

// flatContextOutput is Copilot CLI's answer: it reads additionalContext at
// the top level (1.0.102 ignores hookSpecificOutput) and appends it to
// the prompt in a <system_reminder>.
type flatContextOutput struct {
	AdditionalContext string `json:"additionalContext"`
}

// writeContext prints agent's additionalContext answer for event. Empty
// text prints nothing at all: silence is the answer when there is nothing
// to add. OpenCode's plugin reads the Claude shape.
func writeContext(w io.Writer, agent, event, text string) error {
	if text == "" {
		return nil
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	if agent == "copilot" {
		return enc.Encode(flatContextOutput{AdditionalContext: text})
	}
	var out contextOutput
	out.HookSpecificOutput.HookEventName = agentEventName(agent, event)
	out.HookSpecificOutput.AdditionalContext = text
	return enc.Encode(out)
}
