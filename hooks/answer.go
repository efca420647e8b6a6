package hooks

import "io"

// WriteAnswer writes text as agent's answer to event (reflect's name for
// it: "session-start", "prompt"), exactly as the hook would print it, for
// `reflect recall --agent`; nothing for empty text.
func WriteAnswer(w io.Writer, agent, event, text string) error {
	return writeContext(w, agent, event, text)
}
