package fakemodel

import (
	"bufio"
	"encoding/json"
	"strings"
	"testing"

	"github.com/reflectkb/reflect/transcript"
)

// chatChunks decodes a Chat Completions SSE stream, which must end with
// data: [DONE].
func chatChunks(t *testing.T, stream string) []map[string]any {
	t.Helper()
	var out []map[string]any
	done := false
	sc := bufio.NewScanner(strings.NewReader(stream))
	for sc.Scan() {
		d, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		if d == "[DONE]" {
			done = true
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(d), &m); err != nil {
			t.Fatalf("bad SSE data %q: %v", d, err)
		}
		out = append(out, m)
	}
	if !done {
		t.Fatalf("stream does not end with [DONE]:\n%s", stream)
	}
	return out
}

// streamedCall returns the tool name and arguments of a streamed tool
// call, or the streamed text.
func streamed(t *testing.T, chunks []map[string]any) (tool, args, text, finish string) {
	t.Helper()
	for _, c := range chunks {
		ch := c["choices"].([]any)[0].(map[string]any)
		if f, ok := ch["finish_reason"].(string); ok {
			finish = f
		}
		delta := ch["delta"].(map[string]any)
		if s, ok := delta["content"].(string); ok {
			text += s
		}
		if calls, ok := delta["tool_calls"].([]any); ok {
			fn := calls[0].(map[string]any)["function"].(map[string]any)
			tool, args = fn["name"].(string), fn["arguments"].(string)
		}
	}
	return
}

func TestChatCompletionsScriptedCommands(t *testing.T) {
	s := start(t)
	url := s.URL() + "/v1/chat/completions"
	tools := `"tools":[{"type":"function","function":{"name":"read"}},{"type":"function","function":{"name":"bash"}}]`
	user := `{"role":"system","content":"sys"},{"role":"user","content":[{"type":"text","text":"go FAILCMD:<ls /nope> FIXCMD:<ls /tmp>"},{"type":"text","text":"<reflect-learnings>x</reflect-learnings>"}]}`

	tool, args, _, finish := streamed(t, chatChunks(t, post(t, url, `{"model":"m","stream":true,`+tools+`,"messages":[`+user+`]}`)))
	if tool != "bash" || !strings.Contains(args, `"command":"ls /nope"`) || finish != "tool_calls" {
		t.Fatalf("first turn: tool %q args %s finish %q; want bash running ls /nope", tool, args, finish)
	}
	one := user + `,{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"bash","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c1","content":"No such file"}`
	tool, args, _, _ = streamed(t, chatChunks(t, post(t, url, `{"stream":true,`+tools+`,"messages":[`+one+`]}`)))
	if tool != "bash" || !strings.Contains(args, `"command":"ls /tmp"`) {
		t.Fatalf("after one result: tool %q args %s; want the fix command", tool, args)
	}
	two := one + `,{"role":"assistant","content":null,"tool_calls":[{"id":"c2","type":"function","function":{"name":"bash","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c2","content":"ok"}`
	tool, _, text, finish := streamed(t, chatChunks(t, post(t, url, `{"stream":true,`+tools+`,"messages":[`+two+`]}`)))
	if tool != "" || !strings.Contains(text, "Ran 2 command(s)") || finish != "stop" {
		t.Fatalf("after both results: tool %q text %q finish %q; want the turn to end", tool, text, finish)
	}
	reqs := s.Requests()
	if len(reqs) != 3 || reqs[0].Reply != "tool" || reqs[2].Reply != "text" || reqs[0].Path != "/v1/chat/completions" {
		t.Fatalf("recorded %+v", reqs)
	}
}

func TestChatCompletionsShellToolName(t *testing.T) {
	s := start(t)
	// Copilot CLI may call its shell tool "shell"; no shell tool at all
	// means a text answer, not a call of a tool the client lacks.
	body := `{"stream":true,"tools":[{"type":"function","function":{"name":"shell"}}],"messages":[{"role":"user","content":"FAILCMD:<false>"}]}`
	if tool, _, _, _ := streamed(t, chatChunks(t, post(t, s.URL()+"/v1/chat/completions", body))); tool != "shell" {
		t.Fatalf("tool %q, want shell", tool)
	}
	body = `{"stream":true,"tools":[{"type":"function","function":{"name":"read"}}],"messages":[{"role":"user","content":"FAILCMD:<false>"}]}`
	if tool, _, text, _ := streamed(t, chatChunks(t, post(t, s.URL()+"/v1/chat/completions", body))); tool != "" || text == "" {
		t.Fatalf("tool %q text %q, want text only", tool, text)
	}
}

func TestChatCompletionsToolCallMarkerAndJSON(t *testing.T) {
	s := start(t)
	body := `{"tools":[{"type":"function","function":{"name":"reflect_search"}}],"messages":[{"role":"user","content":"TOOLCALL:<reflect_search {\"query\":\"x\"}>"}]}`
	var resp struct {
		Object  string `json:"object"`
		Choices []struct {
			Message struct {
				ToolCalls []struct {
					Function struct{ Name, Arguments string } `json:"function"`
				} `json:"tool_calls"`
			} `json:"message"`
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
	}
	if err := json.Unmarshal([]byte(post(t, s.URL()+"/v1/chat/completions", body)), &resp); err != nil {
		t.Fatal(err)
	}
	if resp.Object != "chat.completion" || len(resp.Choices) != 1 || len(resp.Choices[0].Message.ToolCalls) != 1 ||
		resp.Choices[0].Message.ToolCalls[0].Function.Name != "reflect_search" ||
		resp.Choices[0].Message.ToolCalls[0].Function.Arguments != `{"query":"x"}` || resp.Choices[0].FinishReason != "tool_calls" {
		t.Fatalf("non-streamed answer %+v", resp)
	}
}

func TestChatCompletionsWriterPrompt(t *testing.T) {
	s := start(t)
	prompt, _ := json.Marshal(transcript.WriterPromptMarker + "\n<transcript>\nUSER: list it\nFAILED `ls /nope` (exit 2): ls: cannot access '/nope'\n</transcript>")
	body := `{"stream":true,"messages":[{"role":"user","content":` + string(prompt) + `}]}`
	_, _, text, _ := streamed(t, chatChunks(t, post(t, s.URL()+"/v1/chat/completions", body)))
	if !strings.Contains(text, WriterTitlePrefix) {
		t.Fatalf("writer prompt answered %q", text)
	}
}
