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

// writeContext prints agent's additionalContext answer for event. Empty
// text prints nothing at all: silence is the answer when there is nothing
// to add. OpenCode's plugin reads the Claude shape; an agent that reads
// another says so in its harness (Copilot CLI's, copilot.go).
func writeContext(w io.Writer, agent, event, text string) error {
	if text == "" {
		return nil
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	if h := harnessOf(agent); h.context != nil {
		return enc.Encode(h.context(text))
	}
	var out contextOutput
	out.HookSpecificOutput.HookEventName = agentEventName(agent, event)
	out.HookSpecificOutput.AdditionalContext = text
	return enc.Encode(out)
}
