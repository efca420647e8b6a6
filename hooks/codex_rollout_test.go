package hooks

import (
	"bytes"
	"encoding/json"
	"github.com/reflectkb/reflect/transcript"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// realCodex is a payload Codex 0.169 wrote, with the rollout as it stood
// when the hook ran, copied to a temp dir and the payload's
// transcript_path pointed at it.
func realCodex(t *testing.T, stem string) []byte {
	t.Helper()
	dir := filepath.Join("..", "testdata", "real", "payloads", "codex")
	payload, err := os.ReadFile(filepath.Join(dir, stem+"-PostToolUse.json"))
	if err != nil {
		t.Fatal(err)
	}
	rollout, err := os.ReadFile(filepath.Join(dir, stem+"-PostToolUse.json.transcript-at-hook.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "rollout.jsonl")
	if err := os.WriteFile(path, rollout, 0o600); err != nil {
		t.Fatal(err)
	}
	return withTranscript(t, payload, path)
}

func withTranscript(t *testing.T, payload []byte, path string) []byte {
	t.Helper()
	var obj map[string]any
	if err := json.Unmarshal(payload, &obj); err != nil {
		t.Fatal(err)
	}
	obj["transcript_path"] = path
	out, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Codex 0.169's payload alone does not say the command failed; the
// rollout does.
func TestCodexRolloutFailureRealPayload(t *testing.T) {
	t.Parallel()
	payload := realCodex(t, "1795617266591576827")
	if _, ok := FailedBash("codex", payload); ok {
		t.Fatal("the payload itself now carries an exit code: this test no longer covers the rollout path")
	}
	f, ok := CodexRolloutFailure(payload)
	if !ok {
		t.Fatal("the rollout's failed CommandExecution was not found")
	}
	want := Failure{
		Agent:        "codex",
		SessionID:    "01a21321-1062-7622-a140-c4af5194205c",
		Tool:         "Bash",
		Command:      "cat /etc/sprocket/codex.ini",
		ExitCode:     1,
		ErrorHead:    "cat: /etc/sprocket/codex.ini: No such file or directory",
		ErrorContext: "cat: /etc/sprocket/codex.ini: No such file or directory",
		Cwd:          "/home/dev/src/widget-service",
	}
	if f != want {
		t.Errorf("got  %+v\nwant %+v", f, want)
	}
}

// A command that succeeded (cat README.md, exit 0) arms nothing.
func TestCodexRolloutSuccessIsNotAFailure(t *testing.T) {
	t.Parallel()
	if f, ok := CodexRolloutFailure(realCodex(t, "1795617010192888491")); ok {
		t.Errorf("successful command read as a failure: %+v", f)
	}
}

// Every real failed command in the fixtures is found.
func TestCodexRolloutFailureAllRealFailures(t *testing.T) {
	t.Parallel()
	for _, stem := range []string{"1795616890707406090", "1795617006705475313", "1795617266591576827"} {
		if f, ok := CodexRolloutFailure(realCodex(t, stem)); !ok || f.ExitCode == 0 || f.Command == "" {
			t.Errorf("%s: %+v, %v", stem, f, ok)
		}
	}
}

// The completion is found in the tail of a rollout far bigger than what is
// read, and not found when it lies before the tail.
func TestCodexRolloutReadsOnlyTheTail(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("..", "testdata", "real", "payloads", "codex")
	stem := "1795617266591576827"
	payload, _ := os.ReadFile(filepath.Join(dir, stem+"-PostToolUse.json"))
	rollout, err := os.ReadFile(filepath.Join(dir, stem+"-PostToolUse.json.transcript-at-hook.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	filler := bytes.Repeat([]byte(`{"type":"response_item","payload":{"type":"message","content":"`+strings.Repeat("x", 1000)+`"}}`+"\n"), 2*transcript.CodexTailBytes/1000)

	tail := filepath.Join(t.TempDir(), "tail.jsonl")
	if err := os.WriteFile(tail, append(append([]byte{}, filler...), rollout...), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, ok := CodexRolloutFailure(withTranscript(t, payload, tail)); !ok {
		t.Error("completion at the end of a large rollout not found")
	}
	head := filepath.Join(t.TempDir(), "head.jsonl")
	if err := os.WriteFile(head, append(append([]byte{}, rollout...), filler...), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, ok := CodexRolloutFailure(withTranscript(t, payload, head)); ok {
		t.Error("completion before the tail was found: the whole rollout was read")
	}
}

// A completion Codex writes a moment after the hook started is still found.
func TestCodexRolloutWaitsForLateCompletion(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("..", "testdata", "real", "payloads", "codex")
	stem := "1795617266591576827"
	payload, _ := os.ReadFile(filepath.Join(dir, stem+"-PostToolUse.json"))
	rollout, err := os.ReadFile(filepath.Join(dir, stem+"-PostToolUse.json.transcript-at-hook.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(bytes.TrimRight(rollout, "\n"), []byte("\n"))
	last := lines[len(lines)-1]
	if !bytes.Contains(last, []byte("item_completed")) {
		t.Fatalf("fixture's last line is not the completion: %s", last)
	}
	path := filepath.Join(t.TempDir(), "rollout.jsonl")
	if err := os.WriteFile(path, bytes.Join(lines[:len(lines)-1], nil), 0o600); err != nil {
		t.Fatal(err)
	}
	// Codex writes the completion after reflect's first look.
	looks := 0
	sleep := func(time.Duration) {
		looks++
		if looks == 2 {
			f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Error(err)
				return
			}
			_, _ = f.Write(append(append([]byte{}, last...), '\n'))
			f.Close()
		}
	}
	if _, ok := codexRolloutFailure(withTranscript(t, payload, path), sleep); !ok {
		t.Error("completion written during the retry window not found")
	}
	if looks >= rolloutTries {
		t.Errorf("slept %d times, want fewer than %d", looks, rolloutTries)
	}
}

// No rollout, a missing one, or garbage in it: not a failure, no panic.
func TestCodexRolloutMissingOrBroken(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("..", "testdata", "real", "payloads", "codex")
	payload, _ := os.ReadFile(filepath.Join(dir, "1795617266591576827-PostToolUse.json"))
	garbage := filepath.Join(t.TempDir(), "garbage.jsonl")
	_ = os.WriteFile(garbage, []byte("not json\n{\"type\":\"event_msg\",\"payload\":{\"type\":\"item_completed\",\"item\":\"x\"}}\ncall_112da2060ab249228b8019ba\n"), 0o600)
	for _, path := range []string{"", filepath.Join(t.TempDir(), "gone.jsonl"), garbage, t.TempDir()} {
		if f, ok := CodexRolloutFailure(withTranscript(t, payload, path)); ok {
			t.Errorf("%q: %+v", path, f)
		}
	}
}

// Older Codex versions recorded exec_command_end with call_id.
func TestCodexRolloutExecCommandEnd(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "rollout.jsonl")
	_ = os.WriteFile(path, []byte(`{"type":"event_msg","payload":{"type":"exec_command_end","call_id":"call_1","exit_code":2,"stderr":"make: *** No rule to make target 'tset'.  Stop."}}`+"\n"), 0o600)
	payload := []byte(`{"session_id":"s","hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"make tset"},"tool_response":"","tool_use_id":"call_1","transcript_path":` + jsonQuote(path) + `}`)
	f, ok := CodexRolloutFailure(payload)
	if !ok || f.ExitCode != 2 || f.Command != "make tset" || !strings.Contains(f.ErrorHead, "No rule to make target") {
		t.Errorf("%+v, %v", f, ok)
	}
}

func jsonQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// When the payload carries its own exit code (Codex before 0.169), the
// payload decides and the rollout is not consulted.
func TestCodexRolloutNotReadWhenPayloadHasExitCode(t *testing.T) {
	t.Parallel()
	payload := realCodex(t, "1795617266591576827")
	var obj map[string]any
	if err := json.Unmarshal(payload, &obj); err != nil {
		t.Fatal(err)
	}
	obj["tool_response"] = "Exit code: 0\nWall time: 0.1 seconds\nOutput:\n"
	edited, _ := json.Marshal(obj)
	if f, ok := CodexRolloutFailure(edited); ok {
		t.Errorf("the rollout overrode the payload's exit code 0: %+v", f)
	}
}
