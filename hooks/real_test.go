package hooks_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reflectkb/reflect/hooks"
	"github.com/reflectkb/reflect/queue"
)

// realPayload reads a payload a real client wrote (testdata/real at the
// repository root), pointing its cwd into the test's world and, when
// transcript is not empty, its transcript_path at a copy of that file.
func (e *hookEnv) realPayload(t *testing.T, agent, name, transcript string) []byte {
	t.Helper()
	dir := filepath.Join("..", "testdata", "real", "payloads", agent)
	data, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	m["cwd"] = e.repo
	if transcript != "" {
		body, err := os.ReadFile(filepath.Join(dir, transcript))
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "rollout.jsonl")
		if err := os.WriteFile(path, body, 0o600); err != nil {
			t.Fatal(err)
		}
		m["transcript_path"] = path
	}
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// A failed command in Codex 0.169 arms a watcher: its payload has no exit
// code, the rollout beside it has.
func TestPostToolRealCodexFailureArms(t *testing.T) {
	t.Parallel()
	e := newHookEnv(t)
	cfg := e.withState(t)
	const stem = "1795617266591576827-PostToolUse.json"
	run(t, cfg, "post-tool", "codex", e.realPayload(t, "codex", stem, stem+".transcript-at-hook.jsonl"))
	f, ok := hooks.Armed(cfg.StateDir, "01a21321-1062-7622-a140-c4af5194205c", t0)
	if !ok {
		t.Fatal("no watcher armed for Codex's failed command")
	}
	if f.ExitCode != 1 || f.Command != "cat /etc/sprocket/codex.ini" {
		t.Errorf("armed %+v", f)
	}
}

// A successful Codex command arms nothing.
func TestPostToolRealCodexSuccessDoesNotArm(t *testing.T) {
	t.Parallel()
	e := newHookEnv(t)
	cfg := e.withState(t)
	const stem = "1795617010192888491-PostToolUse.json"
	run(t, cfg, "post-tool", "codex", e.realPayload(t, "codex", stem, stem+".transcript-at-hook.jsonl"))
	if f, ok := hooks.Armed(cfg.StateDir, "01a2131d-1925-7570-80d3-c8830e3f0982", t0); ok {
		t.Errorf("armed %+v", f)
	}
}

// Claude 2.1.197's PostToolUseFailure arms a watcher from its own text.
func TestPostToolRealClaudeFailureArms(t *testing.T) {
	t.Parallel()
	e := newHookEnv(t)
	cfg := e.withState(t)
	ents, _ := filepath.Glob(filepath.Join("..", "testdata", "real", "payloads", "claude", "*-PostToolUseFailure.json"))
	if len(ents) == 0 {
		t.Fatal("no real Claude PostToolUseFailure payloads")
	}
	for _, path := range ents {
		data, _ := os.ReadFile(path)
		var p struct {
			SessionID string `json:"session_id"`
		}
		_ = json.Unmarshal(data, &p)
		run(t, cfg, "post-tool", "claude", e.realPayload(t, "claude", filepath.Base(path), ""))
		if f, ok := hooks.Armed(cfg.StateDir, p.SessionID, t0); !ok || f.ExitCode == 0 {
			t.Errorf("%s: armed %+v, %v", filepath.Base(path), f, ok)
		}
	}
}

// Every payload the real clients sent, fed to the hook reflect installs for
// its event, gets an answer the client accepts; the queueing events queue
// the transcript with the trigger their payload implies.
func TestRealPayloadsAnswerValidly(t *testing.T) {
	t.Parallel()
	e := newHookEnv(t)
	events := map[string]string{
		"SessionStart": "session-start", "UserPromptSubmit": "prompt", "PreCompact": "pre-compact",
		"Stop": "stop", "SessionEnd": "session-end", "PostToolUse": "post-tool", "PostToolUseFailure": "post-tool",
	}
	triggers := map[string]string{"pre-compact": "precompact-manual", "stop": "stop", "session-end": "session-end"}
	for _, agent := range []string{"claude", "codex"} {
		names, _ := filepath.Glob(filepath.Join("..", "testdata", "real", "payloads", agent, "*.json"))
		ran := 0
		for _, path := range names {
			base := filepath.Base(path)
			ev := base[strings.LastIndex(base, "-")+1 : len(base)-len(".json")]
			event, ok := events[ev]
			if !ok {
				continue
			}
			cfg := e.withState(t)
			in := e.realPayload(t, agent, base, "")
			var m map[string]any
			_ = json.Unmarshal(in, &m)
			transcript := e.transcript(t, "real.jsonl")
			m["transcript_path"] = transcript
			in, _ = json.Marshal(m)
			run(t, cfg, event, agent, in, func(o *hooks.Options) { o.Spawn = func(...string) error { return nil } })
			ran++
			if want, queues := triggers[event]; queues {
				q, err := queue.Open(cfg.StateDir)
				if err != nil {
					t.Fatal(err)
				}
				recs, _, err := q.List()
				if err != nil || len(recs) != 1 || recs[0].TranscriptPath != transcript || string(recs[0].Trigger) != want {
					t.Errorf("%s/%s: queue %+v, %v; want %s with trigger %s", agent, base, recs, err, transcript, want)
				}
			}
		}
		if ran < 5 {
			t.Errorf("%s: only %d real payloads ran", agent, ran)
		}
	}
}
