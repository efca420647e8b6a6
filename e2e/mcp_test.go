package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestClaudeMCP: Claude Code, with reflect's MCP server registered by
// `reflect mcp install claude`, calls the search and remember tools mid-
// turn. The proof is in what the CLI sends back to the model (the tool
// results) and in the knowledge base (the learning on disk).
func TestClaudeMCP(t *testing.T) {
	setup(t)
	w := newWorld(t, "claude")
	w.reflectRun("mcp", "install", "claude")
	var cfg struct {
		MCPServers map[string]struct {
			Command string   `json:"command"`
			Args    []string `json:"args"`
		} `json:"mcpServers"`
	}
	data, err := os.ReadFile(filepath.Join(w.home, ".claude.json"))
	if err == nil {
		err = json.Unmarshal(data, &cfg)
	}
	check(t, "mcp/installed", err == nil && cfg.MCPServers["reflect"].Command == w.reflect,
		"~/.claude.json: %v %s", err, data)

	prompt := mcpPrompt("mcp__reflect__search", "mcp__reflect__remember")
	res := parseClaude(t, w.client("-p", prompt, "--output-format", "json",
		"--allowedTools", "mcp__reflect__search,mcp__reflect__remember"))
	check(t, "mcp/turn-completes", res.Subtype == "success" && !res.IsError && !strings.Contains(res.Result, "was not offered"),
		"turn: %+v", res)
	checkMCPCalls(t, w, w.toolResults(), res.Result)

	log, _ := os.ReadFile(filepath.Join(w.state, "logs", "mcp.log"))
	check(t, "mcp/logged", strings.Contains(string(log), "tool=search") && strings.Contains(string(log), "tool=remember"),
		"mcp.log: %s", log)
}

// toolResults returns the content of every tool result the client sent to
// the model (Anthropic tool_result blocks, Chat Completions tool messages),
// as raw JSON text.
func (w *world) toolResults() []string {
	var out []string
	for _, r := range w.server.Requests() {
		var body struct {
			Messages []struct {
				Role    string          `json:"role"`
				Content json.RawMessage `json:"content"`
			} `json:"messages"`
		}
		if json.Unmarshal(r.Body, &body) != nil {
			continue
		}
		for _, m := range body.Messages {
			if m.Role == "tool" {
				// Chat Completions (OpenCode, Copilot): a message per result.
				out = append(out, string(m.Content))
				continue
			}
			var blocks []struct {
				Type    string          `json:"type"`
				Content json.RawMessage `json:"content"`
			}
			if m.Role != "user" || json.Unmarshal(m.Content, &blocks) != nil {
				continue
			}
			for _, b := range blocks {
				if b.Type == "tool_result" {
					out = append(out, string(b.Content))
				}
			}
		}
	}
	return out
}

// TestCodexMCPConfig: Codex reads the [mcp_servers.reflect] table `reflect
// mcp install codex` writes as it reads its own `codex mcp add`, and
// uninstall takes it away again.
func TestCodexMCPConfig(t *testing.T) {
	setup(t)
	w := newWorld(t, "codex")
	w.reflectRun("mcp", "install", "codex")
	var got struct {
		Enabled   bool `json:"enabled"`
		Transport struct {
			Type    string   `json:"type"`
			Command string   `json:"command"`
			Args    []string `json:"args"`
		} `json:"transport"`
	}
	out, err := run(context.Background(), clientTimeout, w.repo, w.env, filepath.Join(suite.clientBin, "codex"), "mcp", "get", "reflect", "--json")
	if err == nil {
		err = json.Unmarshal(out, &got)
	}
	check(t, "mcp/codex-reads-entry", err == nil && got.Enabled && got.Transport.Type == "stdio" &&
		got.Transport.Command == w.reflect && strings.Join(got.Transport.Args, " ") == "mcp",
		"codex mcp get reflect: %v\n%s", err, out)
	w.reflectRun("mcp", "uninstall", "codex")
	_, err = run(context.Background(), clientTimeout, w.repo, w.env, filepath.Join(suite.clientBin, "codex"), "mcp", "get", "reflect", "--json")
	check(t, "mcp/codex-entry-removed", err != nil, "codex still has a reflect MCP server after uninstall")
}

// TestCodexMCP: Codex, with reflect's MCP server registered by `reflect
// mcp install codex` beside its own settings, calls search and remember
// mid-turn: their answers go back to the model and the learning is on
// disk.
func TestCodexMCP(t *testing.T) {
	setup(t)
	w := newWorld(t, "codex")
	w.write(filepath.Join(w.home, ".codex", "config.toml"), codexConfig(w))
	w.reflectRun("mcp", "install", "codex")
	out := codexExec(w, mcpPrompt("mcp__reflect__search", "mcp__reflect__remember"))
	checkMCPCalls(t, w, w.responsesToolOutputs(), string(out))
}

// responsesToolOutputs returns the output of every function call the client
// sent back to the model through the Responses API, as raw JSON text.
func (w *world) responsesToolOutputs() []string {
	var out []string
	for _, r := range w.server.Requests() {
		var body struct {
			Input []struct {
				Type   string          `json:"type"`
				Output json.RawMessage `json:"output"`
			} `json:"input"`
		}
		if json.Unmarshal(r.Body, &body) != nil {
			continue
		}
		for _, it := range body.Input {
			if it.Type == "function_call_output" {
				out = append(out, string(it.Output))
			}
		}
	}
	return out
}

// mcpTitle is the learning the MCP tests ask the model to remember.
const mcpTitle = "Widget cache is purged nightly by cron"

// mcpPrompt asks the model to search, then to remember mcpTitle, with
// reflect's tools as the client names them.
func mcpPrompt(search, remember string) string {
	return `Check the knowledge base, then record what we found. ` +
		`TOOLCALL:<` + search + ` {"query":"widget cache directory"}> ` +
		`TOOLCALL:<` + remember + ` {"title":"` + mcpTitle + `","key_insight":"A cron job empties /var/cache/widget at 03:00; do not debug missing entries before checking the time.","tags":["widget","cron"],"scope":"global"}>`
}

// checkMCPCalls asserts what mcpPrompt's calls did: among results (the
// tool results the client sent back to the model) are the search's answer,
// naming the seeded learning, and remember's; and the learning is on disk
// in the world's knowledge base (not in another one the server found).
// printed is what the client printed, for the failure message.
func checkMCPCalls(t *testing.T, w *world, results []string, printed string) {
	t.Helper()
	found, added := false, false
	for _, r := range results {
		found = found || (strings.Contains(r, seedStart) && strings.Contains(r, "results"))
		added = added || strings.Contains(r, "Added lrn-widget-cache-is-purged-nightly-by-cron-")
	}
	check(t, "mcp/search-result-sent", found, "no tool result holds the search's answer with %q; tool results: %q\nthe client printed:\n%s", seedStart, results, printed)
	check(t, "mcp/remember-result-sent", added, "no tool result holds remember's answer; tool results: %q", results)
	onDisk := false
	for _, l := range learnings(t, w.kb) {
		onDisk = onDisk || (l.Title == mcpTitle && strings.Contains(l.Text, "03:00"))
	}
	check(t, "mcp/learning-on-disk", onDisk, "no learning titled %q in %s", mcpTitle, w.kb)
}
