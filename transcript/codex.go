package transcript

import (
	"bytes"
	"io"
	"os"
	"strings"

	json "github.com/go-json-experiment/json/v1"
)

// codexFormat is Codex's rollout JSONL: every record wraps its payload in
// {"type", "payload"} with Codex's own record types.
var codexFormat = format{
	name: "codex",
	detect: func(p *probe) int {
		switch str(p.Type) {
		case "session_meta", "response_item", "event_msg", "turn_context", "compacted":
			if p.Payload != nil {
				return byType
			}
		}
		return 0
	},
	parser: func(b *builder) (func([]byte), func()) { return newCodexParser(b).line, nil },
}

// codexParser reads Codex rollout JSONL: {"timestamp", "type", "payload"}
// records of type session_meta (id, cwd, git), turn_context, response_item
// (messages, function and custom tool calls and their outputs) and
// event_msg (user_message, agent_message, …; copies of response items for
// the UI). Other types are ignored.
type codexParser struct {
	b       *builder
	pending map[string]toolCall // call_id → call
	rec     codexLine           // the record being read, reused

	// The last user prompt and b.seq when it came: Codex records a prompt
	// twice (response_item and event_msg user_message), in either order.
	lastPrompt    string
	lastPromptSeq int
}

func newCodexParser(b *builder) *codexParser {
	return &codexParser{b: b, pending: map[string]toolCall{}, lastPromptSeq: -1}
}

type codexRecord struct {
	Type    json.RawMessage `json:"type"`
	Payload json.RawMessage `json:"payload"`
}

// codexLine is a codexRecord decoded with its payload in one pass: its
// Payload is the one codexRecord's Payload decodes to when that is an
// object, and empty otherwise.
type codexLine struct {
	Type    json.RawMessage `json:"type"`
	Payload codexPayload    `json:"payload" raw:"replace"`
}

