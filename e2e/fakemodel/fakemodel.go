// Package fakemodel is a scripted model server for driving the real Claude
// Code, Codex, Gemini CLI, OpenCode and Copilot CLI clients offline. It listens on 127.0.0.1 only and speaks
//
//   - the Anthropic Messages API: POST /v1/messages (SSE when "stream" is
//     true, one JSON message otherwise) and POST /v1/messages/count_tokens;
//   - the OpenAI Responses API: POST /v1/responses (SSE) and GET /v1/models;
//   - the Gemini API: POST /v1beta/models/{model}:generateContent,
//     :streamGenerateContent (SSE) and :countTokens;
//   - OpenAI Chat Completions: POST /v1/chat/completions (SSE when "stream"
//     is true), for OpenCode and Copilot CLI (chat.go).
//
// Anything else gets 200 {}. Every request is recorded (see Requests) and,
// when a log path is given, appended to it as one JSON line.
//
// What the model does is decided from the request alone, by markers in the
// last prompt the user typed:
//
//   - FAILCMD:<cmd> makes the model run cmd with the client's shell tool,
//     and FIXCMD:<cmd2> beside it runs cmd2 once the first result is back;
//   - TOOLCALL:<name {json}> makes the model call any tool the client
//     offers (e.g. an MCP tool, mcp__reflect__search) with those
//     arguments; several are called in order, one per tool result;
//   - reflect's writer prompt (transcript.WriterPromptMarker) is answered with a
//     learning about the first FAILED line of the transcript it carries;
//   - anything else, and a conversation whose commands have all run, gets
//     a short text answer that ends the turn.
package fakemodel

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/reflectkb/reflect/transcript"
)

// Request is one request the server received.
type Request struct {
	Method string          `json:"method"`
	Path   string          `json:"path"`
	Body   json.RawMessage `json:"body,omitempty"`
	// Reply says what the server answered: "text", "tool", "writer",
	// "count_tokens", "models", "json" (Gemini's structured side calls) or
	// "{}".
	Reply string    `json:"reply"`
	At    time.Time `json:"at"`
}

// Server is a running fake model server.
type Server struct {
	srv  *http.Server
	ln   net.Listener
	log  *os.File
	ids  atomic.Int64
	mu   sync.Mutex
	reqs []Request
}

// Start listens on a free port of 127.0.0.1. logPath, when not empty,
// receives every request as a JSON line.
func Start(logPath string) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &Server{ln: ln}
	if logPath != "" {
		if s.log, err = os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600); err != nil {
			ln.Close()
			return nil, err
		}
	}
	s.srv = &http.Server{Handler: http.HandlerFunc(s.serve), ReadHeaderTimeout: 30 * time.Second}
	go func() { _ = s.srv.Serve(ln) }()
	return s, nil
}

// URL is the server's base URL, e.g. http://127.0.0.1:40123.
func (s *Server) URL() string { return "http://" + s.ln.Addr().String() }

// Close stops the server.
func (s *Server) Close() error {
	err := s.srv.Close()
	if s.log != nil {
		s.log.Close()
	}
	return err
}

// Requests returns a copy of every request received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

func (s *Server) record(r Request) {
	r.At = time.Now().UTC()
	s.mu.Lock()
	s.reqs = append(s.reqs, r)
	if s.log != nil {
		if line, err := json.Marshal(r); err == nil {
			_, _ = s.log.Write(append(line, '\n'))
		}
	}
	s.mu.Unlock()
}

