package transcript

import (
	"reflect"
	"strings"
	"testing"
)

// Gemini CLI chat records for the tables, in the shapes of Gemini CLI
// 0.61 (testdata/gemini-session.jsonl is a whole captured session).
const gHeader = `{"sessionId":"sid-g","projectHash":"abc","startTime":"t","lastUpdated":"t","kind":"main"}`

func gUser(id, text string) string {
	return `{"id":"` + id + `","timestamp":"t","type":"user","content":[{"text":` + quote(text) + `}]}`
}

func gModel(id, text, toolCalls string) string {
	s := `{"id":"` + id + `","timestamp":"t","type":"gemini","content":` + quote(text) + `,"thoughts":[]`
	if toolCalls != "" {
		s += `,"toolCalls":[` + toolCalls + `]`
	}
	return s + `}`
}

func gShell(cmd, output, status string) string {
	return `{"id":"c","name":"run_shell_command","args":{"command":` + quote(cmd) + `},"result":[{"functionResponse":{"id":"c","name":"run_shell_command","response":{"output":` +
		quote(output) + `}}}],"status":"` + status + `"}`
}

func TestGeminiParser(t *testing.T) {
	failed := "<untrusted_context>\nOutput: ls: cannot access '/nope': No such file or directory\nExit Code: 2\nProcess Group PGID: 5\n</untrusted_context>"
	ok := "<untrusted_context>\nOutput: a\nb\nProcess Group PGID: 6\n</untrusted_context>"
	tests := []struct {
		name  string
		jsonl string
		want  []string
		files []string
	}{{
		name: "a record written again under its id counts once, in its last version",
		jsonl: lines(gHeader, gUser("u1", "list the cache"),
			gModel("m1", "", ""), `{"$set":{"lastUpdated":"t"}}`,
			gModel("m1", "", gShell("ls /nope", failed, "success")),
			`{"id":"u2","timestamp":"t","type":"user","content":[{"functionResponse":{"id":"c","name":"run_shell_command","response":{"output":"x"}}}]}`,
			gModel("m2", "Done.", "")),
		want: []string{"user: list the cache", "failed(2) ls /nope: ls: cannot access '/nope': No such file or directory", "assistant: Done."},
	}, {
		name: "a failure then its fix",
		jsonl: lines(gUser("u1", "x"), gModel("m1", "", gShell("ls /nope", failed, "success")),
			gModel("m2", "", gShell("ls /tmp", ok, "success"))),
		want: []string{"user: x", "failed(2) ls /nope: ls: cannot access '/nope': No such file or directory", "ok ls /tmp: a"},
	}, {
		name: "hook context and the session context are not what the user typed",
		jsonl: lines(
			`{"$set":{"messages":[{"id":"s0","type":"user","content":[{"text":"<session_context>\nThis is the Gemini CLI.\n</session_context>"}]}]}}`,
			gUser("u1", "<hook_context>&lt;reflect-learnings&gt;\n- [high] Widget cache (lrn-x)\n&lt;/reflect-learnings&gt;</hook_context>\n\nwhere is the widget cache?"),
			gUser("u2", "<hook_context>&lt;reflect-learnings&gt;\nstill relevant: lrn-x\n&lt;/reflect-learnings&gt;</hook_context>")),
		want: []string{"user: where is the widget cache?"},
	}, {
		name: "a resumed session's $set of every message adds only what is new",
		jsonl: lines(gHeader, gUser("u1", "first"), gModel("m1", "One.", ""),
			`{"$set":{"sessionId":"sid-g"}}`,
			`{"$set":{"messages":[{"id":"u1","type":"user","content":[{"text":"first"}]},{"id":"m1","type":"gemini","content":"One."}],"lastUpdated":"t"}}`,
			gUser("u2", "second"), gModel("m2", "Two.", "")),
		want: []string{"user: first", "assistant: One.", "user: second", "assistant: Two."},
	}, {
		name: "file edits and a tool that errored",
		jsonl: lines(gUser("u1", "edit"),
			gModel("m1", "Edited.", `{"id":"w","name":"write_file","args":{"file_path":"/repo/a.go","content":"x"},"result":[],"status":"success"}`+
				`,{"id":"r","name":"read_file","args":{"absolute_path":"/repo/missing.go"},"result":[{"functionResponse":{"response":{"error":"File not found."}}}],"status":"error"}`)),
		// The model's text comes before its tool calls in one message.
		want:  []string{"user: edit", "assistant: Edited. [/repo/a.go]", "failed(-1) read_file /repo/missing.go: File not found."},
		files: []string{"/repo/a.go"},
	}, {
		name: "non-JSON, unknown shapes and a truncated last line",
		jsonl: strings.Join([]string{
			`garbage`, `{"$set":"not an object"}`, `{"id":"q","type":"info","content":"Update available"}`,
			`{"id":"z","type":"gemini","content":{"odd":true},"toolCalls":"nope"}`,
			gUser("u1", "kept"), `{"id":"u9","type":"user","content":[{"text":"cut`,
		}, "\n"),
		want: []string{"user: kept"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := condenseString(t, "gemini", tt.jsonl, Limits{})
			if got := briefs(c.Events); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("events:\n got %q\nwant %q", got, tt.want)
			}
			if !reflect.DeepEqual(c.Files, tt.files) {
				t.Errorf("files = %q, want %q", c.Files, tt.files)
			}
		})
	}
}

// The captured session (Gemini CLI 0.61 against the fake model: a failed
// ls, then the user's correction in the resumed session) is detected as
// Gemini's, and condenses to the failure and the correction once each.
func TestGeminiCapturedSession(t *testing.T) {
	c, err := Condense("testdata/gemini-session.jsonl", "", Limits{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"user: Where does sprocket read its configuration from? Show it. FAILCMD:<ls /nonexistent/widget-cache>",
		"failed(2) ls /nonexistent/widget-cache: ls: cannot access '/nonexistent/widget-cache': No such file or directory",
		"assistant: Ran 1 command(s). Ending the turn.",
		"user: no, use ls /var/cache/widget instead, the cache is not under /nonexistent",
		"assistant: OK (fake model): I read your prompt and have nothing to run.",
	}
	if c.Harness != "gemini" || c.SessionID != "53e0fb2d-02fe-4555-a75b-0f478d419ca4" || c.Skip != "" {
		t.Errorf("harness %q session %q skip %q", c.Harness, c.SessionID, c.Skip)
	}
	if got := briefs(c.Events); !reflect.DeepEqual(got, want) {
		t.Errorf("events:\n got %q\nwant %q", got, want)
	}
	if strings.Contains(c.Text, "reflect-learnings") || strings.Contains(c.Text, "hook_context") {
		t.Errorf("injected context reached the writer's text:\n%s", c.Text)
	}
}