type codexPayload struct {
	Type      json.RawMessage `json:"type"`
	Role      json.RawMessage `json:"role"`
	Content   json.RawMessage `json:"content"`
	Message   json.RawMessage `json:"message"`
	Name      json.RawMessage `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	Input     json.RawMessage `json:"input"`
	CallID    json.RawMessage `json:"call_id"`
	Output    json.RawMessage `json:"output"`
	Action    json.RawMessage `json:"action"`
	// session_meta and turn_context
	ID  json.RawMessage `json:"id"`
	Cwd json.RawMessage `json:"cwd"`
	Git json.RawMessage `json:"git"`
}

// codexAction is a local_shell_call's action.
type codexAction struct {
	Command json.RawMessage `json:"command"`
}

func (p *codexParser) line(data []byte) {
	// A null or missing payload leaves Payload empty, which every type
	// below ignores; one of another kind fails the record.
	r := &p.rec
	*r = codexLine{}
	if data[0] != '{' || decodeRaw(data, r) != nil {
		return
	}
	pl := r.Payload
	switch str(r.Type) {
	case "session_meta":
		p.b.meta(str(pl.ID), str(pl.Cwd), str(object(pl.Git)["branch"]))
	case "turn_context":
		p.b.meta("", str(pl.Cwd), "")
	case "response_item":
		p.item(pl)
	case "event_msg":
		switch str(pl.Type) {
		case "user_message":
			p.prompt(str(pl.Message))
		case "agent_message":
			p.b.assistant(str(pl.Message))
		}
	}
}

func (p *codexParser) item(pl codexPayload) {
	switch str(pl.Type) {
	case "message":
		switch str(pl.Role) {
		case "user":
			p.prompt(partsText(pl.Content, "input_text", "text"))
		case "assistant":
			p.b.assistant(partsText(pl.Content, "output_text", "text"))
		}
	case "function_call":
		p.call(str(pl.CallID), codexFunctionCall(str(pl.Name), str(pl.Arguments)))
	case "custom_tool_call":
		name, input := str(pl.Name), str(pl.Input)
		c := toolCall{tool: name, command: name}
		if name == "apply_patch" || strings.Contains(input, "*** Begin Patch") {
			c.files = patchFiles(input)
			c.command = strings.TrimSpace("apply_patch " + strings.Join(c.files, " "))
		}
		p.call(str(pl.CallID), c)
	case "local_shell_call":
		var a codexAction
		_ = decodeRaw(pl.Action, &a)
		p.call(str(pl.CallID), shellCall("local_shell", commandLine(a.Command)))
	case "function_call_output", "custom_tool_call_output":
		id := str(pl.CallID)
		call, ok := p.pending[id]
		if !ok {
			call = toolCall{tool: "unknown"}
		}
		delete(p.pending, id)
		p.b.tool(call, codexOutput(pl.Output, call.tool))
	}
}

// prompt records a user prompt once, skipping the context Codex sends as
// user messages (environment, AGENTS.md instructions).
func (p *codexParser) prompt(s string) {
	t := strings.TrimSpace(s)
	if t == "" || strings.HasPrefix(t, "# AGENTS.md instructions") || strings.HasPrefix(t, "<user_shell_command>") {
		return
	}
	if t == p.lastPrompt && p.b.seq == p.lastPromptSeq {
		return
	}
	p.lastPrompt, p.lastPromptSeq = t, p.b.seq
	p.b.prompt(t)
}

func (p *codexParser) call(id string, c toolCall) {
	if id == "" {
		return
	}
	if len(p.pending) >= maxPending {
		clear(p.pending)
	}
	p.pending[id] = c
}

// codexFunctionCall reads a function call's JSON-encoded arguments: shell
// tools give "command" as a string or argv ("shell", "shell_command",
// "container.exec", "local_shell") or "cmd" ("exec_command"); apply_patch
// gives the patch as "input".
func codexFunctionCall(name, arguments string) toolCall {
	args := object(json.RawMessage(arguments))
	if name == "apply_patch" {
		patch := str(args["input"])
		if patch == "" {
			patch = arguments
		}
		files := patchFiles(patch)
		return toolCall{tool: name, command: strings.TrimSpace("apply_patch " + strings.Join(files, " ")), files: files}
	}
	cmd := commandLine(args["command"])
	if cmd == "" {
		cmd = str(args["cmd"])
	}
	if cmd == "" {
		return toolCall{tool: name, command: name}
	}
	return shellCall(name, cmd)
}

// shellCall is a shell command; one that pipes a patch into apply_patch
// also edits the patch's files.
func shellCall(tool, cmd string) toolCall {
	c := toolCall{tool: tool, command: cmd, shell: true}
	if strings.Contains(cmd, "*** Begin Patch") {
		c.files = patchFiles(cmd)
	}
	return c
}

// commandLine reads a command given as a string or as argv. An argv that
// runs a shell script ("bash", "-lc", script) is the script.
func commandLine(raw json.RawMessage) string {
	if s := str(raw); s != "" {
		return s
	}
	var argv []string
	for _, a := range array(raw) {
		argv = append(argv, str(a))
	}
	if len(argv) == 3 && isShell(argv[0]) && strings.HasPrefix(argv[1], "-") && strings.HasSuffix(argv[1], "c") {
		return argv[2]
	}
	return strings.Join(argv, " ")
}

// patchFiles lists the files an apply_patch patch adds, updates or
// deletes.
func patchFiles(patch string) []string {
	var files []string
	for _, l := range strings.Split(patch, "\n") {
		for _, prefix := range []string{"*** Update File: ", "*** Add File: ", "*** Delete File: "} {
			if f, ok := strings.CutPrefix(strings.TrimSpace(l), prefix); ok && f != "" && !contains(files, f) {
				files = append(files, strings.TrimSpace(f))
			}
		}
	}
	return files
}

// codexOutput reads a call's output, which has come in several shapes: a
// string with an "Exit code: N" header; a JSON string or an object with
// "output" and "metadata.exit_code" (or "exit_code"); an object with
// "content" and "success"; a list of content items.
func codexOutput(raw json.RawMessage, tool string) toolResult {
	res := toolResult{exit: -1}
	text := str(raw)
	obj := object(raw)
	if obj == nil && strings.HasPrefix(text, "{") {
		obj = object(json.RawMessage(text))
	}
	if obj != nil {
		text = ""
		for _, k := range []string{"output", "content", "stdout", "aggregated_output"} {
			if t := partsText(obj[k]); t != "" {
				text = t
				break
			}
		}
		if t := str(obj["stderr"]); t != "" {
			text = strings.TrimSpace(text + "\n" + t)
		}
		code, ok := integer(obj["exit_code"])
		if !ok {
			code, ok = integer(object(obj["metadata"])["exit_code"])
		}
		if ok {
			res.exit, res.failed = code, code != 0
		}
		if string(obj["success"]) == "false" {
			res.failed = true
		}
	} else if text == "" {
		text = partsText(raw)
	}
	if n, ok := exitHeader(text); ok && res.exit == -1 {
		res.exit, res.failed = n, res.failed || n != 0
	}
	res.text = text
	if tool == "apply_patch" && !res.failed {
		// apply_patch reports a rejected patch in words, without a code.
		t := strings.ToLower(strings.TrimSpace(text))
		res.failed = strings.HasPrefix(t, "apply_patch verification failed") ||
			strings.HasPrefix(t, "failed to apply patch") || strings.HasPrefix(t, "error")
	}
	return res
}

// CommandCompletion is a shell command's end as a Codex rollout records
// it: an event_msg whose payload is
//
//	{"type":"item_completed","item":{"type":"CommandExecution",
//	  "id":"<call id>","status":"failed","exit_code":1,
//	  "aggregated_output":"…"}}
//
// (Codex 0.169), or {"type":"exec_command_end","call_id":…,"exit_code":…}
// in older versions; both are read. The hooks use it to learn the exit
// code a Codex PostToolUse payload leaves out.
type CommandCompletion struct {
	ExitCode int
	Output   string
}

// CodexTailBytes is how much of a rollout's end FindCodexCompletion
// searches: the completion is among the last records, and a rollout can
// be many megabytes that a hook must not read whole.
const CodexTailBytes = 256 << 10

// FindCodexCompletion searches the last CodexTailBytes of the Codex rollout
// at path for the completion of the shell command with call id, the last
// one when there are several. ok is false when the file cannot be read or
// its tail holds no such completion (not yet written, or long before).
func FindCodexCompletion(path, id string) (CommandCompletion, bool) {
	f, err := os.Open(path)
	if err != nil {
		return CommandCompletion{}, false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return CommandCompletion{}, false
	}
	start := fi.Size() - CodexTailBytes
	if start < 0 {
		start = 0
	}
	buf := make([]byte, fi.Size()-start)
	if _, err := f.ReadAt(buf, start); err != nil && err != io.EOF {
		return CommandCompletion{}, false
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
		if c, ok := codexCompletionOf(lines[i], id); ok {
			return c, true
		}
	}
	return CommandCompletion{}, false
}

// rolloutCompletion is the part of a rollout line codexCompletionOf reads.
type rolloutCompletion struct {
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

func codexCompletionOf(line []byte, id string) (CommandCompletion, bool) {
	var r rolloutCompletion
	if json.Unmarshal(line, &r) != nil || r.Type != "event_msg" {
		return CommandCompletion{}, false
	}
	p := r.Payload
	switch {
	case p.Type == "item_completed" && p.Item != nil && p.Item.ID == id && p.Item.Type == "CommandExecution":
		if p.Item.ExitCode == nil {
			return CommandCompletion{}, false
		}
		return CommandCompletion{ExitCode: *p.Item.ExitCode, Output: p.Item.AggregatedOutput}, true
	case p.Type == "exec_command_end" && p.CallID == id && p.ExitCode != nil:
		out := p.AggregatedOutput
		if out == "" {
			out = p.Stderr
		}
		return CommandCompletion{ExitCode: *p.ExitCode, Output: out}, true
	}
	return CommandCompletion{}, false
}