func (s *Server) id(prefix string) string {
	return fmt.Sprintf("%s_%024d", prefix, s.ids.Add(1))
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, err := readBody(r)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	rec := Request{Method: r.Method, Path: r.URL.Path}
	if json.Valid(body) {
		rec.Body = body
	} else if len(body) > 0 {
		rec.Body, _ = json.Marshal(string(body))
	}
	path := r.URL.Path
	switch {
	case r.Method == http.MethodGet && strings.HasSuffix(path, "/models"):
		rec.Reply = "models"
		s.record(rec)
		writeJSON(w, map[string]any{"object": "list", "data": []any{}, "models": []any{}})
	case r.Method == http.MethodPost && strings.HasSuffix(path, "/v1/messages/count_tokens"):
		rec.Reply = "count_tokens"
		s.record(rec)
		writeJSON(w, map[string]any{"input_tokens": 100})
	case r.Method == http.MethodPost && strings.HasSuffix(path, "/v1/messages"):
		var req anthropicRequest
		_ = json.Unmarshal(body, &req)
		d := decideAnthropic(req)
		rec.Reply = d.kind
		s.record(rec)
		if req.Stream {
			s.anthropicStream(w, req.Model, d)
		} else {
			s.anthropicJSON(w, req.Model, d)
		}
	case r.Method == http.MethodPost && strings.HasSuffix(path, "/chat/completions"):
		var req chatRequest
		_ = json.Unmarshal(body, &req)
		d := decideChat(req)
		rec.Reply = d.kind
		s.record(rec)
		s.chatCompletion(w, req, d)
	case r.Method == http.MethodPost && strings.HasSuffix(path, "/responses"):
		var req responsesRequest
		_ = json.Unmarshal(body, &req)
		d := decideResponses(req)
		rec.Reply = d.kind
		s.record(rec)
		s.responsesStream(w, req.Model, d)
	case r.Method == http.MethodPost && geminiMethod(path) != "":
		s.serveGemini(w, geminiMethod(path), body, rec)
	default:
		rec.Reply = "{}"
		s.record(rec)
		writeJSON(w, map[string]any{})
	}
}

// readBody reads a request body, gunzipping it when the client compressed
// it. Codex may send zstd, which is recorded as it came.
func readBody(r *http.Request) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	if err != nil {
		return nil, err
	}
	if r.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err == nil {
			if plain, err := io.ReadAll(zr); err == nil {
				return plain, nil
			}
		}
	}
	return data, nil
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// decision is what the model does next: say text, or call the shell tool
// (tool names the tool, args its input).
type decision struct {
	kind string // text | tool | writer
	text string
	tool string
	// namespace is the Responses API namespace tool holding tool (Codex
	// offers each MCP server's tools as one, "mcp__<server>"), or "".
	namespace string
	args      map[string]any
}

var (
	failMark = regexp.MustCompile(`FAILCMD:<([^>]*)>`)
	fixMark  = regexp.MustCompile(`FIXCMD:<([^>]*)>`)
	// failedLine is the condensed transcript's line for a failed command.
	failedLine = regexp.MustCompile("FAILED `([^`]*)` \\(exit (\\d+)\\): ([^\n]*)")
)

// script lists the commands a prompt asks for, in order.
func script(prompt string) []string {
	m := failMark.FindStringSubmatch(prompt)
	if m == nil {
		return nil
	}
	cmds := []string{m[1]}
	if f := fixMark.FindStringSubmatch(prompt); f != nil {
		cmds = append(cmds, f[1])
	}
	return cmds
}

// toolMark asks for a call of any tool by name with JSON arguments (no
// '>' inside): TOOLCALL:<mcp__reflect__search {"query":"x"}>. Several
// are called in order, one per tool result.
var toolMark = regexp.MustCompile(`TOOLCALL:<(\S+) (\{[^>]*\})>`)

// toolCalls lists the tool calls a prompt asks for, in order; a call whose
// arguments are not a JSON object is left out. `opencode run` sends an
// argument holding spaces in double quotes, its own quotes backslashed:
// arguments that parse only once unescaped are taken that way.
func toolCalls(prompt string) []decision {
	var out []decision
	for _, m := range toolMark.FindAllStringSubmatch(prompt, -1) {
		var args map[string]any
		if json.Unmarshal([]byte(m[2]), &args) != nil &&
			json.Unmarshal([]byte(strings.ReplaceAll(m[2], `\"`, `"`)), &args) != nil {
			continue
		}
		out = append(out, decision{kind: "tool", tool: m[1], args: args})
	}
	return out
}

