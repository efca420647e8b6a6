package transcript

import (
	"strings"

	json "github.com/go-json-experiment/json/v1"
	"github.com/reflectkb/reflect/internal/lazyre"
)

// copilotFormat is Copilot CLI's events.jsonl: {"type", "data"} with
// dotted event types.
var copilotFormat = format{
	name: "copilot",
	detect: func(p *probe) int {
		switch str(p.Type) {
		case "session.start", "user.message", "assistant.message", "tool.execution_complete", "hook.start", "assistant.turn_start":
			if p.Data != nil {
				return byType
			}
		}
		return 0
	},
	parser: func(b *builder) (func([]byte), func()) { return newCopilotParser(b).line, nil },
}

// copilotParser reads a GitHub Copilot CLI session log,
// ~/.copilot/session-state/<id>/events.jsonl (the transcript_path of its
// Stop hook), checked against @github/copilot 1.0.102: one event per line,
// {"type", "data", "id", "timestamp"}. It reads session.start (session
// id, cwd, branch), user.message (the prompt as typed, in data.content;
// transformedContent adds what hooks injected), assistant.message (text and
// toolRequests) and tool.execution_complete (the result, with
// shellExecution.exitCode for shell commands). Hook and usage events
// carry nothing for a writer.
type copilotParser struct {
	b       *builder
	pending map[string]toolCall // toolCallId → call
	rec     copilotEvent        // the record being read, reused
}

func newCopilotParser(b *builder) *copilotParser {
	return &copilotParser{b: b, pending: map[string]toolCall{}}
}

type copilotEvent struct {
	Type json.RawMessage `json:"type"`
	Data struct {
		SessionID json.RawMessage `json:"sessionId"`
		Context   struct {
			Cwd    json.RawMessage `json:"cwd"`
			Branch json.RawMessage `json:"branch"`
		} `json:"context"`
		Content      json.RawMessage `json:"content"`
		ToolRequests []struct {
			ToolCallID json.RawMessage `json:"toolCallId"`
			Name       json.RawMessage `json:"name"`
			Arguments  json.RawMessage `json:"arguments"`
		} `json:"toolRequests"`
		ToolCallID     json.RawMessage `json:"toolCallId"`
		Success        json.RawMessage `json:"success"`
		ShellExecution struct {
			ExitCode json.RawMessage `json:"exitCode"`
		} `json:"shellExecution"`
		Result struct {
			Content json.RawMessage `json:"content"`
		} `json:"result"`
		Error json.RawMessage `json:"error"`
	} `json:"data"`
}

// copilotShellTrailer is the line Copilot ends a shell result with.
var copilotShellTrailer = lazyre.New(`(?m)^<shellId: [^>]*>\s*$`)

func (p *copilotParser) line(data []byte) {
	e := &p.rec
	*e = copilotEvent{}
	if data[0] != '{' || decodeRaw(data, e) != nil {
		return
	}
	d := e.Data
	switch str(e.Type) {
	case "session.start":
		p.b.meta(str(d.SessionID), str(d.Context.Cwd), str(d.Context.Branch))
	case "user.message":
		p.b.prompt(strings.TrimSpace(str(d.Content)))
	case "assistant.message":
		for _, r := range d.ToolRequests {
			id := str(r.ToolCallID)
			if id == "" {
				continue
			}
			if len(p.pending) >= maxPending {
				clear(p.pending)
			}
			args := object(r.Arguments)
			if args == nil {
				// Some versions send the arguments JSON-encoded.
				args = object(json.RawMessage(str(r.Arguments)))
			}
			p.pending[id] = copilotCall(str(r.Name), args)
		}
		if t := strings.TrimSpace(str(d.Content)); t != "" {
			p.b.assistant(t)
		}
	case "tool.execution_complete":
		id := str(d.ToolCallID)
		call, ok := p.pending[id]
		if !ok {
			call = toolCall{tool: "unknown", command: "unknown"}
		}
		delete(p.pending, id)
		text := strings.TrimSpace(copilotShellTrailer.ReplaceAllString(partsText(d.Result.Content), ""))
		res := toolResult{text: text, exit: -1, failed: string(d.Success) == "false"}
		if res.failed && text == "" {
			res.text = partsText(d.Error)
			if m := object(d.Error); m != nil {
				res.text = str(m["message"])
			}
		}
		if code, ok := integer(d.ShellExecution.ExitCode); ok {
			res.exit = code
			res.failed = res.failed || code != 0
		}
		p.b.tool(call, res)
	}
}

// copilotCall describes a tool request: bash (or shell on other
// platforms) runs a command; edit and create name the file as path.
func copilotCall(name string, in map[string]json.RawMessage) toolCall {
	switch name {
	case "bash", "shell", "powershell":
		return shellCall(name, str(in["command"]))
	case "edit", "create", "str_replace_editor", "write":
		c := toolCall{tool: name, command: name}
		f := str(in["path"])
		if f == "" {
			f = str(in["file_path"])
		}
		if f != "" {
			c.files = []string{f}
			c.command = name + " " + f
		}
		return c
	}
	for _, k := range []string{"path", "pattern", "url", "query", "description"} {
		if v := str(in[k]); v != "" {
			return toolCall{tool: name, command: name + " " + v}
		}
	}
	return toolCall{tool: name, command: name}
}
