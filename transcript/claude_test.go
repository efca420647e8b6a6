package transcript

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// condenseString condenses a transcript given as text.
func condenseString(t testing.TB, harness, jsonl string, lim Limits) *Condensed {
	t.Helper()
	path := filepath.Join(t.TempDir(), "transcript.jsonl")
	if err := os.WriteFile(path, []byte(jsonl), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := Condense(path, harness, lim)
	if err != nil {
		t.Fatalf("Condense: %v", err)
	}
	return c
}

// brief renders an event on one line for comparisons.
func brief(ev Event) string {
	files := ""
	if len(ev.Files) > 0 {
		files = " [" + strings.Join(ev.Files, ",") + "]"
	}
	switch ev.Kind {
	case UserPrompt:
		return "user: " + ev.Text
	case AssistantFinal:
		return "assistant: " + ev.Text + files
	case ToolFailed:
		return fmt.Sprintf("failed(%d) %s: %s", ev.ExitCode, ev.Command, ev.Text)
	case ToolSucceeded:
		return "ok " + ev.Command + ": " + ev.Text + files
	}
	return string(ev.Kind) + ": " + ev.Text
}

func briefs(evs []Event) []string {
	out := []string{}
	for _, ev := range evs {
		out = append(out, brief(ev))
	}
	return out
}

// Claude record builders for the tables.
const claudeMeta = `"sessionId":"s1","cwd":"/repo","gitBranch":"main"`

func cUser(content string) string {
	return `{"type":"user",` + claudeMeta + `,"message":{"role":"user","content":` + content + `}}`
}

func cAsst(content string) string {
	return `{"type":"assistant",` + claudeMeta + `,"message":{"role":"assistant","content":` + content + `}}`
}

func cBash(id, cmd string) string {
	return cAsst(`[{"type":"tool_use","id":"` + id + `","name":"Bash","input":{"command":` + quote(cmd) + `}}]`)
}

func cResult(id, content string, isError bool) string {
	return cUser(fmt.Sprintf(`[{"type":"tool_result","tool_use_id":%q,"content":%s,"is_error":%v}]`, id, content, isError))
}

func quote(s string) string { return fmt.Sprintf("%q", s) }

func lines(ls ...string) string { return strings.Join(ls, "\n") + "\n" }

func TestClaudeParser(t *testing.T) {
	tests := []struct {
		name  string
		jsonl string
		want  []string
		files []string
	}{{
		name:  "string prompt and text-part prompt",
		jsonl: lines(cUser(`"first prompt"`), cUser(`[{"type":"text","text":"second"},{"type":"image","source":{}}]`)),
		want:  []string{"user: first prompt", "user: second"},
	}, {
		name: "meta, injected-only and compact-summary records are not prompts",
		jsonl: lines(
			`{"type":"user","isMeta":true,`+claudeMeta+`,"message":{"content":"Caveat: local commands"}}`,
			cUser(`"<reflect-learnings>\n- [lrn-x] old learning\n</reflect-learnings>"`),
			`{"type":"user","isCompactSummary":true,`+claudeMeta+`,"message":{"content":"This session is being continued"}}`,
			cUser(`"<reflect-learnings>x</reflect-learnings>\nreal question <system-reminder>ignore</system-reminder>here"`),
		),
		want: []string{"user: real question here"},
	}, {
		name: "tool_result as string with is_error and exit code",
		jsonl: lines(cUser(`"go"`), cBash("t1", "curl https://x"),
			cResult("t1", `"Exit code 60\ncurl: (60) SSL certificate problem"`, true)),
		want: []string{"user: go", "failed(60) curl https://x: curl: (60) SSL certificate problem"},
	}, {
		name: "tool_result as list of parts, failure by exit code only",
		jsonl: lines(cUser(`"go"`), cBash("t1", "make build"),
			cResult("t1", `[{"type":"text","text":"Exit code 2\nmake: *** [build] Error 2"}]`, false)),
		want: []string{"user: go", "failed(2) make build: make: *** [build] Error 2"},
	}, {
		name: "failure then fix of the same program; other successes dropped",
		jsonl: lines(cUser(`"run the tests"`),
			cBash("t1", "go test ./..."), cResult("t1", `"Exit code 1\n--- FAIL: TestA (0.00s)\n    a_test.go:9: boom"`, true),
			cBash("t2", "ls"), cResult("t2", `"a.go"`, false),
			cBash("t3", "go vet ./..."), cResult("t3", `""`, false),
			cBash("t4", "cd svc && go test ./..."), cResult("t4", `"ok  \tsvc\t0.1s"`, false),
			cBash("t5", "go test ./..."), cResult("t5", `"ok"`, false)),
		want: []string{
			"user: run the tests",
			"failed(1) go test ./...: --- FAIL: TestA (0.00s) | a_test.go:9: boom",
			"ok cd svc && go test ./...: ok svc 0.1s",
		},
	}, {
		name: "only the last assistant text of a turn, with the turn's edits",
		jsonl: lines(cUser(`"edit it"`),
			cAsst(`[{"type":"text","text":"Looking."}]`),
			cAsst(`[{"type":"tool_use","id":"e1","name":"Edit","input":{"file_path":"/repo/pkg/a.go","old_string":"x","new_string":"y"}}]`),
			cResult("e1", `"The file /repo/pkg/a.go has been updated."`, false),
			cAsst(`[{"type":"tool_use","id":"e2","name":"Write","input":{"file_path":"/elsewhere/b.txt","content":"z"}}]`),
			cResult("e2", `"ok"`, false),
			cAsst(`[{"type":"tool_use","id":"e3","name":"Edit","input":{"file_path":"/repo/c.go"}}]`),
			cResult("e3", `"<tool_use_error>File has not been read yet.</tool_use_error>"`, true),
			cAsst(`[{"type":"text","text":"Done: edited a.go."}]`),
			cUser(`"thanks"`)),
		want: []string{
			"user: edit it",
			"failed(-1) Edit /repo/c.go: File has not been read yet.",
			"assistant: Done: edited a.go. [pkg/a.go,/elsewhere/b.txt]",
			"user: thanks",
		},
		files: []string{"pkg/a.go", "/elsewhere/b.txt"},
	}, {
		name: "unknown types, non-JSON lines, missing and odd fields, truncated last line",
		jsonl: strings.Join([]string{
			`not json at all`,
			`{"type":"progress","data":{"whatever":1}}`,
			`{"type":"user"}`,
			`{"type":"user","message":"a string message"}`,
			`{"type":"user","message":{"content":42}}`,
			`{"type":"assistant","message":{"content":[{"type":"tool_use","input":{}}]}}`,
			`[1,2,3]`,
			`{"type":"user","isMeta":"yes","message":{"content":"kept prompt"}}`,
			cUser(`"tail"`),
			`{"type":"user","message":{"content":"cut off`,
		}, "\n"),
		want: []string{"user: kept prompt", "user: tail"},
	}, {
		name: "sidechain records, interruptions and local command output are skipped",
		jsonl: lines(
			`{"type":"user","isSidechain":true,`+claudeMeta+`,"message":{"content":"subagent task"}}`,
			cUser(`[{"type":"text","text":"[Request interrupted by user for tool use]"}]`),
			cUser(`"<local-command-stdout>Total cost: $0.10</local-command-stdout>"`),
			cUser(`"<command-message>review is running…</command-message>\n<command-name>/review</command-name>\n<command-args>auth.go</command-args>"`)),
		want: []string{"user: /review auth.go"},
	}, {
		name: "rejected tool use",
		jsonl: lines(cUser(`"install deps"`), cBash("t1", "npm install"),
			cResult("t1", `"The user doesn't want to proceed with this tool use. The tool use was rejected."`, true),
			cUser(`"no, use pnpm instead"`)),
		want: []string{"user: install deps", "failed(-1) npm install: rejected by the user", "user: no, use pnpm instead"},
	}, {
		name:  "result without its call",
		jsonl: lines(cUser(`"x"`), cResult("nope", `"Exit code 3\nboom"`, true)),
		want:  []string{"user: x", "failed(3) : boom"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := condenseString(t, "claude", tt.jsonl, Limits{})
			if got := briefs(c.Events); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("events:\n got %q\nwant %q", got, tt.want)
			}
			if !reflect.DeepEqual(c.Files, tt.files) {
				t.Errorf("files = %q, want %q", c.Files, tt.files)
			}
		})
	}
}

func TestClaudeMetadata(t *testing.T) {
	c := condenseString(t, "", lines(
		`{"type":"summary","summary":"x"}`,
		cUser(`"hello there"`)), Limits{})
	if c.Harness != "claude" || c.SessionID != "s1" || c.Cwd != "/repo" || c.Branch != "main" {
		t.Errorf("got harness %q session %q cwd %q branch %q", c.Harness, c.SessionID, c.Cwd, c.Branch)
	}
}
