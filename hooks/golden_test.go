package hooks_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/reflectkb/reflect/hooks"
	"github.com/reflectkb/reflect/queue"
)

// outputRules is testdata/schemas/<agent>.json: which keys, of which JSON
// types, an agent accepts in a hook's answer, per reflect event.
type outputRules struct {
	Agent  string                `json:"agent"`
	About  string                `json:"about"`
	Events map[string]eventRules `json:"events"`
}

type eventRules struct {
	Name   string            `json:"name"`   // the agent's name of the event
	Silent bool              `json:"silent"` // reflect must print nothing
	Top    map[string]string `json:"top"`
	// HookSpecificOutput lists the keys allowed inside hookSpecificOutput
	// (which Top must allow too); hookEventName is required there.
	HookSpecificOutput map[string]string `json:"hookSpecificOutput"`
}

var (
	rulesOnce sync.Once
	rules     map[string]outputRules
	rulesErr  error
)

func loadRules() (map[string]outputRules, error) {
	rulesOnce.Do(func() {
		rules = map[string]outputRules{}
		for _, agent := range hooks.Agents {
			data, err := os.ReadFile(filepath.Join("testdata", "schemas", agent+".json"))
			if err != nil {
				rulesErr = err
				return
			}
			var r outputRules
			dec := json.NewDecoder(bytes.NewReader(data))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&r); err != nil {
				rulesErr = fmt.Errorf("%s rules: %w", agent, err)
				return
			}
			rules[agent] = r
		}
	})
	return rules, rulesErr
}

// injected matches the block recall renders: reflect's wrapper tags
// around lines, so the condenser can strip it before reflection.
var injected = regexp.MustCompile(`\A<reflect-learnings>\n(?:[^\n]+\n)+</reflect-learnings>\z`)

// validateOutput checks a hook's stdout as the agent will read it: empty,
// or exactly one JSON object and a newline, in valid UTF-8, with only the
// keys (and types) the agent accepts for the event, hookSpecificOutput
// naming that event, and any additionalContext a non-empty
// <reflect-learnings> block. An invocation reflect does not handle (an
// unknown event or agent) must print nothing.
func validateOutput(agent, event string, out []byte) error {
	if len(out) == 0 {
		return nil
	}
	all, err := loadRules()
	if err != nil {
		return err
	}
	r, ok := all[agent].Events[event]
	if !ok {
		return fmt.Errorf("printed an answer for an invocation reflect does not handle (agent %q, event %q)", agent, event)
	}
	if r.Silent {
		return fmt.Errorf("%s must print nothing for %s, printed %d bytes", agent, r.Name, len(out))
	}
	if !utf8.Valid(out) {
		return fmt.Errorf("output is not valid UTF-8")
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return fmt.Errorf("output is not JSON: %w", err)
	}
	if rest := out[dec.InputOffset():]; string(rest) != "\n" {
		return fmt.Errorf("output is not one JSON value and a newline: %q follows", rest)
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("output is a JSON %T, not an object", v)
	}
	if err := checkKeys(obj, r.Top, agent+" "+r.Name); err != nil {
		return err
	}
	if ctx, ok := obj["additionalContext"]; ok {
		if s := ctx.(string); !injected.MatchString(s) {
			return fmt.Errorf("additionalContext is not a <reflect-learnings> block of lines: %q", s)
		}
	}
	spec, ok := obj["hookSpecificOutput"]
	if !ok {
		return nil
	}
	if r.HookSpecificOutput == nil {
		return fmt.Errorf("%s %s takes no hookSpecificOutput", agent, r.Name)
	}
	m := spec.(map[string]any) // checkKeys checked the type
	if err := checkKeys(m, r.HookSpecificOutput, agent+" "+r.Name+" hookSpecificOutput"); err != nil {
		return err
	}
	if name, _ := m["hookEventName"].(string); name != r.Name {
		return fmt.Errorf("hookSpecificOutput.hookEventName is %q, want %q", m["hookEventName"], r.Name)
	}
	if ctx, ok := m["additionalContext"]; ok {
		if s := ctx.(string); !injected.MatchString(s) {
			return fmt.Errorf("additionalContext is not a <reflect-learnings> block of lines: %q", s)
		}
	}
	return nil
}

