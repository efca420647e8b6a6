package transcript

import (
	"strings"

	json "github.com/go-json-experiment/json/v1"
)

// openCodeFormat is reflect's copy of an OpenCode session: one message a
// line, {"info", "parts"}.
var openCodeFormat = format{
	name: "opencode",
	detect: func(p *probe) int {
		if p.Info != nil && p.Parts != nil {
			return byShape
		}
		return 0
	},
	parser: func(b *builder) (func([]byte), func()) { return newOpenCodeParser(b).line, nil },
}

// openCodeParser reads the OpenCode session copy the opencode hook writes
// (hooks/opencode.go): one message per line as OpenCode's SDK returns it,
// {"info": {id, sessionID, role, path: {cwd}}, "parts": [...]}, checked
// against opencode-ai 1.18.33. Parts of type "text" are prompts (user) or
// answers (assistant); "synthetic" text parts are what a plugin added —
// reflect's own recall among them — and are skipped. A "tool" part holds
// the call and its result together: state {status, input, output, error,
// metadata: {exit}}.
type openCodeParser struct {
	b *builder
}

func newOpenCodeParser(b *builder) *openCodeParser { return &openCodeParser{b: b} }

type openCodeMessage struct {
	Info struct {
		SessionID json.RawMessage `json:"sessionID"`
		Role      json.RawMessage `json:"role"`
		Path      struct {
			Cwd json.RawMessage `json:"cwd"`
		} `json:"path"`
	} `json:"info"`
	Parts []json.RawMessage `json:"parts"`
}

type openCodePart struct {
	Type      json.RawMessage `json:"type"`
	Text      json.RawMessage `json:"text"`
	Synthetic json.RawMessage `json:"synthetic"`
	Tool      json.RawMessage `json:"tool"`
	State     struct {
		Status   json.RawMessage `json:"status"`
		Input    json.RawMessage `json:"input"`
		Output   json.RawMessage `json:"output"`
		Error    json.RawMessage `json:"error"`
		Metadata json.RawMessage `json:"metadata"`
	} `json:"state"`
}

func (p *openCodeParser) line(data []byte) {
	var m openCodeMessage
	if data[0] != '{' || decodeRaw(data, &m) != nil {
		return
	}
	p.b.meta(str(m.Info.SessionID), str(m.Info.Path.Cwd), "")
	role := str(m.Info.Role)
	var texts []string
	for _, raw := range m.Parts {
		var part openCodePart
		if decodeRaw(raw, &part) != nil {
			continue
		}
		switch str(part.Type) {
		case "text":
			if boolean(part.Synthetic) {
				continue
			}
			texts = append(texts, str(part.Text))
		case "tool":
			if role == "assistant" {
				p.tool(part)
			}
		}
	}
	text := strings.TrimSpace(strings.Join(texts, "\n"))
	switch role {
	case "user":
		p.b.prompt(text)
	case "assistant":
		if text != "" {
			p.b.assistant(text)
		}
	}
}

// tool records a finished tool part; one still running or waiting has no
// outcome yet.
func (p *openCodeParser) tool(part openCodePart) {
	status := str(part.State.Status)
	if status != "completed" && status != "error" {
		return
	}
	call := openCodeCall(str(part.Tool), object(part.State.Input))
	res := toolResult{text: str(part.State.Output), exit: -1, failed: status == "error"}
	if status == "error" {
		res.text = str(part.State.Error)
	}
	if code, ok := integer(object(part.State.Metadata)["exit"]); ok {
		res.exit = code
		res.failed = res.failed || code != 0
	}
	p.b.tool(call, res)
}

// openCodeCall describes a tool call by its tool and main argument:
// OpenCode's tools are lower case (bash, edit, write, read, grep, …) and
// name files filePath.
func openCodeCall(name string, in map[string]json.RawMessage) toolCall {
	switch name {
	case "bash":
		return shellCall(name, str(in["command"]))
	case "edit", "write", "patch", "multiedit":
		c := toolCall{tool: name, command: name}
		if f := str(in["filePath"]); f != "" {
			c.files = []string{f}
			c.command = name + " " + f
		}
		return c
	}
	for _, k := range []string{"filePath", "path", "pattern", "url", "query", "description"} {
		if v := str(in[k]); v != "" {
			return toolCall{tool: name, command: name + " " + v}
		}
	}
	return toolCall{tool: name, command: name}
}
