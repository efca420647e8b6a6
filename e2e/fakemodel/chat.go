package fakemodel

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// ---------------------------------------------------------------- OpenAI Chat Completions
//
// OpenCode's OpenAI-compatible providers (@ai-sdk/openai-compatible) and
// GitHub Copilot CLI's BYOK mode (COPILOT_PROVIDER_BASE_URL, wire API
// "completions") speak POST /v1/chat/completions. The same markers decide
// what the model does: FAILCMD/FIXCMD run commands with the client's shell
// tool (whatever it is called: bash for OpenCode, bash or shell for
// Copilot), TOOLCALL calls any offered tool, the writer prompt is answered
// with a learning.

type chatRequest struct {
	Model    string        `json:"model"`
	Stream   bool          `json:"stream"`
	Messages []chatMessage `json:"messages"`
	Tools    []struct {
		Type     string `json:"type"`
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
}

type chatMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	ToolCallID string          `json:"tool_call_id"`
}

// chatShellTools are the names clients give their shell tool, with the
// argument that carries the command line.
var chatShellTools = []string{"bash", "shell", "Bash", "run_shell_command"}

// decideChat reads the state from the last user message: the tool results
// that follow it are role "tool". A user message that only carries
// injected context (OpenCode adds plugin parts to the prompt's message, so
// they are part of it) does not hide the prompt.
func decideChat(req chatRequest) decision {
	last := -1
	for i, m := range req.Messages {
		if m.Role == "user" {
			last = i
		}
	}
	if last < 0 {
		return decision{kind: "text", text: "OK (fake model): no prompt."}
	}
	prompt := contentText(req.Messages[last].Content)
	if isWriterPrompt(prompt) {
		return decision{kind: "writer", text: writerAnswer(prompt)}
	}
	results := 0
	for _, m := range req.Messages[last+1:] {
		if m.Role == "tool" {
			results++
		}
	}
	offered := map[string]bool{}
	for _, t := range req.Tools {
		offered[t.Function.Name] = true
	}
	if d, ok := nextToolCall(prompt, results, offered); ok {
		return d
	}
	if cmds := script(prompt); results < len(cmds) {
		for _, name := range chatShellTools {
			if offered[name] {
				return decision{kind: "tool", tool: name, args: map[string]any{"command": cmds[results], "description": "Run the requested command"}}
			}
		}
	}
	if results > 0 {
		return decision{kind: "text", text: fmt.Sprintf("Ran %d command(s). Ending the turn.", results)}
	}
	return decision{kind: "text", text: "OK (fake model): I read your prompt and have nothing to run."}
}

// chatCompletion answers one Chat Completions request, streamed (SSE
// chunks, then [DONE]) when the client asked for it.
func (s *Server) chatCompletion(w http.ResponseWriter, req chatRequest, d decision) {
	model := req.Model
	if model == "" {
		model = "gpt-fake"
	}
	id, created := s.id("chatcmpl"), time.Now().Unix()
	msg := map[string]any{"role": "assistant", "content": d.text}
	finish := "stop"
	if d.kind == "tool" {
		args, _ := json.Marshal(d.args)
		msg = map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{
			"index": 0, "id": s.id("call"), "type": "function",
			"function": map[string]any{"name": d.tool, "arguments": string(args)}}}}
		finish = "tool_calls"
	}
	usage := map[string]any{"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}
	if !req.Stream {
		writeJSON(w, map[string]any{"id": id, "object": "chat.completion", "created": created, "model": model,
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}}, "usage": usage})
		return
	}
	sseHeaders(w)
	chunk := func(delta map[string]any, finish any, usage any) {
		c := map[string]any{"id": id, "object": "chat.completion.chunk", "created": created, "model": model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}
		if usage != nil {
			c["usage"] = usage
		}
		data, _ := json.Marshal(c)
		fmt.Fprintf(w, "data: %s\n\n", data)
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}
	chunk(map[string]any{"role": "assistant", "content": ""}, nil, nil)
	if d.kind == "tool" {
		chunk(map[string]any{"tool_calls": msg["tool_calls"]}, nil, nil)
	} else {
		chunk(map[string]any{"content": d.text}, nil, nil)
	}
	chunk(map[string]any{}, finish, usage)
	fmt.Fprint(w, "data: [DONE]\n\n")
}
