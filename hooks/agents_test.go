package hooks_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reflectkb/reflect/hooks"
	"github.com/reflectkb/reflect/queue"
)

// Copilot CLI reports a failed shell command as a successful tool call:
// the exit status is only in the last line of text_result_for_llm (real
// payloads from @github/copilot 1.0.102).
func TestCopilotFailedBash(t *testing.T) {
	t.Parallel()
	e := newEmptyEnv(t)
	f, failed := hooks.FailedBash("copilot", e.fixture(t, "copilot", "post-tool-use-failed", nil))
	if !failed || f.Command != "ls /nope-dir" || f.ExitCode != 2 || !strings.Contains(f.ErrorHead, "No such file") ||
		strings.Contains(f.ErrorHead+f.ErrorContext, "shellId") {
		t.Fatalf("failed ls: %+v, %v", f, failed)
	}
	if f, failed := hooks.FailedBash("copilot", e.fixture(t, "copilot", "post-tool-use", nil)); failed {
		t.Fatalf("exit code 0 read as a failure: %+v", f)
	}
	// Output that merely mentions the trailer mid-text is not a status.
	in := e.fixture(t, "copilot", "post-tool-use", map[string]any{"tool_result": map[string]any{
		"result_type": "success", "text_result_for_llm": "<shellId: 0 completed with exit code 1>\nall good\n"}})
	if f, failed := hooks.FailedBash("copilot", in); failed {
		t.Fatalf("a trailer that is not the last line read as the status: %+v", f)
	}
}

// The answer each agent reads: Copilot the top-level additionalContext,
// reflect's OpenCode plugin hookSpecificOutput (run checks both against
// testdata/schemas); both carry the recalled learning.
func TestNewAgentsRecall(t *testing.T) {
	t.Parallel()
	e := newHookEnv(t)
	for _, agent := range []string{"copilot", "opencode"} {
		in := e.fixture(t, agent, "user-prompt-submit", map[string]any{
			"prompt": "the OAuth callback says state mismatch after login", "session_id": "sid-" + agent})
		out := run(t, e.withState(t), "prompt", agent, in)
		if !strings.Contains(contextOf(t, out), e.ids["samesite"]) {
			t.Errorf("%s: answer %q does not recall the SameSite learning", agent, out)
		}
		var top map[string]json.RawMessage
		_ = json.Unmarshal([]byte(out), &top)
		if _, flat := top["additionalContext"]; flat != (agent == "copilot") {
			t.Errorf("%s: answer %s: top-level additionalContext only for Copilot", agent, out)
		}
	}
}

// A failed command then the user's correction becomes a mini-learning
// with either agent, from their own payloads.
func TestNewAgentsMiniLearning(t *testing.T) {
	t.Parallel()
	for _, agent := range []string{"copilot", "opencode"} {
		e := newHookEnv(t)
		if out := run(t, e.cfg, "post-tool", agent, e.fixture(t, agent, "post-tool-use-failed", nil)); out != "" {
			t.Errorf("%s post-tool printed %q", agent, out)
		}
		if ev := lastEvent(t, e.state); ev.Detail != "watching: ls exited 2" {
			t.Fatalf("%s post-tool: %+v", agent, ev)
		}
		later := func(o *hooks.Options) { o.Now = func() time.Time { return t0.Add(time.Minute) } }
		in := e.fixture(t, agent, "user-prompt-submit", map[string]any{"prompt": "no, use ls /tmp instead of ls /nope-dir"})
		run(t, e.cfg, "prompt", agent, in, later)
		docs := newDocs(t, e)
		if len(docs) != 1 || docs[0].Type != "mini" || docs[0].Source == nil || docs[0].Source.Harness != agent ||
			!strings.Contains(docs[0].KeyInsight, "ls /tmp") {
			t.Fatalf("%s: new learnings %+v", agent, docs)
		}
	}
}

// OpenCode's stop carries the session; the hook keeps a redacted copy,
// one message per line, and queues it with harness opencode. Without
// messages (an old plugin) nothing is queued and the log says what to do.
func TestOpenCodeStop(t *testing.T) {
	t.Parallel()
	e := newHookEnv(t)
	const secret = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"
	in := e.fixture(t, "opencode", "stop", nil)
	in = bytes.Replace(in, []byte("how do I build zebra widgets"), []byte("my token is "+secret+" how do I build zebra widgets"), 1)
	if !bytes.Contains(in, []byte(secret)) {
		t.Fatal("fixture edit failed")
	}
	cfg := e.withState(t)
	if out := run(t, cfg, "stop", "opencode", in); out != "" {
		t.Errorf("stop printed %q", out)
	}
	recs := pending(t, cfg.StateDir)
	if len(recs) != 1 || recs[0].Harness != queue.HarnessOpenCode ||
		filepath.Dir(recs[0].TranscriptPath) != filepath.Join(cfg.StateDir, hooks.OpenCodeTranscriptDir) {
		t.Fatalf("queued %+v", recs)
	}
	data, err := os.ReadFile(recs[0].TranscriptPath)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(data, []byte(secret)) || !bytes.Contains(data, []byte("how do I build zebra widgets")) {
		t.Fatalf("session copy: secret kept or prompt lost:\n%s", data)
	}
	n := 0
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m struct {
			Info  map[string]any `json:"info"`
			Parts []any          `json:"parts"`
		}
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil || m.Info == nil {
			t.Fatalf("line %d is not an OpenCode message: %v\n%s", n+1, err, sc.Bytes())
		}
		n++
	}
	if n != 5 {
		t.Errorf("copy has %d messages, want the fixture's 5", n)
	}

	cfg = e.withState(t)
	run(t, cfg, "stop", "opencode", e.fixture(t, "opencode", "stop", map[string]any{"messages": nil}))
	if recs := pending(t, cfg.StateDir); len(recs) != 0 {
		t.Errorf("queued without a session: %+v", recs)
	}
	if log := hookLog(t, cfg.StateDir); !strings.Contains(log, "reflect install opencode") {
		t.Errorf("hooks.log does not say what to do:\n%s", log)
	}
}
