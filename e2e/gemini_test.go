package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// geminiResult is what `gemini -p … --output-format json` prints.
type geminiResult struct {
	SessionID string          `json:"session_id"`
	Response  string          `json:"response"`
	Error     json.RawMessage `json:"error"`
}

func parseGemini(t *testing.T, out []byte) geminiResult {
	t.Helper()
	var r geminiResult
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("gemini printed no result JSON: %v\n%s", err, out)
	}
	return r
}

// geminiSettings adds to the settings.json reflect installed into what a
// headless, offline Gemini CLI needs: the API-key auth (the key and the
// fake server's URL are in the environment) and no update check or usage
// statistics.
func geminiSettings(w *world) string {
	w.t.Helper()
	path := filepath.Join(w.home, ".gemini", "settings.json")
	data, err := os.ReadFile(path)
	if err != nil {
		w.t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		w.t.Fatal(err)
	}
	doc["security"] = map[string]any{"auth": map[string]any{"selectedType": "gemini-api-key"}}
	doc["general"] = map[string]any{"enableAutoUpdate": false, "enableAutoUpdateNotification": false}
	doc["privacy"] = map[string]any{"usageStatisticsEnabled": false}
	doc["telemetry"] = map[string]any{"enabled": false}
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		w.t.Fatal(err)
	}
	w.write(path, string(out)+"\n")
	return path
}

// geminiTurn runs one headless Gemini CLI turn; resume names the session
// to continue ("" for a new one). yolo approves the shell tool, which
// headless Gemini would otherwise not run.
func geminiTurn(w *world, prompt, resume string) geminiResult {
	w.t.Helper()
	args := []string{"-p", prompt, "--approval-mode=yolo", "--output-format", "json"}
	if resume != "" {
		args = append(args, "--resume", resume)
	}
	return parseGemini(w.t, w.clientAs("gemini", args...))
}

// geminiSession runs the scenario every Gemini check starts from: a turn
// asking about sprocket that runs a failing command, then, resumed, the
// user's correction. It returns the session id and the transcript the
// hooks were given.
func geminiSession(t *testing.T, w *world) (first, second geminiResult, transcript string) {
	t.Helper()
	first = geminiTurn(w, promptTopic+" Show it to me. FAILCMD:<"+claudeFailCmd+">", "")
	noError := len(first.Error) == 0 || string(first.Error) == "null"
	check(t, "a/turn-completes", first.SessionID != "" && first.Response != "" && noError, "first turn: %+v", first)
	if first.SessionID == "" {
		t.FailNow()
	}
	ends := w.captured("AfterAgent")
	if len(ends) == 0 {
		t.Fatal("Gemini CLI sent no AfterAgent payload")
	}
	var p struct {
		TranscriptPath string `json:"transcript_path"`
	}
	if err := json.Unmarshal(ends[len(ends)-1], &p); err != nil || p.TranscriptPath == "" {
		t.Fatalf("AfterAgent payload %s: %v", ends[len(ends)-1], err)
	}
	armed := filepath.Join(w.state, "armed")
	check(t, "c/watcher-armed", countFiles(armed, ".json") == 1, "armed watchers in %s: %d", armed, countFiles(armed, ".json"))
	second = geminiTurn(w, "no, use ls /var/cache/widget instead, the cache is not under /nonexistent", first.SessionID)
	check(t, "a/resumed-turn-completes", second.SessionID == first.SessionID && second.Response != "", "resumed turn: %+v", second)
	return first, second, p.TranscriptPath
}

// geminiMinis returns the mini learnings about the correction.
func geminiMinis(t *testing.T, w *world) []learning {
	var out []learning
	for _, l := range learnings(t, w.kb) {
		if l.Type == "mini" && strings.Contains(l.Text, "/var/cache/widget") {
			out = append(out, l)
		}
	}
	return out
}

