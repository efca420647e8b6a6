package transcript

// Condensed is a transcript reduced to what a writer needs. Every string in
// it has been redacted and bounded.
type Condensed struct {
	Harness   string `json:"harness"` // claude | codex | gemini
	SessionID string `json:"session_id"`
	Cwd       string `json:"cwd,omitempty"`
	Branch    string `json:"branch,omitempty"`
	// Events in transcript order: what the writers reason about.
	Events []Event `json:"events"`
	// Files the session touched (edited, written, patched).
	Files []string `json:"files,omitempty"`
	// RawBytes is the size of the transcript that was condensed.
	RawBytes int64 `json:"raw_bytes"`
	// Text is the condensation rendered for an LLM writer (bounded).
	Text string `json:"-"`
	// Skip, when set, says why there is nothing to reflect on (the
	// transcript is one of reflect's own writer runs, holds no events, or
	// is in no known format): the drainer acks the entry without running
	// a writer.
	Skip string `json:"skip,omitempty"`
	// Dropped counts the events left out to stay within Limits.
	Dropped int `json:"dropped,omitempty"`
	// Runs sums up every shell command the session ran, by command key,
	// in order of first run (bounded): what the drainer checks the
	// injected learnings against, successes included, which Events keep
	// only when they fix a failure.
	Runs []Run `json:"runs,omitempty"`
}

// Run is what the runs of one command key came to in a session.
type Run struct {
	// Key is the command's key ("go test"; cmdkey.Key).
	Key    string `json:"key"`
	OK     int    `json:"ok"`
	Failed int    `json:"failed"`
	// Errors are the heads of the first failures' errors (redacted,
	// bounded).
	Errors []string `json:"errors,omitempty"`
}

// EventKind says what an Event is.
type EventKind string

// Kinds of condensed events.
const (
	UserPrompt     EventKind = "user"        // a prompt the user typed
	ToolFailed     EventKind = "tool_failed" // a tool call that failed (non-zero exit, is_error)
	ToolSucceeded  EventKind = "tool_ok"     // a tool call that succeeded (kept when it follows a failure of the same program)
	AssistantFinal EventKind = "assistant"   // the assistant's last message of a turn
)

// Event is one step of a condensed session.
type Event struct {
	Kind EventKind `json:"kind"`
	// Text is the prompt or message; for tool events, the error's head or
	// a short output summary.
	Text string `json:"text,omitempty"`
	// Command is the shell command (or tool input summary) of tool events.
	Command string `json:"command,omitempty"`
	Tool    string `json:"tool,omitempty"`
	// ExitCode of tool events when known (-1 unknown).
	ExitCode int `json:"exit_code,omitempty"`
	// Files edited (relative to Cwd when possible): for AssistantFinal,
	// during that turn; for ToolSucceeded, since the failure it fixes.
	Files []string `json:"files,omitempty"`
}
