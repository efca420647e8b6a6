package fakemodel

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reflectkb/reflect/transcript"
)

func post(t *testing.T, url, body string) string {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// sseData returns the data payloads of an SSE stream.
func sseData(t *testing.T, stream string) []map[string]any {
	t.Helper()
	var out []map[string]any
	sc := bufio.NewScanner(strings.NewReader(stream))
	for sc.Scan() {
		if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			var m map[string]any
			if err := json.Unmarshal([]byte(d), &m); err != nil {
				t.Fatalf("bad SSE data %q: %v", d, err)
			}
			out = append(out, m)
		}
	}
	return out
}

func start(t *testing.T) *Server {
	t.Helper()
	s, err := Start(filepath.Join(t.TempDir(), "requests.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestAnthropicScriptedToolCalls(t *testing.T) {
	s := start(t)
	url := s.URL() + "/v1/messages"
	prompt := `{"role":"user","content":[{"type":"text","text":"go FAILCMD:<ls /nope> FIXCMD:<ls /tmp>"}]}`
	tools := `"tools":[{"name":"Bash"}]`
	first := sseData(t, post(t, url, `{"stream":true,`+tools+`,"messages":[`+prompt+`,{"role":"system","content":"ctx"}]}`))
	if got := first[1]["content_block"].(map[string]any); got["type"] != "tool_use" || got["name"] != "Bash" {
		t.Fatalf("first answer is not a Bash call: %v", first)
	}
	if !strings.Contains(first[2]["delta"].(map[string]any)["partial_json"].(string), "ls /nope") {
		t.Errorf("first call does not run the failing command: %v", first[2])
	}
	result := `{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","is_error":true}]}`
	second := sseData(t, post(t, url, `{"stream":true,`+tools+`,"messages":[`+prompt+`,`+result+`]}`))
	if !strings.Contains(second[2]["delta"].(map[string]any)["partial_json"].(string), "ls /tmp") {
		t.Errorf("second call does not run the fix: %v", second[2])
	}
	third := post(t, url, `{"stream":false,`+tools+`,"messages":[`+prompt+`,`+result+`,`+result+`]}`)
	if !strings.Contains(third, `"stop_reason":"end_turn"`) {
		t.Errorf("third answer does not end the turn: %s", third)
	}
	if n := len(s.Requests()); n != 3 {
		t.Errorf("recorded %d requests, want 3", n)
	}
}

func TestResponsesScriptedToolCall(t *testing.T) {
	s := start(t)
	url := s.URL() + "/v1/responses"
	body := `{"tools":[{"type":"function","name":"exec_command"}],"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"FAILCMD:<cat /nope>"}]},{"type":"message","role":"developer","content":[{"type":"input_text","text":"ctx"}]}]}`
	evs := sseData(t, post(t, url, body))
	var done map[string]any
	for _, e := range evs {
		if e["type"] == "response.output_item.done" {
			done = e["item"].(map[string]any)
		}
	}
	if done["type"] != "function_call" || done["name"] != "exec_command" || !strings.Contains(done["arguments"].(string), "cat /nope") {
		t.Fatalf("not an exec_command call: %v", done)
	}
	if evs[len(evs)-1]["type"] != "response.completed" {
		t.Errorf("stream does not end with response.completed: %v", evs[len(evs)-1])
	}
}

func TestWriterPromptGetsALearning(t *testing.T) {
	s := start(t)
	prompt := transcript.WriterPromptMarker + "\n<transcript>\nUSER: list it\nFAILED `ls /nope` (exit 2): ls: cannot access '/nope'\n</transcript>"
	msg, _ := json.Marshal(map[string]any{"messages": []any{map[string]any{"role": "user", "content": prompt}}})
	out := post(t, s.URL()+"/v1/messages", string(msg))
	var m struct {
		Content []struct{ Text string } `json:"content"`
	}
	if err := json.Unmarshal([]byte(out), &m); err != nil || len(m.Content) != 1 {
		t.Fatalf("%s: %v", out, err)
	}
	var ans struct {
		Learnings []struct{ Title string } `json:"learnings"`
	}
	if err := json.Unmarshal([]byte(m.Content[0].Text), &ans); err != nil || len(ans.Learnings) != 1 ||
		!strings.HasPrefix(ans.Learnings[0].Title, WriterTitlePrefix) || !strings.Contains(ans.Learnings[0].Title, "ls /nope") {
		t.Errorf("writer answer %s: %v", m.Content[0].Text, err)
	}
}

func TestAnthropicToolCallMarkers(t *testing.T) {
	s := start(t)
	url := s.URL() + "/v1/messages"
	prompt := `{"role":"user","content":[{"type":"text","text":"TOOLCALL:<mcp__reflect__search {\"query\":\"widget cache\"}> then TOOLCALL:<mcp__reflect__remember {\"title\":\"t\",\"key_insight\":\"k\"}>"}]}`
	tools := `"tools":[{"name":"Bash"},{"name":"mcp__reflect__search"},{"name":"mcp__reflect__remember"}]`
	first := post(t, url, `{"stream":false,`+tools+`,"messages":[`+prompt+`]}`)
	if !strings.Contains(first, `"name":"mcp__reflect__search"`) || !strings.Contains(first, `"query":"widget cache"`) {
		t.Fatalf("first answer is not the search call: %s", first)
	}
	result := `{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"x","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1"}]}`
	second := sseData(t, post(t, url, `{"stream":true,`+tools+`,"messages":[`+prompt+`,`+result+`]}`))
	if got := second[1]["content_block"].(map[string]any); got["name"] != "mcp__reflect__remember" {
		t.Fatalf("second answer is not the remember call: %v", second)
	}
	if third := post(t, url, `{"stream":false,`+tools+`,"messages":[`+prompt+`,`+result+`,`+result+`]}`); !strings.Contains(third, `"stop_reason":"end_turn"`) {
		t.Errorf("third answer does not end the turn: %s", third)
	}
	// A tool the client did not offer is not called; the answer says so.
	none := post(t, url, `{"stream":false,"tools":[{"name":"Bash"}],"messages":[`+prompt+`]}`)
	if !strings.Contains(none, "mcp__reflect__search was not offered") || strings.Contains(none, "tool_use") {
		t.Errorf("unoffered tool: %s", none)
	}
}

// `opencode run` quotes an argument with spaces and backslashes its
// quotes: the marker's arguments are read either way; garbage is not.
func TestToolCallsEscapedByOpenCode(t *testing.T) {
	calls := toolCalls(`"Check. TOOLCALL:<reflect_search {\"query\":\"widget cache\"}> TOOLCALL:<x {not json}> TOOLCALL:<reflect_get {"id":"a"}>"`)
	if len(calls) != 2 || calls[0].tool != "reflect_search" || calls[0].args["query"] != "widget cache" ||
		calls[1].tool != "reflect_get" || calls[1].args["id"] != "a" {
		t.Fatalf("calls = %+v", calls)
	}
}

// Codex offers an MCP server's tools inside a Responses namespace tool:
// TOOLCALL:<mcp__reflect__search …> calls search within mcp__reflect, the
// turn ends once both results are back, and a tool in no namespace and
// not offered is said to be missing.
func TestResponsesCallsToolsInANamespace(t *testing.T) {
	req := func(body string) responsesRequest {
		var r responsesRequest
		if err := json.Unmarshal([]byte(body), &r); err != nil {
			t.Fatal(err)
		}
		return r
	}
	tools := `"tools":[{"type":"namespace","name":"mcp__reflect","tools":[{"type":"function","name":"search"}]}]`
	prompt := `{"type":"message","role":"user","content":[{"type":"input_text","text":"TOOLCALL:<mcp__reflect__search {\"query\":\"x\"}> TOOLCALL:<mcp__other__get {\"id\":\"y\"}>"}]}`
	d := decideResponses(req(`{` + tools + `,"input":[` + prompt + `]}`))
	if d.kind != "tool" || d.namespace != "mcp__reflect" || d.tool != "search" || d.args["query"] != "x" {
		t.Fatalf("first call = %+v", d)
	}
	d = decideResponses(req(`{` + tools + `,"input":[` + prompt + `,{"type":"function_call_output","output":"ok"}]}`))
	if d.kind != "text" || !strings.Contains(d.text, "mcp__other__get was not offered") {
		t.Fatalf("second call = %+v", d)
	}
	d = decideResponses(req(`{` + tools + `,"input":[` + prompt + `,{"type":"function_call_output"},{"type":"function_call_output"}]}`))
	if d.kind != "text" || !strings.Contains(d.text, "Called 2 tool(s)") {
		t.Fatalf("after both = %+v", d)
	}
}
