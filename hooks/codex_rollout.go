package hooks

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"strings"
	"time"

	"github.com/reflectkb/reflect/internal/redact"
	"github.com/reflectkb/reflect/internal/text"
)

// Codex 0.169's PostToolUse for a shell command says tool_name "Bash" but
// its tool_response is only the command's output, without the exit code
// (openai/codex#34289). The rollout at transcript_path already holds the
// command's completion when the hook runs: an event_msg whose payload is
//
//	{"type":"item_completed","item":{"type":"CommandExecution",
//	  "id":"<tool_use_id>","status":"failed","exit_code":1,
//	  "aggregated_output":"…"}}
//
// Older versions wrote {"type":"exec_command_end","call_id":…,"exit_code":…}
// instead; both are read.
const (
	// rolloutTail is how much of the rollout's end is searched: the
	// completion is among the last records, and a rollout can be many
	// megabytes that a hook must not read whole.
	rolloutTail = 256 << 10
	// rolloutTries and rolloutWait bound the wait for a completion that
	// Codex has not flushed yet (seen written before the hook, but a race
	// is not ruled out): at most about a tenth of a second.
	rolloutTries = 5
	rolloutWait  = 25 * time.Millisecond
)

// rolloutSleep waits between looks at the rollout; tests replace it to
// write the completion at a known moment.
var rolloutSleep = time.Sleep

// codexToolPayload is the part of a Codex PostToolUse that locates the
// command's record in the rollout.
type codexToolPayload struct {
	TranscriptPath string `json:"transcript_path"`
	ToolUseID      string `json:"tool_use_id"`
}

// commandCompletion is a shell command's end as the rollout records it.
type commandCompletion struct {
	ExitCode int
	Output   string
}

// CodexRolloutFailure finds, for a Codex post-tool payload whose own text
// carries no exit code, the command's completion in the rollout and
// describes the failure it records. ok is false for a command that
// succeeded, a payload that is not a shell call, or a rollout that does not
// (yet) hold the completion after a short bounded retry.
func CodexRolloutFailure(payload []byte) (Failure, bool) {
	var tp toolPayload
	var cp codexToolPayload
	if json.Unmarshal(payload, &tp) != nil || json.Unmarshal(payload, &cp) != nil {
		return Failure{}, false
	}
	if !shellTools[strings.ToLower(tp.ToolName)] || tp.IsInterrupt || cp.TranscriptPath == "" || cp.ToolUseID == "" {
		return Failure{}, false
	}
	if _, _, hasCode := parseResponse(tp.ToolResponse); hasCode {
		// Older versions put the exit code in the payload; FailedBash
		// has decided, and the rollout need not be read.
		return Failure{}, false
	}
	var (
		c     commandCompletion
		found bool
	)
	for try := 0; try < rolloutTries && !found; try++ {
		if try > 0 {
			rolloutSleep(rolloutWait)
		}
		c, found = findCompletion(cp.TranscriptPath, cp.ToolUseID)
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
		SessionID:    tp.SessionID,
		Tool:         tp.ToolName,
		Command:      text.ClipRunes(redact.String(commandOf(tp.ToolInput)), maxCommandChars),
		ExitCode:     c.ExitCode,
		ErrorHead:    head,
		ErrorContext: context,
		Cwd:          redact.String(tp.Cwd),
	}, true
}

// findCompletion searches the last rolloutTail bytes of a rollout for the
// completion of call id, the last one when there are several.
func findCompletion(path, id string) (commandCompletion, bool) {
	f, err := os.Open(path)
	if err != nil {
		return commandCompletion{}, false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return commandCompletion{}, false
	}
	start := fi.Size() - rolloutTail
	if start < 0 {
		start = 0
	}
	buf := make([]byte, fi.Size()-start)
	if _, err := f.ReadAt(buf, start); err != nil && err != io.EOF {
		return commandCompletion{}, false
	}
	if start > 0 {
		// The first line is cut; it is not a record.
		if i := bytes.IndexByte(buf, '\n'); i >= 0 {
			buf = buf[i+1:]
		}
	}
	needle := []byte(id)
	lines := bytes.Split(buf, []byte{'\n'})
	for i := len(lines) - 1; i >= 0; i-- {
		if !bytes.Contains(lines[i], needle) {
			continue // cheap filter before decoding
		}
		if c, ok := completionOf(lines[i], id); ok {
			return c, true
		}
	}
	return commandCompletion{}, false
}

// rolloutRecord is the part of a rollout line completionOf reads.
type rolloutRecord struct {
	Type    string `json:"type"`
	Payload struct {
		Type string `json:"type"`
		// item_completed (Codex 0.169)
		Item *struct {
			Type             string `json:"type"`
			ID               string `json:"id"`
			ExitCode         *int   `json:"exit_code"`
			AggregatedOutput string `json:"aggregated_output"`
		} `json:"item"`
		// exec_command_end (older versions)
		CallID           string `json:"call_id"`
		ExitCode         *int   `json:"exit_code"`
		AggregatedOutput string `json:"aggregated_output"`
		Stderr           string `json:"stderr"`
	} `json:"payload"`
}

func completionOf(line []byte, id string) (commandCompletion, bool) {
	var r rolloutRecord
	if json.Unmarshal(line, &r) != nil || r.Type != "event_msg" {
		return commandCompletion{}, false
	}
	p := r.Payload
	switch {
	case p.Type == "item_completed" && p.Item != nil && p.Item.ID == id && p.Item.Type == "CommandExecution":
		if p.Item.ExitCode == nil {
			return commandCompletion{}, false
		}
		return commandCompletion{ExitCode: *p.Item.ExitCode, Output: p.Item.AggregatedOutput}, true
	case p.Type == "exec_command_end" && p.CallID == id && p.ExitCode != nil:
		out := p.AggregatedOutput
		if out == "" {
			out = p.Stderr
		}
		return commandCompletion{ExitCode: *p.ExitCode, Output: out}, true
	}
	return commandCompletion{}, false
}