func TestGemini(t *testing.T) {
	setupGemini(t)
	w := newWorld(t, "gemini")
	settings := geminiSettings(w)
	w.addCaptureHooks(settings, []string{"SessionStart", "BeforeAgent", "AfterTool", "AfterAgent", "SessionEnd", "PreCompress"})

	_, _, transcript := geminiSession(t, w)

	// (b) Gemini adds hook context to the prompt, in a <hook_context>
	// block with < and > escaped: SessionStart's learnings and
	// BeforeAgent's both reached the model.
	check(t, "b/session-start-context", len(w.requestsWith("<hook_context>&lt;reflect-learnings&gt;", seedStart)) > 0,
		"no request carried SessionStart's learnings block")
	check(t, "b/prompt-context", len(w.requestsWith("<hook_context>&lt;reflect-learnings&gt;", seedPrompt)) > 0,
		"no request carried BeforeAgent's learnings block")

	// (c) the correction in the resumed session wrote a mini learning.
	minis := geminiMinis(t, w)
	check(t, "c/mini-learning", len(minis) == 1, "mini learnings about the correction: %d", len(minis))

	// (d) AfterAgent queued the real transcript, which the builtin writer
	// turns into a learning about the failure and its correction.
	q := w.pending()
	check(t, "d/stop-queues", len(q) == 1 && q[0].TranscriptPath == transcript && q[0].Trigger == "stop" && q[0].Harness == "gemini",
		"queue %+v, want the transcript %s from AfterAgent", q, transcript)
	for _, tc := range []struct{ event, hook, trigger string }{
		{"AfterAgent", "stop", "stop"},
		{"SessionEnd", "session-end", "session-end"},
	} {
		payloads := w.captured(tc.event)
		if len(payloads) == 0 {
			check(t, "d/"+tc.hook+"-payload-queues", false, "Gemini sent no %s", tc.event)
			continue
		}
		got := w.replayInto(tc.hook, payloads[len(payloads)-1])
		check(t, "d/"+tc.hook+"-payload-queues", len(got) == 1 && got[0].TranscriptPath == transcript && got[0].Trigger == tc.trigger,
			"%s payload queued %+v, want %s with trigger %s", tc.event, got, transcript, tc.trigger)
	}
	checkBuiltinDrain(t, w, transcript)
	saveFixtures(t, w, transcript)
}

// TestCrossAgent is the cross-agent proof: a learning captured in a Gemini
// CLI session (the user's correction after a failed command) is recalled
// in a Claude Code session and in an OpenCode session on the same
// machine, from the same knowledge base.
func TestCrossAgent(t *testing.T) {
	setupGemini(t)
	w := newWorld(t, "gemini")
	geminiSettings(w)
	w.addCaptureHooks(filepath.Join(w.home, ".gemini", "settings.json"), []string{"AfterAgent"})
	geminiSession(t, w)
	minis := geminiMinis(t, w)
	if len(minis) != 1 {
		t.Fatalf("the Gemini session left %d mini learnings, want 1", len(minis))
	}
	captured := minis[0].ID
	if !strings.Contains(minis[0].Text, "gemini") {
		t.Errorf("learning %s does not record its Gemini source:\n%s", captured, minis[0].Text)
	}

	// Claude Code, installed beside Gemini CLI in the same HOME.
	w.reflectRun("install", "claude")
	before := len(w.server.Requests())
	res := parseClaude(t, w.clientAs("claude", "-p", "The widget cache listing failed again; which directory should ls use?",
		"--output-format", "json"))
	check(t, "x/claude-turn-completes", res.Subtype == "success" && !res.IsError, "claude turn: %+v", res)
	recalled := false
	for _, r := range w.server.Requests()[before:] {
		if strings.HasSuffix(r.Path, "/v1/messages") && strings.Contains(string(r.Body), captured) {
			recalled = true
		}
	}
	check(t, "x/gemini-learning-recalled-in-claude", recalled,
		"no Claude request carried the Gemini-captured learning %s", captured)

	// OpenCode, installed beside both, asked the same question.
	bin, env := openCode(t, w)
	w.reflectRun("install", "opencode")
	before = len(w.server.Requests())
	w.runAgent(bin, env, "run", "The widget cache listing failed again; which directory should ls use?")
	recalled = false
	for _, r := range w.server.Requests()[before:] {
		if strings.HasSuffix(r.Path, "/chat/completions") && strings.Contains(string(r.Body), captured) {
			recalled = true
		}
	}
	check(t, "x/gemini-learning-recalled-in-opencode", recalled,
		"no OpenCode request carried the Gemini-captured learning %s", captured)
}

// TestGeminiMCP: Gemini CLI, with reflect's MCP server registered by
// `reflect mcp install gemini` in the settings.json that holds its hooks,
// calls search and remember mid-turn: their answers go back to the model
// and the learning is on disk.
func TestGeminiMCP(t *testing.T) {
	setupGemini(t)
	w := newWorld(t, "gemini")
	geminiSettings(w)
	w.reflectRun("mcp", "install", "gemini")
	res := geminiTurn(w, mcpPrompt("mcp_reflect_search", "mcp_reflect_remember"), "")
	var results []string
	for _, r := range w.server.Requests() {
		var body struct {
			Contents []struct {
				Parts []struct {
					FunctionResponse json.RawMessage `json:"functionResponse"`
				} `json:"parts"`
			} `json:"contents"`
		}
		if json.Unmarshal(r.Body, &body) != nil {
			continue
		}
		for _, c := range body.Contents {
			for _, p := range c.Parts {
				if len(p.FunctionResponse) > 0 {
					results = append(results, string(p.FunctionResponse))
				}
			}
		}
	}
	checkMCPCalls(t, w, results, fmt.Sprintf("%+v", res))
}
