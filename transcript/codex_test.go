package transcript

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// Codex record builders for the tables.
func xItem(payload string) string {
	return `{"timestamp":"t","type":"response_item","payload":` + payload + `}`
}
func xEvent(payload string) string {
	return `{"timestamp":"t","type":"event_msg","payload":` + payload + `}`
}
func xUser(text string) string {
	return xItem(`{"type":"message","role":"user","content":[{"type":"input_text","text":` + quote(text) + `}]}`)
}
func xUserMsg(text string) string {
	return xEvent(`{"type":"user_message","message":` + quote(text) + `,"images":[]}`)
}
func xCall(id, name, args string) string {
	return xItem(`{"type":"function_call","name":"` + name + `","arguments":` + quote(args) + `,"call_id":"` + id + `"}`)
}
func xOutput(id, output string) string {
	return xItem(`{"type":"function_call_output","call_id":"` + id + `","output":` + output + `}`)
}

const xMeta = `{"timestamp":"t","type":"session_meta","payload":{"id":"sid-1","cwd":"/repo","git":{"branch":"feat/x"}}}`

func TestCodexParser(t *testing.T) {
	tests := []struct {
		name  string
		jsonl string
		want  []string
		files []string
	}{{
		name:  "prompt recorded twice is kept once, in either order",
		jsonl: lines(xMeta, xUser("add refresh tokens"), xUserMsg("add refresh tokens"), xUserMsg("second"), xUser("second")),
		want:  []string{"user: add refresh tokens", "user: second"},
	}, {
		name: "the same prompt again after work is a new prompt",
		jsonl: lines(xUser("continue"), xCall("c1", "shell_command", `{"command":"ls"}`), xOutput("c1", quote("Exit code: 0\nOutput:\na")),
			xUser("continue")),
		want: []string{"user: continue", "user: continue"},
	}, {
		name: "environment context and AGENTS.md instructions are not prompts",
		jsonl: lines(
			xUser("<environment_context>\n  <cwd>/repo</cwd>\n</environment_context>"),
			xUser("# AGENTS.md instructions for /repo\n\n<INSTRUCTIONS>\nbe nice\n</INSTRUCTIONS>"),
			xUser("<user_instructions>\nuse tabs\n</user_instructions>"),
			xItem(`{"type":"message","role":"developer","content":[{"type":"input_text","text":"<permissions instructions>"}]}`),
			xUser("the real prompt")),
		want: []string{"user: the real prompt"},
	}, {
		name: "shell output with an Exit code header",
		jsonl: lines(xUser("test"),
			xCall("c1", "shell_command", `{"command":"go test ./..."}`),
			xOutput("c1", quote("Exit code: 1\nWall time: 2.1 seconds\nOutput:\n--- FAIL: TestRefresh (0.00s)\n    refresh_test.go:31: token expired")),
			xCall("c2", "shell_command", `{"command":"go test ./..."}`),
			xOutput("c2", quote("Exit code: 0\nWall time: 1.9 seconds\nOutput:\nok  \tauth/refresh\t0.22s"))),
		want: []string{"user: test",
			"failed(1) go test ./...: --- FAIL: TestRefresh (0.00s) | refresh_test.go:31: token expired",
			"ok go test ./...: ok auth/refresh 0.22s"},
	}, {
		name: "argv command and output as a JSON string with metadata",
		jsonl: lines(xUser("build"),
			xCall("c1", "shell", `{"command":["bash","-lc","cargo build"],"workdir":"/repo"}`),
			xOutput("c1", quote(`{"output":"error[E0425]: cannot find value x","metadata":{"exit_code":101,"duration_seconds":0.5}}`))),
		want: []string{"user: build", "failed(101) cargo build: error[E0425]: cannot find value x"},
	}, {
		name: "output as an object with exit_code",
		jsonl: lines(xUser("lint"),
			xCall("c1", "shell", `{"command":["npm","run","lint"]}`),
			xOutput("c1", `{"exit_code":2,"output":"npm ERR! lint failed","stderr":"extra"}`)),
		want: []string{"user: lint", "failed(2) npm run lint: npm ERR! lint failed | extra"},
	}, {
		name: "output object with success false, and content items",
		jsonl: lines(xUser("x"),
			xCall("c1", "mcp__db__query", `{"sql":"select 1"}`),
			xOutput("c1", `{"content":"relation does not exist","success":false}`),
			xCall("c2", "view_image", `{}`),
			xOutput("c2", `[{"type":"input_text","text":"fine"}]`)),
		want: []string{"user: x", "failed(-1) mcp__db__query: relation does not exist"},
	}, {
		name: "exec_command with a process exit line",
		jsonl: lines(xUser("x"),
			xCall("c1", "exec_command", `{"cmd":"pytest -q","yield_time_ms":1000}`),
			xOutput("c1", quote("Chunk ID: 1\nWall time: 1.0 seconds\nProcess exited with code 1\nOriginal token count: 20\nOutput:\nE   AssertionError: 1 != 2"))),
		want: []string{"user: x", "failed(1) pytest -q: E AssertionError: 1 != 2"},
	}, {
		name: "apply_patch as a custom tool call edits files",
		jsonl: lines(xMeta, xUser("patch it"),
			xItem(`{"type":"custom_tool_call","name":"apply_patch","call_id":"p1","input":"*** Begin Patch\n*** Update File: refresh/token.go\n@@\n-a\n+b\n*** Add File: refresh/clock.go\n+package refresh\n*** End Patch"}`),
			xItem(`{"type":"custom_tool_call_output","call_id":"p1","output":"Success. Updated the following files:\nM refresh/token.go"}`),
			xItem(`{"type":"custom_tool_call","name":"apply_patch","call_id":"p2","input":"*** Begin Patch\n*** Update File: /repo/missing.go\n*** End Patch"}`),
			xItem(`{"type":"custom_tool_call_output","call_id":"p2","output":"apply_patch verification failed: missing.go not found"}`),
			xEvent(`{"type":"agent_message","message":"Patched."}`)),
		want: []string{"user: patch it",
			"failed(-1) apply_patch /repo/missing.go: apply_patch verification failed: missing.go not found",
			"assistant: Patched. [refresh/token.go,refresh/clock.go]"},
		files: []string{"refresh/token.go", "refresh/clock.go"},
	}, {
		name: "local_shell_call",
		jsonl: lines(xUser("x"),
			xItem(`{"type":"local_shell_call","call_id":"l1","status":"completed","action":{"type":"exec","command":["make","lint"]}}`),
			xOutput("l1", quote("Exit code: 2\nOutput:\nmake: *** [lint] Error 1"))),
		want: []string{"user: x", "failed(2) make lint: make: *** [lint] Error 1"},
	}, {
		name: "assistant message and its agent_message copy give one answer",
		jsonl: lines(xUser("x"),
			xItem(`{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Done."}]}`),
			xEvent(`{"type":"agent_message","message":"Done."}`),
			xEvent(`{"type":"token_count","info":null}`)),
		want: []string{"user: x", "assistant: Done."},
	}, {
		name: "unknown types, non-JSON, odd payloads, truncated last line",
		jsonl: strings.Join([]string{
			`garbage`,
			`{"type":"brand_new_record","payload":{"x":1}}`,
			`{"type":"response_item","payload":"not an object"}`,
			`{"type":"response_item"}`,
			`{"type":"response_item","payload":{"type":"message","role":"user","content":"plain string content"}}`,
			`{"type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"not json","call_id":"z"}}`,
			`{"type":"response_item","payload":{"type":"function_call_output","call_id":"z","output":{"weird":true}}}`,
			xUser("kept"),
			`{"type":"event_msg","payload":{"type":"user_message","message":"cut`,
		}, "\n"),
		want: []string{"user: plain string content", "user: kept"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := condenseString(t, "codex", tt.jsonl, Limits{})
			if got := briefs(c.Events); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("events:\n got %q\nwant %q", got, tt.want)
			}
			if !reflect.DeepEqual(c.Files, tt.files) {
				t.Errorf("files = %q, want %q", c.Files, tt.files)
			}
		})
	}
}

