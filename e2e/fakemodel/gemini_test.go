package fakemodel

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/reflectkb/reflect/transcript"
)

// geminiParts returns the parts of the first candidate of one
// GenerateContentResponse.
func geminiParts(t *testing.T, body string) []map[string]any {
	t.Helper()
	var r struct {
		Candidates []struct {
			Content struct {
				Role  string           `json:"role"`
				Parts []map[string]any `json:"parts"`
			} `json:"content"`
			FinishReason string `json:"finishReason"`
		} `json:"candidates"`
	}
	if err := json.Unmarshal([]byte(body), &r); err != nil || len(r.Candidates) != 1 || r.Candidates[0].Content.Role != "model" {
		t.Fatalf("not one model candidate: %s (%v)", body, err)
	}
	return r.Candidates[0].Content.Parts
}

// The Gemini API, as Gemini CLI calls it: the prompt (with hook context
// around it, in the same user turn) asks for a failing command and its
// fix; tool results come back as functionResponse parts of user turns.
func TestGeminiScriptedToolCalls(t *testing.T) {
	s := start(t)
	stream := s.URL() + "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse"
	tools := `"tools":[{"functionDeclarations":[{"name":"run_shell_command"},{"name":"read_file"}]}]`
	prompt := `{"role":"user","parts":[{"text":"<hook_context>ctx</hook_context>\n\ngo FAILCMD:<ls /nope> FIXCMD:<ls /tmp>"},{"text":"<hook_context>more</hook_context>"}]}`
	first := sseData(t, post(t, stream, `{"contents":[`+prompt+`],`+tools+`}`))
	if len(first) != 1 {
		t.Fatalf("stream chunks: %v", first)
	}
	raw, _ := json.Marshal(first[0])
	call, _ := geminiParts(t, string(raw))[0]["functionCall"].(map[string]any)
	if call["name"] != "run_shell_command" || call["args"].(map[string]any)["command"] != "ls /nope" {
		t.Fatalf("first answer is not the failing command: %s", raw)
	}
	result := `{"role":"model","parts":[{"functionCall":{"name":"run_shell_command","args":{}}}]},{"role":"user","parts":[{"functionResponse":{"name":"run_shell_command","response":{"output":"Exit Code: 2"}}}]}`
	second := post(t, s.URL()+"/v1beta/models/gemini-2.5-pro:generateContent", `{"contents":[`+prompt+`,`+result+`],`+tools+`}`)
	call, _ = geminiParts(t, second)[0]["functionCall"].(map[string]any)
	if call["name"] != "run_shell_command" || call["args"].(map[string]any)["command"] != "ls /tmp" {
		t.Fatalf("second answer is not the fix: %s", second)
	}
	third := post(t, s.URL()+"/v1beta/models/gemini-2.5-pro:generateContent", `{"contents":[`+prompt+`,`+result+`,`+result+`],`+tools+`}`)
	if text, _ := geminiParts(t, third)[0]["text"].(string); !strings.Contains(text, "Ran 2 command(s)") {
		t.Errorf("third answer does not end the turn: %s", third)
	}
	// Without the shell tool offered, no call is made.
	none := post(t, s.URL()+"/v1beta/models/gemini-2.5-pro:generateContent", `{"contents":[`+prompt+`]}`)
	if _, isCall := geminiParts(t, none)[0]["functionCall"]; isCall {
		t.Errorf("called a tool that was not offered: %s", none)
	}
	replies := []string{}
	for _, r := range s.Requests() {
		replies = append(replies, r.Reply)
	}
	if strings.Join(replies, ",") != "tool,tool,text,text" {
		t.Errorf("recorded replies %v", replies)
	}
}

// Gemini CLI's side calls: token counts, and JSON-mode requests (its
// model router) that get "{}" so the client falls back to its default;
// the writer prompt still gets a learning.
func TestGeminiSideCallsAndWriter(t *testing.T) {
	s := start(t)
	base := s.URL() + "/v1beta/models/gemini-2.5-flash"
	if out := post(t, base+":countTokens", `{"contents":[]}`); !strings.Contains(out, `"totalTokens":100`) {
		t.Errorf("countTokens: %s", out)
	}
	router := `{"contents":[{"role":"user","parts":[{"text":"FAILCMD:<ls /nope>"}]}],"generationConfig":{"responseMimeType":"application/json"}}`
	if text, _ := geminiParts(t, post(t, base+":generateContent", router))[0]["text"].(string); text != "{}" {
		t.Errorf("JSON-mode side call answered %q, want {}", text)
	}
	prompt := transcript.WriterPromptMarker + "\n<transcript>\nFAILED `ls /nope` (exit 2): ls: cannot access '/nope'\n</transcript>"
	msg, _ := json.Marshal(map[string]any{
		"contents":         []any{map[string]any{"role": "user", "parts": []any{map[string]any{"text": prompt}}}},
		"generationConfig": map[string]any{"responseMimeType": "application/json"},
	})
	text, _ := geminiParts(t, post(t, base+":generateContent", string(msg)))[0]["text"].(string)
	if !strings.Contains(text, WriterTitlePrefix) || !strings.Contains(text, "ls /nope") {
		t.Errorf("writer answer %q", text)
	}
}