// nextToolCall is the model's move when the prompt asks for tool calls:
// the next call once done results came back, a text ending the turn after
// the last, or a text saying the tool was not offered (said in the answer,
// so a test sees why the call never came). ok is false when the prompt
// asks for none.
func nextToolCall(prompt string, done int, offered map[string]bool) (d decision, ok bool) {
	calls := toolCalls(prompt)
	switch {
	case len(calls) == 0:
		return decision{}, false
	case done >= len(calls):
		return decision{kind: "text", text: fmt.Sprintf("Called %d tool(s). Ending the turn.", done)}, true
	case !offered[calls[done].tool]:
		return decision{kind: "text", text: "FAKE MODEL: tool " + calls[done].tool + " was not offered."}, true
	}
	return calls[done], true
}

// WriterTitlePrefix starts the title of every learning the fake writer
// returns, so a test can tell them from the builtin writer's.
const WriterTitlePrefix = "fake writer:"

// writerAnswer is the JSON a writer must answer with, built from the first
// failed command of the transcript in the prompt.
func writerAnswer(prompt string) string {
	m := failedLine.FindStringSubmatch(prompt)
	if m == nil {
		return `{"learnings":[]}`
	}
	cmd, code, errText := m[1], m[2], m[3]
	learning := map[string]any{
		"title":       fmt.Sprintf("%s `%s` fails with exit %s", WriterTitlePrefix, cmd, code),
		"key_insight": fmt.Sprintf("`%s` failed: %s. Check the path before running it.", cmd, errText),
		"problem":     errText,
		"solution":    "Use a path that exists.",
		"confidence":  "medium",
		"category":    "debugging",
		"tags":        []string{"fake-writer"},
		"symptoms":    []string{errText},
		"entities":    []any{},
		"relations":   []any{},
		"cites":       []string{},
	}
	out, _ := json.Marshal(map[string]any{"learnings": []any{learning}})
	return string(out)
}

func isWriterPrompt(s string) bool { return strings.Contains(s, transcript.WriterPromptMarker) }

// ---------------------------------------------------------------- Anthropic

