package hooks

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// Fake, correctly shaped secrets (the same shapes internal/redact tests).
const (
	fakeAnthropicKey = "sk-ant-api03-FAKEanthropicKEYexample0123456789abcdefghijklmnopqrstuvwxyz-ABCDEFGHIJKLMNOPQRSTUVWXYZ_012345AA"
	fakeAWSKey       = "AKIAIOSFODNN7EXAMPLE"
	fakeGitHubToken  = "ghp_FAKEexample0123456789abcdefghijklmno"
)

var armT0 = time.Date(2026, 11, 22, 10, 42, 0, 0, time.UTC)

func fixturePayload(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "payloads", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// leaks reports any 12-byte piece of secret that appears in text: a
// redactor that runs after a cut would leave such a piece behind.
func leakedPiece(text, secret string) string {
	for i := 0; i+12 <= len(secret); i++ {
		if strings.Contains(text, secret[i:i+12]) {
			return secret[i : i+12]
		}
	}
	return ""
}

func TestFailedBashClaudeFixture(t *testing.T) {
	t.Parallel()
	f, ok := FailedBash("claude", fixturePayload(t, "claude/post-tool-use-failure.json"))
	if !ok {
		t.Fatal("PostToolUseFailure with Exit code 60 is not a failure")
	}
	want := Failure{
		Agent:     "claude",
		SessionID: "8f14e45f-ceea-467f-a8e0-2c1d1b1e6a01",
		Tool:      "Bash",
		Command:   "curl https://localhost:8443/callback?state=abc",
		ExitCode:  60,
		ErrorHead: "curl: (60) SSL certificate problem: self-signed certificate",
		// The whole output is the context when it is short.
		ErrorContext: "curl: (60) SSL certificate problem: self-signed certificate",
		Cwd:          "/home/dev/auth-service",
	}
	if f != want {
		t.Errorf("got  %+v\nwant %+v", f, want)
	}
}

func TestFailedBashClaudeSuccessIsNotAFailure(t *testing.T) {
	t.Parallel()
	if f, ok := FailedBash("claude", fixturePayload(t, "claude/post-tool-use.json")); ok {
		t.Errorf("successful PostToolUse read as a failure: %+v", f)
	}
}

func TestFailedBashCodexFixture(t *testing.T) {
	t.Parallel()
	f, ok := FailedBash("codex", fixturePayload(t, "codex/post-tool-use.json"))
	if !ok {
		t.Fatal("Codex PostToolUse with Exit code: 1 is not a failure")
	}
	if f.Agent != "codex" || f.Tool != "Bash" || f.Command != "go test ./..." || f.ExitCode != 1 {
		t.Errorf("got %+v", f)
	}
	if f.ErrorHead != "--- FAIL: TestRefresh (0.00s)" {
		t.Errorf("error head %q, want the first line of the Output: section", f.ErrorHead)
	}
	if f.ErrorContext != "--- FAIL: TestRefresh (0.00s)\n    refresh_test.go:31: token expired" {
		t.Errorf("error context %q: want the output without the Exit code / Wall time header", f.ErrorContext)
	}
	if f.SessionID != "019aad50-a7e6-7422-b7a8-0b384290624f" || f.Cwd != "/home/dev/auth-service" {
		t.Errorf("session %q cwd %q", f.SessionID, f.Cwd)
	}
}

// TestFailedBashShapes covers payload shapes other versions of the agents
// send, and the ones that must not arm a watcher.
func TestFailedBashShapes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		agent    string
		payload  string
		ok       bool
		code     int
		command  string
		head     string
		contains string // in ErrorContext
	}{
		{
			name:    "codex object with exit_code and output",
			agent:   "codex",
			payload: `{"hook_event_name":"PostToolUse","tool_name":"shell","tool_input":{"command":["bash","-lc","npm test"]},"tool_response":{"output":"> app@1.0.0 test\nFAIL src/a.test.ts\n  expected 2","exit_code":1}}`,
			ok:      true, code: 1, command: "npm test", head: "FAIL src/a.test.ts", contains: "expected 2",
		},
		{
			name:    "codex object with metadata.exit_code",
			agent:   "codex",
			payload: `{"hook_event_name":"PostToolUse","tool_name":"exec_command","tool_input":{"cmd":"make lint"},"tool_response":{"output":"golangci-lint: command not found","metadata":{"exit_code":127,"duration_seconds":0.1}}}`,
			ok:      true, code: 127, command: "make lint", head: "golangci-lint: command not found",
		},
		{
			name:    "codex object encoded as a string",
			agent:   "codex",
			payload: `{"hook_event_name":"PostToolUse","tool_name":"shell","tool_input":{"command":"cargo build"},"tool_response":"{\"output\":\"error[E0425]: cannot find value x\",\"exit_code\":101}"}`,
			ok:      true, code: 101, command: "cargo build", head: "error[E0425]: cannot find value x",
		},
		{
			name:    "codex status text wrapped in output without exit_code field",
			agent:   "codex",
			payload: `{"hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"false"},"tool_response":{"output":"Exit code: 1\nWall time: 0 seconds\nOutput:\n"}}`,
			ok:      true, code: 1, command: "false",
		},
		{
			name:    "codex stderr and stdout",
			agent:   "codex",
			payload: `{"hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"ls /nope"},"tool_response":{"stdout":"","stderr":"ls: cannot access '/nope': No such file or directory","exit_code":2}}`,
			ok:      true, code: 2, command: "ls /nope", head: "ls: cannot access '/nope': No such file or directory",
		},
		{
			name:    "codex success",
			agent:   "codex",
			payload: `{"hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"go test ./..."},"tool_response":"Exit code: 0\nWall time: 1.2 seconds\nOutput:\nok  \tx\armT0.1s"}`,
		},
		{
			name:    "codex non-shell tool",
			agent:   "codex",
			payload: `{"hook_event_name":"PostToolUse","tool_name":"apply_patch","tool_input":{"command":"x"},"tool_response":"Exit code: 1\nOutput:\npatch failed"}`,
		},
		{
			name:    "claude success whose output says Exit code 1",
			agent:   "claude",
			payload: `{"hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"echo 'Exit code 1'"},"tool_response":{"stdout":"Exit code 1\n","stderr":"","interrupted":false}}`,
		},
		{
			name:    "claude failure without an exit code (permission denied by the user)",
			agent:   "claude",
			payload: `{"hook_event_name":"PostToolUseFailure","tool_name":"Bash","tool_input":{"command":"rm -rf build"},"error":"The user doesn't want to proceed with this tool use."}`,
		},
		{
			name:    "claude interrupted",
			agent:   "claude",
			payload: `{"hook_event_name":"PostToolUseFailure","tool_name":"Bash","tool_input":{"command":"sleep 100"},"error":"Exit code 130\n","is_interrupt":true}`,
		},
		{
			name:    "claude non-Bash tool failure",
			agent:   "claude",
			payload: `{"hook_event_name":"PostToolUseFailure","tool_name":"Edit","tool_input":{"file_path":"a.go"},"error":"Exit code 1\nString to replace not found"}`,
		},
		{
			name:    "claude exit code 0",
			agent:   "claude",
			payload: `{"hook_event_name":"PostToolUseFailure","tool_name":"Bash","tool_input":{"command":"true"},"error":"Exit code 0\n"}`,
		},
		{
			name:    "claude failure skips progress lines for the error line",
			agent:   "claude",
			payload: `{"hook_event_name":"PostToolUseFailure","tool_name":"Bash","tool_input":{"command":"npm run build"},"error":"Exit code 2\n\n> app@1.0.0 build\n> tsc -p .\n\nsrc/index.ts(3,10): error TS2305: Module './util' has no exported member 'parse'."}`,
			ok:      true, code: 2, command: "npm run build", head: "src/index.ts(3,10): error TS2305: Module './util' has no exported member 'parse'.",
		},
		{name: "invalid JSON", agent: "claude", payload: `{"tool_name":`},
		{name: "not an object", agent: "codex", payload: `[1,2]`},
		{name: "tool_response of the wrong type", agent: "codex", payload: `{"tool_name":"Bash","tool_response":42}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, ok := FailedBash(tt.agent, []byte(tt.payload))
			if ok != tt.ok {
				t.Fatalf("ok = %v, want %v (%+v)", ok, tt.ok, f)
			}
			if !ok {
				return
			}
			if f.ExitCode != tt.code || f.Command != tt.command || f.ErrorHead != tt.head {
				t.Errorf("got code %d command %q head %q; want %d %q %q", f.ExitCode, f.Command, f.ErrorHead, tt.code, tt.command, tt.head)
			}
			if !strings.Contains(f.ErrorContext, tt.contains) {
				t.Errorf("context %q lacks %q", f.ErrorContext, tt.contains)
			}
			if f.Agent != tt.agent {
				t.Errorf("agent %q", f.Agent)
			}
		})
	}
}

func TestFailedBashBoundsSizes(t *testing.T) {
	var out strings.Builder
	out.WriteString("Exit code 1\n")
	out.WriteString("error: " + strings.Repeat("é", 1000) + "\n")
	for i := 0; i < 50000; i++ {
		out.WriteString("line of a very long build log that goes on and on\n")
	}
	out.WriteString(strings.Repeat("x", 5000) + "\n")
	p, _ := json.Marshal(map[string]any{
		"hook_event_name": "PostToolUseFailure", "tool_name": "Bash", "session_id": "s",
		"tool_input": map[string]string{"command": "make " + strings.Repeat("target ", 1000)},
		"error":      out.String(),
	})
	// The best of three runs: a loaded machine can deschedule one run
	// for longer than the bound, not three; a superlinear scan misses it
	// every time.
	var f Failure
	best := time.Duration(1<<63 - 1)
	for range 3 {
		start := time.Now()
		var ok bool
		f, ok = FailedBash("claude", p)
		if !ok {
			t.Fatal("not a failure")
		}
		if best = min(best, time.Since(start)); best <= time.Second {
			break
		}
	}
	if best > time.Second {
		t.Errorf("FailedBash took %s at best on a 2.5 MB payload", best)
	}
	if n := utf8.RuneCountInString(f.Command); n > maxCommandChars {
		t.Errorf("command has %d chars, want ≤ %d", n, maxCommandChars)
	}
	if n := utf8.RuneCountInString(f.ErrorHead); n > maxErrorHeadChars || !strings.HasPrefix(f.ErrorHead, "error: é") {
		t.Errorf("head has %d chars (want ≤ %d): %.40q", n, maxErrorHeadChars, f.ErrorHead)
	}
	if len(f.ErrorContext) > maxContextBytes+len("…") || strings.Count(f.ErrorContext, "\n") >= maxContextLines {
		t.Errorf("context has %d bytes, %d lines", len(f.ErrorContext), strings.Count(f.ErrorContext, "\n")+1)
	}
	if !utf8.ValidString(f.Command) || !utf8.ValidString(f.ErrorHead) || !utf8.ValidString(f.ErrorContext) {
		t.Error("a cut split a UTF-8 sequence")
	}
}

// TestFailedBashRedactsBeforeCutting puts a token where the context cut
// (the last 2 kB) falls inside it: redacting after the cut would store the
// token's tail, which no longer looks like a token.
func TestFailedBashRedactsBeforeCutting(t *testing.T) {
	t.Parallel()
	// The context keeps the last 2 kB: after the key come a space and
	// 2 kB - 41 dots, so a cut before redaction keeps the key's last 40 bytes.
	tail := " " + strings.Repeat(".", maxContextBytes-41)
	errText := "Exit code 1\nfatal: auth failed\nANTHROPIC_API_KEY=" + fakeAnthropicKey + tail
	p, _ := json.Marshal(map[string]any{
		"hook_event_name": "PostToolUseFailure", "tool_name": "Bash",
		"tool_input": map[string]string{"command": "./deploy.sh"}, "error": errText,
	})
	f, ok := FailedBash("claude", p)
	if !ok {
		t.Fatal("not a failure")
	}
	if piece := leakedPiece(f.ErrorContext+f.ErrorHead, fakeAnthropicKey); piece != "" {
		t.Errorf("context keeps %q of the key: %.80q", piece, f.ErrorContext)
	}
}

func readArmedFile(t *testing.T, path string) (map[string]any, string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("armed file is not JSON: %v\n%s", err, data)
	}
	return m, string(data)
}

func TestArmWritesPrivateFile(t *testing.T) {
	t.Parallel()
	state := t.TempDir()
	f, _ := FailedBash("claude", fixturePayload(t, "claude/post-tool-use-failure.json"))
	sid := f.SessionID
	if err := Arm(state, sid, f, armT0); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(state, "armed", sid+".json")
	m, _ := readArmedFile(t, path)
	for k, want := range map[string]any{
		"tool": "Bash", "command": "curl https://localhost:8443/callback?state=abc", "exit_code": 60.0,
		"error_head": "curl: (60) SSL certificate problem: self-signed certificate",
		"cwd":        "/home/dev/auth-service", "armed_at": "2026-11-22T10:42:00Z", "session_id": sid, "agent": "claude",
	} {
		if m[k] != want {
			t.Errorf("%s = %v, want %v", k, m[k], want)
		}
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("armed file mode %v, want 0600", fi.Mode().Perm())
	}
	if di, _ := os.Stat(filepath.Dir(path)); di.Mode().Perm() != 0o700 {
		t.Errorf("armed dir mode %v, want 0700", di.Mode().Perm())
	}
	got, ok := Armed(state, sid, armT0.Add(time.Minute))
	f.ArmedAt = armT0
	if !ok || got != f {
		t.Errorf("Armed = %+v, %v; want %+v", got, ok, f)
	}
}

func TestArmedExpiresAfterTenMinutes(t *testing.T) {
	t.Parallel()
	state := t.TempDir()
	f, _ := FailedBash("codex", fixturePayload(t, "codex/post-tool-use.json"))
	if err := Arm(state, f.SessionID, f, armT0); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(state, "armed", f.SessionID+".json")
	if _, ok := Armed(state, f.SessionID, armT0.Add(WatchTTL)); !ok {
		t.Fatal("watcher gone at exactly 10 minutes")
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatal("live watcher deleted")
	}
	if _, ok := Armed(state, f.SessionID, armT0.Add(WatchTTL+time.Second)); ok {
		t.Fatal("watcher still armed after 10 minutes")
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("expired watcher not deleted: %v", err)
	}
	// A watcher armed "in the future" (the clock was set back) must not
	// live forever either.
	if err := Arm(state, f.SessionID, f, armT0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if _, ok := Armed(state, f.SessionID, armT0); ok {
		t.Error("watcher from the future is armed")
	}
}

func TestArmReplacesAndDisarmClears(t *testing.T) {
	t.Parallel()
	state := t.TempDir()
	first := Failure{Tool: "Bash", Command: "npm test", ExitCode: 1}
	second := Failure{Tool: "Bash", Command: "pnpm test", ExitCode: 2}
	if err := Arm(state, "s1", first, armT0); err != nil {
		t.Fatal(err)
	}
	if err := Arm(state, "s1", second, armT0.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if got, ok := Armed(state, "s1", armT0.Add(2*time.Minute)); !ok || got.Command != "pnpm test" {
		t.Errorf("Armed = %+v, %v; want the latest failure", got, ok)
	}
	if _, ok := Armed(state, "s2", armT0); ok {
		t.Error("another session sees the watcher")
	}
	if err := Disarm(state, "s1"); err != nil {
		t.Fatal(err)
	}
	if _, ok := Armed(state, "s1", armT0.Add(2*time.Minute)); ok {
		t.Error("still armed after Disarm")
	}
	if err := Disarm(state, "s1"); err != nil {
		t.Errorf("Disarm without a watcher: %v", err)
	}
}

func TestArmSanitisesSessionIDs(t *testing.T) {
	t.Parallel()
	state := t.TempDir()
	f := Failure{Tool: "Bash", Command: "make", ExitCode: 2}
	for _, sid := range []string{"../../escape", "a/b\\c", "..", strings.Repeat("x", 300)} {
		if err := Arm(state, sid, f, armT0); err != nil {
			t.Fatalf("Arm(%q): %v", sid, err)
		}
		if _, ok := Armed(state, sid, armT0); !ok {
			t.Errorf("Armed(%q) lost the watcher", sid)
		}
	}
	// Everything stayed in armed/, with short names.
	err := filepath.Walk(filepath.Dir(state), func(path string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() || !strings.HasSuffix(path, ".json") {
			return err
		}
		if filepath.Dir(path) != filepath.Join(state, "armed") {
			t.Errorf("watcher written outside armed/: %s", path)
		}
		if len(filepath.Base(path)) > 110 {
			t.Errorf("unbounded file name %s", filepath.Base(path))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// "a_b_c" sanitises to the same file as "a/b\c" but is another session.
	if _, ok := Armed(state, "a_b_c", armT0); ok {
		t.Error("a session read another session's watcher through a name collision")
	}
	if err := Arm(state, "  ", f, armT0); err == nil {
		t.Error("Arm without a session id succeeded")
	}
	if _, ok := Armed(state, "", armT0); ok {
		t.Error("Armed without a session id")
	}
}

func TestArmRedactsSecrets(t *testing.T) {
	t.Parallel()
	state := t.TempDir()
	p, _ := json.Marshal(map[string]any{
		"session_id": "s", "cwd": "/home/dev/app", "hook_event_name": "PostToolUseFailure", "tool_name": "Bash",
		"tool_input": map[string]string{"command": `curl -H "Authorization: Bearer ` + fakeAnthropicKey + `" https://api.example.com/v1 <private>my home address</private>`},
		"error":      "Exit code 22\ncurl: (22) 403 for key " + fakeAWSKey + "\nretry with token " + fakeGitHubToken,
	})
	f, ok := FailedBash("claude", p)
	if !ok {
		t.Fatal("not a failure")
	}
	// Arm must redact even a Failure built by hand.
	f.ErrorContext += "\nAWS_ACCESS_KEY_ID=" + fakeAWSKey
	if err := Arm(state, "s", f, armT0); err != nil {
		t.Fatal(err)
	}
	_, raw := readArmedFile(t, filepath.Join(state, "armed", "s.json"))
	for _, secret := range []string{fakeAnthropicKey, fakeAWSKey, fakeGitHubToken} {
		if piece := leakedPiece(raw, secret); piece != "" {
			t.Errorf("armed file holds %q:\n%s", piece, raw)
		}
	}
	if strings.Contains(raw, "home address") {
		t.Errorf("armed file holds a <private> block:\n%s", raw)
	}
	if !strings.Contains(raw, "[REDACTED:") || !strings.Contains(raw, "https://api.example.com/v1") {
		t.Errorf("redaction removed more than the secrets:\n%s", raw)
	}
}

func TestArmedDropsCorruptFile(t *testing.T) {
	t.Parallel()
	state := t.TempDir()
	path := filepath.Join(state, "armed", "s.json")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, ok := Armed(state, "s", armT0); ok {
		t.Error("corrupt watcher is armed")
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Error("corrupt watcher not removed")
	}
}

func TestArmSweepsAbandonedWatchers(t *testing.T) {
	t.Parallel()
	state := t.TempDir()
	f := Failure{Tool: "Bash", Command: "make", ExitCode: 2}
	for _, sid := range []string{"old", "recent"} {
		if err := Arm(state, sid, f, armT0); err != nil {
			t.Fatal(err)
		}
	}
	old := filepath.Join(state, "armed", "old.json")
	past := time.Now().Add(-48 * time.Hour)
	if err := os.Chtimes(old, past, past); err != nil {
		t.Fatal(err)
	}
	if err := Arm(state, "new", f, armT0); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Error("watcher abandoned two days ago was not swept")
	}
	if _, err := os.Stat(filepath.Join(state, "armed", "recent.json")); err != nil {
		t.Error("recent watcher of another session was swept")
	}
}
