package hooks

import (
	"encoding/json"
	"io"
)

// contextOutput is the answer that injects text into the agent's context.
// Both agents accept exactly this shape for SessionStart and
// UserPromptSubmit; Codex rejects any other field (its output schemas have
// additionalProperties: false), so nothing else is ever added here.
type contextOutput struct {
	HookSpecificOutput struct {
		HookEventName     string `json:"hookEventName"`
		AdditionalContext string `json:"additionalContext"`
	} `json:"hookSpecificOutput"`
}

// writeContext prints the additionalContext answer for event. Empty text
// prints nothing at all: silence is the answer when there is nothing to add.
func writeContext(w io.Writer, event, text string) error {
	if text == "" {
		return nil
	}
	var out contextOutput
	out.HookSpecificOutput.HookEventName = agentEventName(event)
	out.HookSpecificOutput.AdditionalContext = text
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}