func checkKeys(obj map[string]any, allowed map[string]string, where string) error {
	for k, v := range obj {
		typ, ok := allowed[k]
		if !ok {
			return fmt.Errorf("%s does not accept the key %q", where, k)
		}
		var good bool
		switch typ {
		case "boolean":
			_, good = v.(bool)
		case "string":
			_, good = v.(string)
		case "object":
			_, good = v.(map[string]any)
		}
		if !good {
			return fmt.Errorf("%s: %q is %T, want a JSON %s", where, k, v, typ)
		}
	}
	return nil
}

// The validator must reject what the agents reject, or the tests that use
// it prove nothing.
func TestValidateOutput(t *testing.T) {
	t.Parallel()
	ok := func(event, ctx string) string {
		return fmt.Sprintf(`{"hookSpecificOutput":{"hookEventName":%q,"additionalContext":%q}}`+"\n", event, ctx)
	}
	block := "<reflect-learnings>\nLearnings from past sessions that may apply:\n- [high] x (lrn-x-1a2b3c)\n</reflect-learnings>"
	for _, tc := range []struct {
		agent, event, out string
		valid             bool
	}{
		{"codex", "prompt", "", true},
		{"codex", "prompt", ok("UserPromptSubmit", block), true},
		{"claude", "session-start", ok("SessionStart", block), true},
		{"codex", "session-start", `{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"` + strings.ReplaceAll(block, "\n", `\n`) + `","env":{"A":"b"}},"continue":true}` + "\n", true},
		{"codex", "prompt", `{"decision":"block","reason":"no"}` + "\n", true},
		{"codex", "pre-compact", `{"continue":true}` + "\n", true},

		{"codex", "prompt", ok("UserPromptSubmit", block)[:40], false},                        // cut
		{"codex", "prompt", strings.TrimSuffix(ok("UserPromptSubmit", block), "\n"), false},   // no newline
		{"codex", "prompt", ok("UserPromptSubmit", block) + "{}\n", false},                    // two objects
		{"codex", "prompt", ok("UserPromptSubmit", block) + "\n", false},                      // blank line
		{"codex", "prompt", "[]\n", false},                                                    // not an object
		{"codex", "prompt", "null\n", false},                                                  // not an object
		{"codex", "prompt", "recalled 3 learnings\n", false},                                  // text
		{"codex", "prompt", ok("SessionStart", block), false},                                 // wrong event name
		{"claude", "prompt", ok("SessionStart", block), false},                                // wrong event name
		{"codex", "prompt", `{"hookSpecificOutput":{"additionalContext":"x"}}` + "\n", false}, // no event name
		{"codex", "prompt", `{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"x","env":{}}}` + "\n", false},
		{"codex", "prompt", `{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":""}}` + "\n", false},
		{"codex", "prompt", `{"additionalContext":"x"}` + "\n", false},
		{"codex", "prompt", `{"continue":"yes"}` + "\n", false},
		{"codex", "pre-compact", `{"decision":"block","reason":"x"}` + "\n", false},
		{"codex", "pre-compact", ok("PreCompact", block), false},
		{"codex", "stop", `{}` + "\n", false}, // Codex Stop: nothing at all
		{"codex", "stop", "\n", false},
		{"codex", "session-end", `{}` + "\n", false},
		{"claude", "post-tool", ok("PostToolUse", block), false},
		{"claude", "prompt", "\xff\n", false},
		{"gemini", "prompt", ok("BeforeAgent", block), true},
		{"gemini", "prompt", ok("UserPromptSubmit", block), false}, // Claude's name
		{"gemini", "stop", `{}` + "\n", false},                     // AfterAgent: nothing at all
		{"gemini", "post-tool", ok("AfterTool", block), true},      // appended to the tool result
		{"claude", "bogus", "{}\n", false},
		{"", "prompt", "{}\n", false},
	} {
		err := validateOutput(tc.agent, tc.event, []byte(tc.out))
		if (err == nil) != tc.valid {
			t.Errorf("validateOutput(%s, %s, %q) = %v, want valid %v", tc.agent, tc.event, tc.out, err, tc.valid)
		}
	}
}