type anthropicRequest struct {
	Model    string `json:"model"`
	Stream   bool   `json:"stream"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Tools []struct {
		Name string `json:"name"`
	} `json:"tools"`
}

type anthropicBlock struct {
	Type    string `json:"type"`
	Text    string `json:"text"`
	IsError bool   `json:"is_error"`
}

func anthropicBlocks(raw json.RawMessage) (text string, results int) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, 0
	}
	var blocks []anthropicBlock
	_ = json.Unmarshal(raw, &blocks)
	var parts []string
	for _, b := range blocks {
		switch b.Type {
		case "text":
			parts = append(parts, b.Text)
		case "tool_result":
			results++
		}
	}
	return strings.Join(parts, "\n"), results
}

// decideAnthropic reads the conversation's state from its last typed user
// message: Claude Code appends system-role entries after it, and tool
// results come back as user messages.
func decideAnthropic(req anthropicRequest) decision {
	last, results := -1, 0
	for i, m := range req.Messages {
		if m.Role != "user" {
			continue
		}
		if _, n := anthropicBlocks(m.Content); n > 0 {
			continue
		}
		last = i
	}
	if last < 0 {
		return decision{kind: "text", text: "OK (fake model): no prompt."}
	}
	prompt, _ := anthropicBlocks(req.Messages[last].Content)
	if isWriterPrompt(prompt) {
		return decision{kind: "writer", text: writerAnswer(prompt)}
	}
	for _, m := range req.Messages[last+1:] {
		if m.Role == "user" {
			_, n := anthropicBlocks(m.Content)
			results += n
		}
	}
	offered := map[string]bool{}
	for _, t := range req.Tools {
		offered[t.Name] = true
	}
	if d, ok := nextToolCall(prompt, results, offered); ok {
		return d
	}
	if cmds := script(prompt); offered["Bash"] && results < len(cmds) {
		return decision{kind: "tool", tool: "Bash", args: map[string]any{"command": cmds[results], "description": "Run the requested command"}}
	}
	if results > 0 {
		return decision{kind: "text", text: fmt.Sprintf("Ran %d command(s). Ending the turn.", results)}
	}
	return decision{kind: "text", text: "OK (fake model): I read your prompt and have nothing to run."}
}

func sseEvent(w io.Writer, event string, data any) {
	b, _ := json.Marshal(data)
	fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, b)
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

func sseHeaders(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
}

func (s *Server) anthropicStream(w http.ResponseWriter, model string, d decision) {
	if model == "" {
		model = "claude-fake"
	}
	sseHeaders(w)
	sseEvent(w, "message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": s.id("msg"), "type": "message", "role": "assistant", "model": model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": 100, "output_tokens": 1, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0},
	}})
	stop := "end_turn"
	if d.kind == "tool" {
		stop = "tool_use"
		args, _ := json.Marshal(d.args)
		sseEvent(w, "content_block_start", map[string]any{"type": "content_block_start", "index": 0,
			"content_block": map[string]any{"type": "tool_use", "id": s.id("toolu"), "name": d.tool, "input": map[string]any{}}})
		sseEvent(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
			"delta": map[string]any{"type": "input_json_delta", "partial_json": string(args)}})
	} else {
		sseEvent(w, "content_block_start", map[string]any{"type": "content_block_start", "index": 0,
			"content_block": map[string]any{"type": "text", "text": ""}})
		sseEvent(w, "ping", map[string]any{"type": "ping"})
		sseEvent(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
			"delta": map[string]any{"type": "text_delta", "text": d.text}})
	}
	sseEvent(w, "content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	sseEvent(w, "message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 20}})
	sseEvent(w, "message_stop", map[string]any{"type": "message_stop"})
}

func (s *Server) anthropicJSON(w http.ResponseWriter, model string, d decision) {
	if model == "" {
		model = "claude-fake"
	}
	content := []any{map[string]any{"type": "text", "text": d.text}}
	stop := "end_turn"
	if d.kind == "tool" {
		content = []any{map[string]any{"type": "tool_use", "id": s.id("toolu"), "name": d.tool, "input": d.args}}
		stop = "tool_use"
	}
	writeJSON(w, map[string]any{"id": s.id("msg"), "type": "message", "role": "assistant", "model": model,
		"content": content, "stop_reason": stop, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": 100, "output_tokens": 20}})
}

// ---------------------------------------------------------------- OpenAI Responses

type responsesRequest struct {
	Model string            `json:"model"`
	Input []json.RawMessage `json:"input"`
	Tools []struct {
		Type  string `json:"type"`
		Name  string `json:"name"`
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"` // of a namespace
	} `json:"tools"`
}

type responsesItem struct {
	Type    string          `json:"type"`
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// contentText is a message's content as OpenAI's APIs send it (Responses
// and Chat Completions alike): a string, or text parts.
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &parts)
	var out []string
	for _, p := range parts {
		switch p.Type {
		case "input_text", "output_text", "text":
			out = append(out, p.Text)
		}
	}
	return strings.Join(out, "\n")
}

