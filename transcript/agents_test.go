package transcript

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// condenseFixture condenses a transcript from testdata, with its harness
// given or ("") detected.
func condenseFixture(t *testing.T, path, harness string) *Condensed {
	t.Helper()
	c, err := Condense(path, harness, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Skip != "" {
		t.Fatalf("%s skipped: %s", path, c.Skip)
	}
	return c
}

// The OpenCode fixture is reflect's copy of a real opencode-ai 1.18.33
// session (two `opencode run` turns against the fake model): a prompt
// whose command failed, then the user's correction. reflect's own recall
// was added to the first prompt as a synthetic part and must not come back
// as something the user said.
func TestCondenseOpenCodeSession(t *testing.T) {
	path := filepath.Join("testdata", "opencode", "session.jsonl")
	for _, harness := range []string{"opencode", ""} {
		c := condenseFixture(t, path, harness)
		if c.Harness != "opencode" || !strings.HasPrefix(c.SessionID, "ses_") || c.Cwd == "" {
			t.Fatalf("harness %q: metadata %q %q %q", harness, c.Harness, c.SessionID, c.Cwd)
		}
		checkTwoTurns(t, c, "frobnicate flag (lrn-")
	}
}

// The Copilot fixture is a real @github/copilot 1.0.102 events.jsonl of
// the same two turns (the system prompt cut short).
func TestCondenseCopilotEvents(t *testing.T) {
	path := filepath.Join("testdata", "copilot", "events.jsonl")
	for _, harness := range []string{"copilot", ""} {
		c := condenseFixture(t, path, harness)
		if c.Harness != "copilot" || c.SessionID != "11111111-2222-4333-8444-555555555555" || c.Cwd == "" || c.Branch == "" {
			t.Fatalf("harness %q: metadata %+v", harness, c)
		}
		checkTwoTurns(t, c, "<shellId:")
	}
}

// checkTwoTurns checks the condensation of the two-turn fixture sessions:
// the two prompts the user typed, the failed command, and no event that
// carries reflect's injected block or the given text (what the agent adds
// on its own that is not the user's or the tool's).
func checkTwoTurns(t *testing.T, c *Condensed, leak string) {
	t.Helper()
	var prompts []string
	var failed *Event
	for i, e := range c.Events {
		switch e.Kind {
		case UserPrompt:
			prompts = append(prompts, e.Text)
		case ToolFailed:
			failed = &c.Events[i]
		}
		if strings.Contains(e.Text, "reflect-learnings") || strings.Contains(e.Text, leak) {
			t.Errorf("injected or agent-added text in the condensation: %+v", e)
		}
	}
	if len(prompts) != 2 || !strings.Contains(prompts[0], "zebra widgets") || !strings.Contains(prompts[1], "use ls /tmp") {
		t.Fatalf("prompts %q", prompts)
	}
	if failed == nil || failed.Command != "ls /nope-dir" || failed.ExitCode != 2 || !strings.Contains(failed.Text, "No such file") {
		t.Fatalf("failed command %+v; want ls /nope-dir, exit 2", failed)
	}
}

// A tool part still running has no outcome, an errored one is a failure,
// edits name their files, and synthetic text is never a prompt.
func TestOpenCodeParserParts(t *testing.T) {
	jsonl := strings.Join([]string{
		`{"info":{"role":"user","sessionID":"ses_1"},"parts":[{"type":"text","text":"fix it"},{"type":"text","synthetic":true,"text":"injected"}]}`,
		`{"info":{"role":"assistant","sessionID":"ses_1","path":{"cwd":"/repo"}},"parts":[` +
			`{"type":"tool","tool":"bash","state":{"status":"running","input":{"command":"sleep 9"}}},` +
			`{"type":"tool","tool":"read","state":{"status":"error","input":{"filePath":"/repo/x.go"},"error":"File not found"}},` +
			`{"type":"tool","tool":"edit","state":{"status":"completed","input":{"filePath":"/repo/a.go"},"output":"ok"}},` +
			`{"type":"text","text":"done"}]}`,
	}, "\n")
	path := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(path, []byte(jsonl), 0o600); err != nil {
		t.Fatal(err)
	}
	c := condenseFixture(t, path, "")
	var got []string
	for _, e := range c.Events {
		got = append(got, string(e.Kind)+": "+e.Command+e.Text)
	}
	want := []string{"user: fix it", "tool_failed: read /repo/x.goFile not found", "assistant: done"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("events\n got %q\nwant %q", got, want)
	}
	if len(c.Files) != 1 || !strings.HasSuffix(c.Files[0], "a.go") {
		t.Fatalf("files %q", c.Files)
	}
}
