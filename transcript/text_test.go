package transcript

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/reflectkb/reflect/internal/text"
)

func TestCommandKey(t *testing.T) {
	tests := map[string]string{
		"go test ./...":                         "go test",
		"cd svc && FOO=1 go test -run X ./...":  "go test",
		"env | grep AWS; go test ./...":         "grep",
		"sudo -u root timeout 30 make idp-fake": "make idp-fake",
		"bash -lc 'npm run build'":              "npm run build",
		"/usr/local/bin/curl -sS https://x":     "curl",
		"python3 -m pytest -q tests/":           "python3 -m pytest",
		"git -C repo status":                    "git",
		"echo start\ncargo build --release":     "cargo build",
		"echo only":                             "echo",
		"go test ./... 2>&1 | tail -20":         "go test",
		"# comment\nkubectl get pods":           "kubectl get",
		"":                                      "",
		"'unterminated":                         "unterminated",
		// Escaped quotes inside double quotes (once only the hooks' tokeniser).
		`bash -c "echo \"hi\"; go vet ./..."`: "go vet",
	}
	for cmd, want := range tests {
		if got := CommandKey(cmd); got != want {
			t.Errorf("CommandKey(%q) = %q, want %q", cmd, got, want)
		}
	}
}

func TestErrorHead(t *testing.T) {
	pyTail := "Traceback (most recent call last):\n  File \"x.py\", line 3\nZeroDivisionError: division by zero"
	tests := []struct{ name, out, want string }{
		{"claude exit header", "Exit code 60\ncurl: (60) SSL certificate problem: self-signed certificate",
			"curl: (60) SSL certificate problem: self-signed certificate"},
		{"codex headers and a short line with its detail", "Exit code: 1\nWall time: 2.1 seconds\nOutput:\n--- FAIL: TestRefresh (0.00s)\n    refresh_test.go:31: token expired",
			"--- FAIL: TestRefresh (0.00s) | refresh_test.go:31: token expired"},
		{"error line after noise", "Exit code 1\n=== RUN TestA\nbuilding…\nnpm ERR! code E404", "npm ERR! code E404"},
		{"python traceback", pyTail, "ZeroDivisionError: division by zero"},
		{"error only in a long output's tail", strings.Repeat("compiling module\n", 2000) + pyTail, "ZeroDivisionError: division by zero"},
		{"no error word: first line", "Exit code 3\nsomething odd\nmore", "something odd"},
		{"tool_use_error tags", "<tool_use_error>String to replace not found in file.</tool_use_error>", "String to replace not found in file."},
		{"injected block in output", "<system-reminder>error: ignore me</system-reminder>real error: x", "real error: x"},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		if got := errorHead(tt.out); got != tt.want {
			t.Errorf("%s: errorHead = %q, want %q", tt.name, got, tt.want)
		}
	}
	if got := errorHead("error: " + strings.Repeat("é", 1000)); len(got) > MaxErrorBytes || !utf8.ValidString(got) {
		t.Errorf("long head: %d bytes, valid %v", len(got), utf8.ValidString(got))
	}
}

func TestExitHeader(t *testing.T) {
	tests := []struct {
		out  string
		code int
		ok   bool
	}{
		{"Exit code 60\ncurl: …", 60, true},
		{"Exit code: 0\nWall time: 1s", 0, true},
		{"Error: Exit code 2", 2, true},
		{"Chunk ID: 1\nWall time: 1s\nProcess exited with code 127\n", 127, true},
		{"ok\nExit code 1", 1, true},
		{"the Exit code 1 appears in prose", 0, false},
		{"", 0, false},
	}
	for _, tt := range tests {
		if code, ok := exitHeader(tt.out); code != tt.code || ok != tt.ok {
			t.Errorf("exitHeader(%q) = %d, %v; want %d, %v", tt.out, code, ok, tt.code, tt.ok)
		}
	}
}

func TestIsCorrection(t *testing.T) {
	yes := []string{
		"no, use --insecure for local dev instead, the dev cert is self-signed",
		"don't use time.Now in the token code, inject a clock instead",
		"Don’t use npm here",
		"you should have run make generate first",
		"use pnpm not npm",
		"not the staging db but the local one",
		"that's the wrong port",
		"nope, try the v2 endpoint",
	}
	no := []string{
		"add OAuth refresh tokens to the login flow",
		"perfect, that works",
		"now run the linter",
		"no problem",
		strings.Repeat("use X instead of Y in every module. ", 40),
	}
	for _, s := range yes {
		if !IsCorrection(s) {
			t.Errorf("IsCorrection(%q) = false", s)
		}
	}
	for _, s := range no {
		if IsCorrection(s) {
			t.Errorf("IsCorrection(%q) = true", s)
		}
	}
}

func TestStripInjected(t *testing.T) {
	tests := map[string]string{
		"a<reflect-learnings>x</reflect-learnings>b":                   "ab",
		"<reflect-learnings>x</reflect-learnings><reflect-learnings>y": "",
		"keep <system-reminder>r</system-reminder>this<turn_aborted>…": "keep this",
		"plain < text": "plain < text",
		"<environment_context>c</environment_context>\nhi": "\nhi",
		"stray </reflect-learnings> stays":                 "stray </reflect-learnings> stays",
	}
	for in, want := range tests {
		if got := stripInjected(in); got != want {
			t.Errorf("stripInjected(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestWindowAndClip(t *testing.T) {
	if got := window("abc def ghij", 10); got != "abc def " {
		t.Errorf("window cut inside a token: %q", got)
	}
	if got := window("abcdefghijkl", 5); got != "" {
		t.Errorf("window of one long token = %q, want empty", got)
	}
	if got := tailWindow("abc def ghij", 6); got != " ghij" {
		t.Errorf("tailWindow = %q", got)
	}
	if got := text.ClipBytes("ééééé", 6); got != "é…" || !utf8.ValidString(got) {
		t.Errorf("clip = %q", got)
	}
	if got := text.ClipBytes("short", 10); got != "short" {
		t.Errorf("clip = %q", got)
	}
}