// decideResponses reads the state from the last user message: Codex puts
// hook context in developer messages after it, and tool outputs follow.
func decideResponses(req responsesRequest) decision {
	items := make([]responsesItem, len(req.Input))
	last := -1
	for i, raw := range req.Input {
		_ = json.Unmarshal(raw, &items[i])
		if items[i].Type == "message" && items[i].Role == "user" {
			last = i
		}
	}
	if last < 0 {
		return decision{kind: "text", text: "OK (fake model): no prompt."}
	}
	prompt := contentText(items[last].Content)
	if isWriterPrompt(prompt) {
		return decision{kind: "writer", text: writerAnswer(prompt)}
	}
	outputs := 0
	for _, it := range items[last+1:] {
		switch it.Type {
		case "function_call_output", "custom_tool_call_output", "local_shell_call_output":
			outputs++
		}
	}
	tools := map[string]bool{}
	// A namespace's tools are called by their own name within it; the
	// marker names them namespace__tool (mcp__reflect__search).
	inNamespace := map[string][2]string{}
	for _, t := range req.Tools {
		tools[t.Name] = true
		for _, sub := range t.Tools {
			inNamespace[t.Name+"__"+sub.Name] = [2]string{t.Name, sub.Name}
			tools[t.Name+"__"+sub.Name] = true
		}
	}
	if d, ok := nextToolCall(prompt, outputs, tools); ok {
		if ns, in := inNamespace[d.tool]; in && d.kind == "tool" {
			d.namespace, d.tool = ns[0], ns[1]
		}
		return d
	}
	cmds := script(prompt)
	if outputs < len(cmds) {
		cmd := cmds[outputs]
		switch {
		case tools["exec_command"]:
			return decision{kind: "tool", tool: "exec_command", args: map[string]any{"cmd": cmd}}
		case tools["shell_command"]:
			return decision{kind: "tool", tool: "shell_command", args: map[string]any{"command": cmd}}
		case tools["shell"]:
			return decision{kind: "tool", tool: "shell", args: map[string]any{"command": []string{"bash", "-lc", cmd}}}
		}
	}
	if outputs > 0 {
		return decision{kind: "text", text: fmt.Sprintf("Ran %d command(s). Ending the turn.", outputs)}
	}
	return decision{kind: "text", text: "OK (fake model): I read your prompt and have nothing to run."}
}

func (s *Server) responsesStream(w http.ResponseWriter, model string, d decision) {
	if model == "" {
		model = "gpt-fake"
	}
	sseHeaders(w)
	seq := 0
	ev := func(data map[string]any) {
		seq++
		data["sequence_number"] = seq
		sseEvent(w, data["type"].(string), data)
	}
	rid := s.id("resp")
	base := func(status string, output []any) map[string]any {
		return map[string]any{"id": rid, "object": "response", "created_at": time.Now().Unix(), "model": model,
			"status": status, "output": output}
	}
	ev(map[string]any{"type": "response.created", "response": base("in_progress", []any{})})
	var done map[string]any
	if d.kind == "tool" {
		fid, cid := s.id("fc"), s.id("call")
		args, _ := json.Marshal(d.args)
		added := map[string]any{"type": "function_call", "id": fid, "call_id": cid, "name": d.tool, "arguments": "", "status": "in_progress"}
		done = map[string]any{"type": "function_call", "id": fid, "call_id": cid, "name": d.tool, "arguments": string(args), "status": "completed"}
		if d.namespace != "" {
			added["namespace"], done["namespace"] = d.namespace, d.namespace
		}
		ev(map[string]any{"type": "response.output_item.added", "output_index": 0, "item": added})
		ev(map[string]any{"type": "response.function_call_arguments.delta", "item_id": fid, "output_index": 0, "delta": string(args)})
		ev(map[string]any{"type": "response.function_call_arguments.done", "item_id": fid, "output_index": 0, "arguments": string(args)})
	} else {
		mid := s.id("msg")
		ev(map[string]any{"type": "response.output_item.added", "output_index": 0, "item": map[string]any{
			"type": "message", "id": mid, "role": "assistant", "status": "in_progress", "content": []any{}}})
		ev(map[string]any{"type": "response.content_part.added", "item_id": mid, "output_index": 0, "content_index": 0,
			"part": map[string]any{"type": "output_text", "text": "", "annotations": []any{}}})
		ev(map[string]any{"type": "response.output_text.delta", "item_id": mid, "output_index": 0, "content_index": 0, "delta": d.text})
		ev(map[string]any{"type": "response.output_text.done", "item_id": mid, "output_index": 0, "content_index": 0, "text": d.text})
		done = map[string]any{"type": "message", "id": mid, "role": "assistant", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": d.text, "annotations": []any{}}}}
	}
	ev(map[string]any{"type": "response.output_item.done", "output_index": 0, "item": done})
	fin := base("completed", []any{done})
	fin["usage"] = map[string]any{"input_tokens": 100, "input_tokens_details": map[string]any{"cached_tokens": 0},
		"output_tokens": 20, "output_tokens_details": map[string]any{"reasoning_tokens": 0}, "total_tokens": 120}
	ev(map[string]any{"type": "response.completed", "response": fin})
}
