package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// installInspector makes the pinned MCP Inspector available under cacheDir
// and returns its CLI; a prefix holding that version is reused.
func installInspector(ctx context.Context, cacheDir, version string) (string, error) {
	prefix := filepath.Join(cacheDir, "inspector-"+version)
	bin := filepath.Join(prefix, "node_modules", ".bin", "mcp-inspector")
	if installedVersion(prefix, "@modelcontextprotocol/inspector") == version {
		return bin, nil
	}
	if err := os.MkdirAll(prefix, 0o755); err != nil {
		return "", err
	}
	cmd := exec.CommandContext(ctx, "npm", "install", "--prefix", prefix,
		"--no-audit", "--no-fund", "--no-save", "--loglevel=error",
		"--cache", filepath.Join(cacheDir, "npm-cache"),
		"@modelcontextprotocol/inspector@"+version)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("npm install: %v\n%s", err, out)
	}
	if got := installedVersion(prefix, "@modelcontextprotocol/inspector"); got != version {
		return "", fmt.Errorf("npm installed the inspector %q, want %q", got, version)
	}
	return bin, nil
}

// TestInspector runs `reflect mcp` under the MCP Inspector's CLI mode, a
// client that is not ours: it lists the tools, resources and prompts and
// calls every tool.
func TestInspector(t *testing.T) {
	setup(t)
	if suite.versions.Inspector == "" {
		t.Skip("E2E_INSPECTOR_VERSION is not set")
	}
	inspector, err := installInspector(context.Background(), suite.cache, suite.versions.Inspector)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal(err)
		}
		t.Skipf("MCP Inspector: %v", err)
	}
	w := newWorld(t, "claude")
	call := func(args ...string) map[string]any {
		t.Helper()
		all := append([]string{"--cli", w.reflect, "mcp"}, args...)
		out, err := run(context.Background(), clientTimeout, w.repo, w.env, inspector, all...)
		if err != nil {
			t.Fatalf("inspector %s: %v", strings.Join(args, " "), err)
		}
		var res map[string]any
		if err := json.Unmarshal(out, &res); err != nil {
			t.Fatalf("inspector %s printed no JSON: %v\n%s", strings.Join(args, " "), err, out)
		}
		return res
	}
	tool := func(name string, kv ...string) (text string, isError bool) {
		t.Helper()
		args := []string{"--method", "tools/call", "--tool-name", name}
		for _, a := range kv {
			args = append(args, "--tool-arg", a)
		}
		res := call(args...)
		data, _ := json.Marshal(res["structuredContent"])
		if c, ok := res["content"].([]any); ok && len(c) > 0 && res["structuredContent"] == nil {
			data, _ = json.Marshal(c)
		}
		e, _ := res["isError"].(bool)
		return string(data), e
	}

	listed, _ := json.Marshal(call("--method", "tools/list"))
	all := true
	for _, name := range []string{"search", "recall", "get", "remember", "forget", "list"} {
		all = all && strings.Contains(string(listed), `"name":"`+name+`"`)
	}
	check(t, "inspector/tools-list", all, "tools/list: %s", listed)

	text, isErr := tool("search", "query=widget cache")
	check(t, "inspector/search", !isErr && strings.Contains(text, seedStart), "search: %s", text)
	var found struct {
		Results []struct{ ID string } `json:"results"`
	}
	_ = json.Unmarshal([]byte(text), &found)
	if len(found.Results) == 0 {
		t.FailNow()
	}
	id := found.Results[0].ID
	text, isErr = tool("get", "id="+id)
	check(t, "inspector/get", !isErr && strings.Contains(text, "/var/cache/widget"), "get: %s", text)
	text, isErr = tool("recall", "task=where does the sprocket daemon read its configuration", "session_id=inspector-1")
	check(t, "inspector/recall", !isErr && strings.Contains(text, seedPrompt), "recall: %s", text)
	text, isErr = tool("list")
	check(t, "inspector/list", !isErr && strings.Contains(text, id), "list: %s", text)
	text, isErr = tool("remember", "title=Inspector learning", "key_insight=the inspector CLI can write through remember")
	check(t, "inspector/remember", !isErr && strings.Contains(text, `"action":"added"`), "remember: %s", text)
	var added struct{ ID string }
	_ = json.Unmarshal([]byte(text), &added)
	text, isErr = tool("forget", "id="+added.ID)
	check(t, "inspector/forget", !isErr && strings.Contains(text, `"forgotten":true`), "forget: %s", text)
	text, isErr = tool("get", "id="+added.ID)
	check(t, "inspector/tool-error", isErr && strings.Contains(text, "no learning"), "get of a forgotten learning: %s", text)

	resources, _ := json.Marshal(call("--method", "resources/list"))
	check(t, "inspector/resources", strings.Contains(string(resources), "reflect://learning/"+id), "resources/list: %s", resources)
	prompts, _ := json.Marshal(call("--method", "prompts/list"))
	check(t, "inspector/prompts", strings.Contains(string(prompts), "reflect-reflect"), "prompts/list: %s", prompts)
}
