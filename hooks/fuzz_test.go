package hooks_test

import (
	"strings"
	"testing"

	"github.com/reflectkb/reflect/hooks"
)

// FuzzHook feeds arbitrary bytes to every event of every agent through
// hooks.Run, in a fresh state directory per input against one knowledge
// base. Whatever the input, Run must not panic, must print either nothing
// or one JSON answer the agent accepts (validateOutput: Codex rejects
// unknown fields and must never see non-JSON on Stop), and must record the
// event in last-event.json.
//
//	go test -tags sqlite_fts5 ./hooks -run '^$' -fuzz FuzzHook -fuzztime 60s
func FuzzHook(f *testing.F) {
	e := newHookEnv(f)
	e.gitRepo(f, "fix/oauth-state-cookie", "callback: compare the OAuth state cookie with the state parameter")
	transcript := e.transcript(f, "transcript.jsonl")
	for _, fx := range fixtureRuns {
		f.Add(e.fixture(f, fx.agent, fx.fixture, nil))
		f.Add(e.fixture(f, fx.agent, fx.fixture, map[string]any{"transcript_path": transcript}))
	}
	for _, s := range []string{
		"", "null", "[]", "{}", `""`, "0", "true", "{", "}", "\x00", "\xff\xfe",
		`[{"session_id":"x"}]`,
		`{"session_id":null,"cwd":null,"prompt":null,"transcript_path":null}`,
		`{"session_id":"../../etc/passwd","prompt":"no, use --insecure instead of failing on the self-signed cert"}`,
		`{"session_id":"s","prompt":"<reflect-learnings>OAuth state cookie SameSite</reflect-learnings> state mismatch after callback"}`,
		`{"session_id":"s","prompt":"/compact"}`,
		`{"session_id":"s","cwd":"relative/dir","transcript_path":"relative.jsonl"}`,
		`{"session_id":"s","transcript_path":"/dev/null"}`,
		`{"session_id":"s","cwd":"/","source":"compact"}`,
		`{"session_id":"s","tool_name":"Bash","tool_input":{"command":"curl https://localhost:8443"},"tool_response":"Exit code: 60\nOutput:\ncurl: (60) SSL"}`,
		`{"session_id":"s","tool_name":"Bash","hook_event_name":"PostToolUseFailure","error":"Exit code 99999999999999999999"}`,
		`{"session_id":"s","tool_name":"Bash","tool_input":"not an object","tool_response":{"exit_code":"1","output":7}}`,
		`{"session_id":"` + strings.Repeat("a", 4096) + `","prompt":"` + strings.Repeat("oauth state ", 2000) + `"}`,
		`{"session_id":"s","prompt":"\u0000\ud800 fix the OAuth redirect bug \u2028"}`,
		`{"session_id":"s","session_id":"t","prompt":"duplicate keys are legal JSON"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg := e.withState(t)
		for _, event := range hooks.Events {
			for _, agent := range hooks.Agents {
				out := run(t, cfg, event, agent, data) // validates the output
				if agent == "codex" && event == "stop" && out != "" {
					t.Errorf("Codex Stop printed %q", out)
				}
				if out != "" && event != "session-start" && event != "prompt" && event != "pre-tool" {
					t.Errorf("%s --agent %s printed %q: only session-start, prompt and pre-tool answer", event, agent, out)
				}
				ev := lastEvent(t, cfg.StateDir)
				if ev.Event != event || !ev.TS.Equal(t0) {
					t.Errorf("%s --agent %s: last event %+v", event, agent, ev)
				}
				if ev.Error && out != "" {
					t.Errorf("%s --agent %s answered %q and recorded an error", event, agent, out)
				}
			}
		}
	})
}
