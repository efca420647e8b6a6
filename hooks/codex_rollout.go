package hooks

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/reflectkb/reflect/internal/redact"
	"github.com/reflectkb/reflect/internal/text"
	"github.com/reflectkb/reflect/transcript"
)

// codexHarness is Codex CLI: Claude Code's payloads and answers (its
// output schemas refuse any other field), and a rollout that holds the
// exit code its post-tool payload leaves out.
var codexHarness = harness{name: "codex", failure: CodexRolloutFailure}

// Codex 0.169's PostToolUse for a shell command says tool_name "Bash" but
// its tool_response is only the command's output, without the exit code
// (openai/codex#34289). The rollout at transcript_path already holds the
// command's completion when the hook runs; transcript.FindCodexCompletion
// reads it from the rollout's tail (the record formats are described
// there).
const (
	// rolloutTries and rolloutWait bound the wait for a completion that
	// Codex has not flushed yet (seen written before the hook, but a race
	// is not ruled out): at most about a tenth of a second.
	rolloutTries = 5
	rolloutWait  = 25 * time.Millisecond
)

// codexToolPayload is the part of a Codex PostToolUse that locates the
// command's record in the rollout.
type codexToolPayload struct {
	TranscriptPath string `json:"transcript_path"`
	ToolUseID      string `json:"tool_use_id"`
}

// CodexRolloutFailure finds, for a Codex post-tool payload whose own text
// carries no exit code, the command's completion in the rollout and
// describes the failure it records. ok is false for a command that
// succeeded, a payload that is not a shell call, or a rollout that does not
// (yet) hold the completion after a short bounded retry.
func CodexRolloutFailure(payload []byte) (Failure, bool) {
	return codexRolloutFailure(payload, time.Sleep)
}

// codexRolloutFailure is CodexRolloutFailure with sleep waiting between
// looks at the rollout (tests write the completion at a known moment).
func codexRolloutFailure(payload []byte, sleep func(time.Duration)) (Failure, bool) {
	var tp toolPayload
	var cp codexToolPayload
	if json.Unmarshal(payload, &tp) != nil || json.Unmarshal(payload, &cp) != nil {
		return Failure{}, false
	}
	if !shellTools[strings.ToLower(tp.ToolName)] || tp.IsInterrupt || cp.TranscriptPath == "" || cp.ToolUseID == "" {
		return Failure{}, false
	}
	if checkTranscript(cp.TranscriptPath) != nil {
		return Failure{}, false // never read a file the agent did not write
	}
	if _, _, hasCode := parseResponse(tp.ToolResponse); hasCode {
		// Older versions put the exit code in the payload; FailedBash
		// has decided, and the rollout need not be read.
		return Failure{}, false
	}
	var (
		c     transcript.CommandCompletion
		found bool
	)
	for try := 0; try < rolloutTries && !found; try++ {
		if try > 0 {
			sleep(rolloutWait)
		}
		c, found = transcript.FindCodexCompletion(cp.TranscriptPath, cp.ToolUseID)
	}
	if !found || c.ExitCode == 0 {
		return Failure{}, false
	}
	output := c.Output
	if output == "" {
		output = jsonString(tp.ToolResponse)
	}
	head, context := summarizeOutput(output)
	return Failure{
		Agent:        "codex",
		SessionID:    cleanSessionID(tp.SessionID),
		Tool:         tp.ToolName,
		Command:      text.ClipRunes(redact.String(commandOf(tp.ToolInput)), maxCommandChars),
		ExitCode:     c.ExitCode,
		ErrorHead:    head,
		ErrorContext: context,
		Cwd:          redact.String(tp.Cwd),
	}, true
}
