package hooks

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/reflectkb/reflect/internal/gitrepo"
	"github.com/reflectkb/reflect/recall"
)

// Events are the hook events of `reflect hook EVENT`, in the order an agent
// session meets them.
var Events = []string{"session-start", "prompt", "pre-tool", "post-tool", "pre-compact", "stop", "session-end"}

// Payload is the part of an agent's hook JSON reflect reads. Every agent
// sends the same names for these fields; everything else is ignored, so new
// fields in any agent never break a hook.
type Payload struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"` // Codex may send null
	Cwd            string `json:"cwd"`
	HookEventName  string `json:"hook_event_name"`
	Source         string `json:"source"`  // SessionStart: startup, resume, clear, compact
	Prompt         string `json:"prompt"`  // UserPromptSubmit, Gemini's BeforeAgent
	Trigger        string `json:"trigger"` // PreCompact, Gemini's PreCompress: auto, manual
	ToolName       string `json:"tool_name"`
	// Messages is OpenCode's session (the plugin sends it with stop and
	// pre-compact): OpenCode keeps sessions in its own database, so the
	// hook writes a redacted copy for the drainer (opencode.go).
	Messages []json.RawMessage `json:"messages"`
	// FirstMessage is the index in the session of Messages[0]: the plugin
	// sends only what it has not sent before (the last message again, as
	// it may have grown), in parts under the payload cap. More marks a
	// part with more to come, which is saved but not yet queued; Skipped
	// counts messages too large to send at all (a stub stands for each).
	FirstMessage int  `json:"first_message"`
	More         bool `json:"more"`
	Skipped      int  `json:"skipped"`

	// Raw is the whole payload, for handlers that need agent-specific fields.
	Raw []byte `json:"-"`
}

// maxPayload bounds what is read from stdin. Payloads are small; a
// PostToolUse with a huge tool output is ignored, never buffered whole.
const maxPayload = 8 << 20

// ParsePayload decodes a hook payload. Unknown fields are ignored and a
// JSON null is an empty string; anything that is not a JSON object is an
// error.
func ParsePayload(data []byte) (*Payload, error) {
	var p Payload
	if err := json.Unmarshal(data, &p); err != nil {
		var obj map[string]json.RawMessage
		if json.Unmarshal(data, &obj) != nil {
			return nil, fmt.Errorf("hook payload is not a JSON object: %w", err)
		}
		return nil, fmt.Errorf("hook payload has a field of the wrong type: %w", err)
	}
	p.Raw = data
	return &p, nil
}

// bound replaces a session id that is no id (validate.go) and cuts the
// payload's free-text fields to what any handler uses, so that no handler
// spends the deadline on megabytes: the prompt to
// recall.MaxPromptBytes (searching and judging a correction look at no
// more), and a working directory longer than PATH_MAX, which no real one
// is, to nothing.
func (p *Payload) bound() {
	p.SessionID = cleanSessionID(p.SessionID)
	p.Prompt = recall.ClipPrompt(p.Prompt)
	if len(p.Cwd) > gitrepo.MaxPath {
		p.Cwd = ""
	}
}

// normalize makes an agent's payload read like the others (Gemini's
// prompt loses the hook context it carries).
func (p *Payload) normalize(agent string) {
	if h := harnessOf(agent); h.normalize != nil {
		h.normalize(p)
	}
}

// agentEventName is the agent's own name for an event, used in output:
// Claude Code's unless the agent's harness names its own.
func agentEventName(agent, event string) string {
	if h := harnessOf(agent); h.events != nil {
		return h.events[event]
	}
	switch event {
	case "session-start":
		return "SessionStart"
	case "prompt":
		return "UserPromptSubmit"
	case "pre-tool":
		return "PreToolUse"
	case "post-tool":
		return "PostToolUse"
	case "pre-compact":
		return "PreCompact"
	case "stop":
		return "Stop"
	case "session-end":
		return "SessionEnd"
	}
	return ""
}

func known(v string, list []string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

// ValidEvent reports whether event and agent name a hook reflect handles,
// with a message listing the valid names when not.
func ValidEvent(event, agent string) error {
	if !known(event, Events) {
		return fmt.Errorf("unknown hook event %q; use one of %s", event, strings.Join(Events, ", "))
	}
	if !known(agent, Agents) {
		return fmt.Errorf("unknown agent %q; use --agent with one of %s", agent, strings.Join(Agents, ", "))
	}
	return nil
}