// update is -update: go test -tags sqlite_fts5 ./hooks -run TestGolden
// -update rewrites testdata/golden.
var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

func compareGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -tags sqlite_fts5 ./hooks -run TestGolden -update)", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s:\n got: %q\nwant: %q", path, got, want)
	}
}

// queueID is the form of a queue record's id (queue.newID).
var queueID = regexp.MustCompile(`^q-\d{8}T\d{6}-[0-9a-f]{12}$`)

// entryID matches an entry's header line: "- [high] Title (lrn-id)".
var entryID = regexp.MustCompile(`(?m)^- \[[^\]]+\] .* \((lrn-[a-z0-9-]+)\)$`)

// idsIn returns the learning ids an answer injects as entries (not the
// "still relevant" line), in order.
func idsIn(t testing.TB, out string) []string {
	t.Helper()
	var ids []string
	for _, m := range entryID.FindAllStringSubmatch(contextOf(t, out), -1) {
		ids = append(ids, m[1])
	}
	return ids
}

// contextOf returns the additionalContext of an answer.
func contextOf(t testing.TB, out string) string {
	t.Helper()
	if out == "" {
		return ""
	}
	var v struct {
		HookSpecificOutput struct {
			AdditionalContext string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
		// Copilot CLI's answer has it at the top level.
		AdditionalContext string `json:"additionalContext"`
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("answer %q: %v", out, err)
	}
	if v.AdditionalContext != "" {
		return v.AdditionalContext
	}
	return v.HookSpecificOutput.AdditionalContext
}

// Each fixture, sent to its event in a fresh state directory against the
// same KB and git repository, gives the golden answer, the expected
// last-event.json and, for pre-compact/stop/session-end, the expected
// queue record.
func TestGolden(t *testing.T) {
	t.Parallel()
	// Session start: the learning its query finds, then the project's two
	// others from the briefing (confidence × recency).
	briefed := []string{"samesite", "clock", "insecure"}
	e := newHookEnv(t)
	e.gitRepo(t, "fix/oauth-state-cookie",
		"login: redirect to the IdP with a state parameter",
		"callback: compare the OAuth state cookie with the state parameter",
		"cookie: set SameSite on the OAuth state cookie")
	transcript := e.transcript(t, "transcript.jsonl")

	for _, tc := range []struct {
		agent, fixture, event string
		sid                   string
		inject                []string // seed keys, in order
		detail                string
		trigger               queue.Trigger // "": nothing queued
	}{
		{"claude", "session-start", "session-start", claudeSID, briefed, "recalled 3", ""},
		{"claude", "session-start-compact", "session-start", claudeSID, briefed, "recalled 3", ""},
		{"claude", "user-prompt-submit", "prompt", claudeSID, []string{"samesite"}, "recalled 1", ""},
		{"claude", "user-prompt-correction", "prompt", claudeSID, []string{"insecure"}, "recalled 1", ""},
		{"claude", "post-tool-use", "post-tool", claudeSID, nil, "tool call ok", ""},
		{"claude", "post-tool-use-failure", "post-tool", claudeSID, nil, "watching: curl exited 60", ""},
		{"claude", "pre-compact", "pre-compact", claudeSID, nil, "queued session", queue.TriggerPreCompactAuto},
		{"claude", "stop", "stop", claudeSID, nil, "queued session", queue.TriggerStop},
		{"claude", "session-end", "session-end", claudeSID, nil, "queued session", queue.TriggerSessionEnd},
		{"codex", "session-start", "session-start", codexSID, briefed, "recalled 3", ""},
		{"codex", "session-start-null-transcript", "session-start", "019aad60-0000-7000-8000-000000000001", briefed, "recalled 3", ""},
		// A request for work names the refresh-token learning's words but
		// asks about no problem: nothing (recall/intent.go); asked as a
		// question, the learning.
		{"codex", "user-prompt-submit", "prompt", codexSID, nil, "nothing to recall", ""},
		{"codex", "user-prompt-question", "prompt", codexSID, []string{"clock"}, "recalled 1", ""},
		{"codex", "post-tool-use", "post-tool", codexSID, nil, "watching: go exited 1", ""},
		{"codex", "pre-compact", "pre-compact", codexSID, nil, "queued session", queue.TriggerPreCompactAuto},
		{"codex", "stop", "stop", codexSID, nil, "queued session", queue.TriggerStop},
		{"gemini", "session-start", "session-start", geminiSID, briefed, "recalled 3", ""},
		{"gemini", "before-agent", "prompt", geminiSID, []string{"samesite"}, "recalled 1", ""},
		{"gemini", "before-agent-correction", "prompt", geminiSID, []string{"insecure"}, "recalled 1", ""},
		{"gemini", "after-tool", "post-tool", geminiSID, nil, "tool call ok", ""},
		// Gemini's BeforeTool reaches no model: AfterTool warns instead
		// (the warning line, checked by TestGeminiPostToolWarnsAfterFailure).
		{"gemini", "after-tool-failure", "post-tool", geminiSID, nil, "watching: curl exited 60; warned: curl (" + e.ids["insecure"] + ")", ""},
		{"gemini", "pre-compress", "pre-compact", geminiSID, nil, "queued session", queue.TriggerPreCompactAuto},
		{"gemini", "after-agent", "stop", geminiSID, nil, "queued session", queue.TriggerStop},
		{"gemini", "session-end", "session-end", geminiSID, nil, "queued session", queue.TriggerSessionEnd},
	} {
		t.Run(tc.agent+"/"+tc.fixture, func(t *testing.T) {
			cfg := e.withState(t)
			edits := map[string]any{}
			if tc.trigger != "" {
				edits["transcript_path"] = transcript
			}
			out := run(t, cfg, tc.event, tc.agent, e.fixture(t, tc.agent, tc.fixture, edits))
			compareGolden(t, tc.agent+"-"+tc.fixture+".out", out)

			var want []string
			for _, k := range tc.inject {
				want = append(want, e.ids[k])
			}
			if got := idsIn(t, out); !slices.Equal(got, want) {
				t.Errorf("injected %q, want %q", got, want)
			}
			if n := utf8.RuneCountInString(contextOf(t, out)); n > cfg.Recall.Chars {
				t.Errorf("context is %d characters, budget %d", n, cfg.Recall.Chars)
			}
			if tc.agent == "codex" && tc.event == "stop" && out != "" {
				t.Errorf("Codex Stop printed %q", out)
			}

			ev := lastEvent(t, cfg.StateDir)
			queued := 0
			if tc.trigger != "" {
				queued = 1
			}
			if ev.Event != tc.event || ev.SessionID != tc.sid || ev.Detail != tc.detail || ev.Error ||
				!ev.TS.Equal(t0) || ev.Counts.Recalled != len(want) || ev.Counts.Queued != queued {
				t.Errorf("last event = %+v\nwant event %q session %q detail %q recalled %d queued %d at %s",
					ev, tc.event, tc.sid, tc.detail, len(want), queued, t0)
			}
			if log := hookLog(t, cfg.StateDir); log != "" {
				t.Errorf("hooks.log after a normal run:\n%s", log)
			}

			recs := pending(t, cfg.StateDir)
			if tc.trigger == "" {
				if len(recs) != 0 {
					t.Errorf("queued %+v", recs)
				}
				return
			}
			if len(recs) != 1 {
				t.Fatalf("queue = %+v, want one record", recs)
			}
			r := recs[0]
			if r.TranscriptPath != transcript || r.SessionID != tc.sid || r.Trigger != tc.trigger ||
				string(r.Harness) != tc.agent || r.Cwd != e.repo || !r.QueuedAt.Equal(t0) ||
				r.Attempts != 0 || r.NotBefore != nil || !queueID.MatchString(r.ID) {
				t.Errorf("queue record = %+v", r)
			}
		})
	}
}
