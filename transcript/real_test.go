package transcript

import (
	"path/filepath"
	"strings"
	"testing"
)

// realTranscript is a session Claude Code 2.1.197 or Codex 0.169 wrote
// (testdata/real at the repository root).
func realTranscript(agent, name string) string {
	return filepath.Join("..", "testdata", "real", "transcripts", agent, name)
}

// Session-managing slash commands never reach the writer; the prompts
// around them do.
func TestCondenseRealClaudeDropsBareSlashCommands(t *testing.T) {
	for _, tc := range []struct{ file, command, keep string }{
		{"9c19e7ca-363e-4250-8fe4-30525dab65ba.jsonl", "/compact", "use ls /var/cache/widget instead"},
		{"e4ff0bdd-ccc3-4ce9-8d96-234d4cd1496a.jsonl", "/exit", ""},
	} {
		c, err := Condense(realTranscript("claude", tc.file), "claude", Limits{})
		if err != nil {
			t.Fatal(err)
		}
		var prompts []string
		for _, ev := range c.Events {
			if ev.Kind == UserPrompt {
				prompts = append(prompts, ev.Text)
			}
		}
		if len(prompts) == 0 {
			t.Errorf("%s: no prompts at all", tc.file)
		}
		for _, p := range prompts {
			if strings.HasPrefix(p, tc.command) {
				t.Errorf("%s: prompt %q reached the condensed text", tc.file, p)
			}
		}
		if tc.keep != "" && !strings.Contains(c.Text, tc.keep) {
			t.Errorf("%s: lost the prompt %q:\n%s", tc.file, tc.keep, c.Text)
		}
	}
}

func TestIsBareSlashCommand(t *testing.T) {
	for text, want := range map[string]bool{
		"/exit": true, "/compact": true, "/clear": true, "/compact keep the failing tests": true,
		"/review the auth change": false, "/exit\nthen fix the build": false,
		"why does /compact lose my notes?": false, "fix it": false,
	} {
		if got := isBareSlashCommand(text); got != want {
			t.Errorf("isBareSlashCommand(%q) = %v, want %v", text, got, want)
		}
	}
}

// A real Codex rollout with a failed command condenses to a failure the
// writer sees with its exit code.
func TestCondenseRealCodexFailure(t *testing.T) {
	c, err := Condense(realTranscript("codex", "rollout-2026-11-25T14-34-23-01a21321-1062-7622-a140-c4af5194205c.jsonl"), "codex", Limits{})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, ev := range c.Events {
		if ev.Kind == ToolFailed && strings.Contains(ev.Command, "/etc/sprocket/codex.ini") && ev.ExitCode == 1 {
			found = true
		}
	}
	if !found {
		t.Errorf("no failed cat /etc/sprocket/codex.ini in:\n%s", c.Text)
	}
}
