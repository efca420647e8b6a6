package transcript

import (
	"bytes"
	"strings"

	json "github.com/go-json-experiment/json/v1"
	"github.com/reflectkb/reflect/internal/geminishell"
)

// geminiFormat is Gemini CLI's chat JSONL. Its header has a sessionId too,
// so its markers outrank Claude's fields.
var geminiFormat = format{
	name: "gemini",
	detect: func(p *probe) int {
		if p.ProjectHash != nil || p.Set != nil || str(p.Type) == "gemini" {
			return sureFormat
		}
		return 0
	},
	parser: func(b *builder) (func([]byte), func()) {
		g := newGeminiParser(b)
		return g.line, g.end
	},
}

// geminiParser reads a Gemini CLI chat file
// (~/.gemini/tmp/<project>/chats/session-*.jsonl, Gemini CLI 0.61): a
// header {"sessionId", "projectHash", "startTime", …}, then message
// records {"id", "timestamp", "type", "content", "toolCalls", …} of type
// user, gemini, info, error or warning, interleaved with {"$set": {…}}
// updates of the header, one of which may set the whole "messages" list.
//
// Gemini appends a message again, under the same id, each time it
// changes (a model message is written when it streams in and again with
// its tool calls and their results), so a record is held until one with
// another id follows, and only its last version is condensed. A resumed
// session begins with a $set of every message so far: those already
// condensed (known by id) are skipped. Tool
// results are read from the gemini message's toolCalls, where each call
// carries its result; the user-role functionResponse records that repeat
// them for the model are skipped.
type geminiParser struct {
	b    *builder
	cur  *geminiMessage  // the record held until its last version is known
	seen map[string]bool // ids of the messages condensed
}

func newGeminiParser(b *builder) *geminiParser {
	return &geminiParser{b: b, seen: map[string]bool{}}
}

type geminiMessage struct {
	ID        json.RawMessage `json:"id"`
	Type      json.RawMessage `json:"type"`
	Content   json.RawMessage `json:"content"`
	ToolCalls []struct {
		Name   json.RawMessage `json:"name"`
		Args   json.RawMessage `json:"args"`
		Result json.RawMessage `json:"result"`
		Status json.RawMessage `json:"status"`
	} `json:"toolCalls"`
	// Header fields.
	SessionID   json.RawMessage `json:"sessionId"`
	ProjectHash json.RawMessage `json:"projectHash"`
	Set         json.RawMessage `json:"$set"`
}

func (p *geminiParser) line(data []byte) {
	var m geminiMessage
	// A copy: the record may be held past this line, and its raw
	// values share the bytes they were decoded from.
	data = bytes.Clone(data)
	if data[0] != '{' || decodeRaw(data, &m) != nil {
		return
	}
	switch {
	case m.Set != nil:
		for _, raw := range array(object(m.Set)["messages"]) {
			var each geminiMessage
			if decodeRaw(raw, &each) == nil {
				p.message(&each)
			}
		}
	case m.ProjectHash != nil || (m.SessionID != nil && m.Type == nil):
		p.b.meta(str(m.SessionID), "", "")
	case m.Type != nil:
		p.message(&m)
	}
}

// message holds m, first condensing the held record when m is not a new
// version of it.
func (p *geminiParser) message(m *geminiMessage) {
	if p.cur != nil && (str(m.ID) == "" || !bytes.Equal(m.ID, p.cur.ID)) {
		p.flush()
	}
	p.cur = m
}

// end condenses the last record.
func (p *geminiParser) end() { p.flush() }

func (p *geminiParser) flush() {
	m := p.cur
	p.cur = nil
	if m == nil {
		return
	}
	if id := str(m.ID); id != "" {
		if p.seen[id] {
			return
		}
		if len(p.seen) >= maxPending {
			clear(p.seen)
		}
		p.seen[id] = true
	}
	switch str(m.Type) {
	case "user":
		p.prompt(m.Content)
	case "gemini":
		if t := geminiText(m.Content); t != "" {
			p.b.assistant(t)
		}
		for _, c := range m.ToolCalls {
			call := geminiCall(str(c.Name), object(c.Args))
			p.b.tool(call, geminiResult(call, c.Result, str(c.Status)))
		}
	}
}

// prompt records a user message that carries text: the context Gemini
// opens every session with (<session_context>) is not a prompt, and
// records of function responses carry no text.
func (p *geminiParser) prompt(content json.RawMessage) {
	t := strings.TrimSpace(geminiText(content))
	if t == "" || strings.HasPrefix(t, "<session_context>") {
		return
	}
	// Hook context (reflect's learnings, escaped) is not what the user
	// typed: Gemini wraps it in <hook_context> inside the prompt.
	p.b.prompt(stripBlock(t, "<hook_context>", "</hook_context>"))
}

// geminiText is the text of a content that is a string or a list of
// parts ({"text": …}; parts without text, such as functionResponse, add
// nothing).
func geminiText(raw json.RawMessage) string {
	if s := str(raw); s != "" {
		return s
	}
	var texts []string
	for _, part := range array(raw) {
		if t := str(object(part)["text"]); t != "" {
			texts = append(texts, t)
		}
	}
	return strings.Join(texts, "\n")
}

// geminiCall describes a tool call by its tool and main argument: the
// command of run_shell_command, the file of write_file and replace.
func geminiCall(name string, args map[string]json.RawMessage) toolCall {
	switch name {
	case "run_shell_command":
		return shellCall(name, str(args["command"]))
	case "write_file", "replace", "edit":
		f := str(args["file_path"])
		c := toolCall{tool: name, command: strings.TrimSpace(name + " " + f)}
		if f != "" {
			c.files = []string{f}
		}
		return c
	}
	for _, k := range []string{"command", "file_path", "absolute_path", "path", "pattern", "url", "query"} {
		if v := str(args[k]); v != "" {
			return toolCall{tool: name, command: name + " " + v}
		}
	}
	return toolCall{tool: name, command: name}
}

// geminiResult reads a call's result: its functionResponse parts'
// response.output (or .error). A shell command's exit code is in the
// output's trailer; any call whose status is not success failed.
func geminiResult(call toolCall, result json.RawMessage, status string) toolResult {
	var texts []string
	for _, part := range array(result) {
		resp := object(object(object(part)["functionResponse"])["response"])
		for _, k := range []string{"output", "error"} {
			if t := str(resp[k]); t != "" {
				texts = append(texts, t)
			}
		}
	}
	res := toolResult{text: strings.Join(texts, "\n"), exit: -1, failed: status != "" && status != "success"}
	if call.shell {
		if r, ok := geminishell.Parse(res.text); ok {
			res.text = r.Output
			res.exit = r.ExitCode
			res.failed = res.failed || r.Failed()
		}
	}
	return res
}