func TestCodexMetadata(t *testing.T) {
	c := condenseString(t, "", lines(xMeta, xUser("hello")), Limits{})
	if c.Harness != "codex" || c.SessionID != "sid-1" || c.Cwd != "/repo" || c.Branch != "feat/x" {
		t.Errorf("got harness %q session %q cwd %q branch %q", c.Harness, c.SessionID, c.Cwd, c.Branch)
	}
}

// A shell command's completion is read from the rollout's tail in both
// record shapes, the last one for the call winning; other calls, records
// without an exit code and missing files give nothing.
func TestFindCodexCompletion(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rollout.jsonl")
	rollout := lines(xMeta,
		xEvent(`{"type":"exec_command_end","call_id":"old","exit_code":2,"aggregated_output":"","stderr":"make: *** No rule"}`),
		xEvent(`{"type":"item_completed","item":{"type":"CommandExecution","id":"c1","status":"failed","exit_code":1,"aggregated_output":"first"}}`),
		xEvent(`{"type":"item_completed","item":{"type":"CommandExecution","id":"c1","status":"failed","exit_code":3,"aggregated_output":"second"}}`),
		xEvent(`{"type":"item_completed","item":{"type":"CommandExecution","id":"running"}}`),
		xEvent(`{"type":"item_completed","item":{"type":"AgentMessage","id":"m1","exit_code":0}}`),
	)
	if err := os.WriteFile(path, []byte(rollout), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		id   string
		want CommandCompletion
		ok   bool
	}{
		{"c1", CommandCompletion{ExitCode: 3, Output: "second"}, true},
		{"old", CommandCompletion{ExitCode: 2, Output: "make: *** No rule"}, true},
		{"running", CommandCompletion{}, false},
		{"m1", CommandCompletion{}, false},
		{"absent", CommandCompletion{}, false},
	} {
		got, ok := FindCodexCompletion(path, tt.id)
		if ok != tt.ok || got != tt.want {
			t.Errorf("%s: %+v %v, want %+v %v", tt.id, got, ok, tt.want, tt.ok)
		}
	}
	if _, ok := FindCodexCompletion(filepath.Join(t.TempDir(), "missing.jsonl"), "c1"); ok {
		t.Error("a missing rollout gave a completion")
	}
}
