package agents

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDefaultMCPConfigPath(t *testing.T) {
	t.Parallel()
	home := isolate(t)
	for agent, want := range map[string]string{
		"claude": filepath.Join(home, ".claude.json"),
		"codex":  filepath.Join(home, ".codex", "config.toml"),
	} {
		got, err := DefaultMCPConfigPath(agent, Dirs{Home: home})
		if err != nil || got != want {
			t.Errorf("%s: %q, %v; want %q", agent, got, err, want)
		}
	}
	moved := Dirs{Home: home, Claude: "/cfg/claude", Codex: "/cfg/codex"}
	if got, _ := DefaultMCPConfigPath("claude", moved); got != "/cfg/claude/.claude.json" {
		t.Errorf("claude with CLAUDE_CONFIG_DIR: %q", got)
	}
	if got, _ := DefaultMCPConfigPath("codex", moved); got != "/cfg/codex/config.toml" {
		t.Errorf("codex with CODEX_HOME: %q", got)
	}
}

// A ~/.claude.json as Claude Code keeps it: state of its own beside the
// user's servers.
const claudeJSON = `{
  "numStartups": 12,
  "mcpServers": {
    "github": {
      "type": "stdio",
      "command": "npx",
      "args": [
        "-y",
        "@modelcontextprotocol/server-github"
      ],
      "env": {}
    }
  },
  "projects": {
    "/home/dev/app": {
      "allowedTools": []
    }
  }
}
`

func TestInstallMCPClaudeRoundTrip(t *testing.T) {
	t.Parallel()
	for name, orig := range map[string]string{"existing": claudeJSON, "no mcpServers": "{\n  \"numStartups\": 1\n}\n"} {
		t.Run(name, func(t *testing.T) {
			isolate(t)
			path := filepath.Join(t.TempDir(), ".claude.json")
			if err := os.WriteFile(path, []byte(orig), 0o600); err != nil {
				t.Fatal(err)
			}
			opts := InstallOptions{Agent: "claude", SettingsPath: path, Binary: testBinary}
			res, err := InstallMCP(opts)
			if err != nil || !res.Changed || len(res.Added) != 1 {
				t.Fatalf("install: %+v, %v", res, err)
			}
			var doc struct {
				NumStartups int                     `json:"numStartups"`
				MCPServers  map[string]claudeServer `json:"mcpServers"`
			}
			if err := json.Unmarshal(readFile(t, path), &doc); err != nil {
				t.Fatal(err)
			}
			got := doc.MCPServers["reflect"]
			if got.Type != "stdio" || got.Command != testBinary || len(got.Args) != 1 || got.Args[0] != "mcp" || doc.NumStartups == 0 {
				t.Fatalf("installed: %+v", doc)
			}
			if name == "existing" && doc.MCPServers["github"].Command != "npx" {
				t.Fatalf("the user's server was lost: %+v", doc.MCPServers)
			}
			if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
				t.Errorf("mode changed to %v", fi.Mode().Perm())
			}
			installed := readFile(t, path)
			again, err := InstallMCP(opts)
			if err != nil || again.Changed || string(readFile(t, path)) != string(installed) {
				t.Fatalf("second install changed something: %+v, %v", again, err)
			}
			un, err := UninstallMCP(opts)
			if err != nil || !un.Changed || len(un.Removed) != 1 {
				t.Fatalf("uninstall: %+v, %v", un, err)
			}
			if got := string(readFile(t, path)); got != orig {
				t.Fatalf("uninstall is not exact:\n%s\nwant\n%s", got, orig)
			}
			if un2, err := UninstallMCP(opts); err != nil || un2.Changed {
				t.Fatalf("second uninstall: %+v, %v", un2, err)
			}
		})
	}
}

func TestInstallMCPClaudeUpdatesOldBinaryAndRefusesOthers(t *testing.T) {
	t.Parallel()
	isolate(t)
	path := filepath.Join(t.TempDir(), ".claude.json")
	old := `{"mcpServers": {"reflect": {"type": "stdio", "command": "/old/bin/reflect", "args": ["mcp"], "env": {}}}}`
	if err := os.WriteFile(path, []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	res, err := InstallMCP(InstallOptions{Agent: "claude", SettingsPath: path, Binary: testBinary})
	if err != nil || len(res.Updated) != 1 || !strings.Contains(string(readFile(t, path)), testBinary) {
		t.Fatalf("update: %+v, %v\n%s", res, err, readFile(t, path))
	}

	theirs := `{"mcpServers": {"reflect": {"command": "python3", "args": ["my_reflect.py"]}}}`
	if err := os.WriteFile(path, []byte(theirs), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := InstallMCP(InstallOptions{Agent: "claude", SettingsPath: path, Binary: testBinary}); err == nil || !strings.Contains(err.Error(), "does not run `reflect mcp`") {
		t.Fatalf("someone else's reflect server was not refused: %v", err)
	}
	if res, err := UninstallMCP(InstallOptions{Agent: "claude", SettingsPath: path}); err != nil || res.Changed {
		t.Fatalf("uninstall touched someone else's server: %+v, %v", res, err)
	}
	if string(readFile(t, path)) != theirs {
		t.Fatal("the file changed")
	}
	if err := os.WriteFile(path, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := InstallMCP(InstallOptions{Agent: "claude", SettingsPath: path, Binary: testBinary}); err == nil || !strings.Contains(err.Error(), "invalid JSON") {
		t.Fatalf("invalid JSON: %v", err)
	}
}

func TestInstallMCPClaudeCreatesFileAndDryRun(t *testing.T) {
	t.Parallel()
	home := isolate(t)
	res, err := InstallMCP(InstallOptions{Agent: "claude", Binary: testBinary, DryRun: true, Dirs: Dirs{Home: home}})
	if err != nil || !res.Changed || !strings.Contains(res.Diff, `"command": "`+testBinary+`"`) {
		t.Fatalf("dry run: %+v, %v", res, err)
	}
	if _, err := os.Stat(filepath.Join(home, ".claude.json")); !os.IsNotExist(err) {
		t.Fatalf("dry run wrote the file: %v", err)
	}
	if res, err = InstallMCP(InstallOptions{Agent: "claude", Binary: testBinary, Dirs: Dirs{Home: home}}); err != nil || !res.Created {
		t.Fatalf("install: %+v, %v", res, err)
	}
	if !json.Valid(readFile(t, filepath.Join(home, ".claude.json"))) {
		t.Fatal("invalid JSON written")
	}
}

const codexTOML = `# my codex settings
model = "gpt-5.1-codex"

[mcp_servers.github]
command = "npx"   # the github server
args = ["-y", "@modelcontextprotocol/server-github"]

[projects."/home/dev/app"]
trust_level = "trusted"
`

func TestInstallMCPCodexRoundTrip(t *testing.T) {
	t.Parallel()
	for name, orig := range map[string]string{"existing": codexTOML, "empty": "", "one setting": "model = \"o3\"\n"} {
		t.Run(name, func(t *testing.T) {
			home := isolate(t)
			path := filepath.Join(home, ".codex", "config.toml")
			if orig != "" {
				if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(orig), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			opts := InstallOptions{Agent: "codex", Binary: testBinary, Dirs: Dirs{Home: home}}
			res, err := InstallMCP(opts)
			if err != nil || !res.Changed || len(res.Added) != 1 {
				t.Fatalf("install: %+v, %v", res, err)
			}
			installed := readFile(t, path)
			c, err := parseCodexConfig(installed)
			if err != nil {
				t.Fatal(err)
			}
			if s := c.MCPServers["reflect"]; s.Command != testBinary || len(s.Args) != 1 || s.Args[0] != "mcp" {
				t.Fatalf("installed:\n%s", installed)
			}
			if orig != "" && !strings.HasPrefix(string(installed), orig) {
				t.Fatalf("the user's file was not kept as it was:\n%s", installed)
			}
			if again, err := InstallMCP(opts); err != nil || again.Changed {
				t.Fatalf("second install: %+v, %v", again, err)
			}
			un, err := UninstallMCP(opts)
			if err != nil || !un.Changed {
				t.Fatalf("uninstall: %+v, %v", un, err)
			}
			if orig == "" {
				// reflect created the file: uninstall removes it.
				if _, err := os.Stat(path); !os.IsNotExist(err) || !un.Deleted {
					t.Fatalf("uninstall left the file reflect created: deleted=%v, %v", un.Deleted, err)
				}
			} else if got := string(readFile(t, path)); got != orig {
				t.Fatalf("uninstall is not exact:\n%q\nwant\n%q", got, orig)
			}
		})
	}
}

func TestInstallMCPCodexTableInTheMiddle(t *testing.T) {
	t.Parallel()
	isolate(t)
	path := filepath.Join(t.TempDir(), "config.toml")
	orig := "model = \"o3\"\n\n[mcp_servers.reflect]\ncommand = \"/old/reflect\"\nargs = [\"mcp\"]\n\n[projects.\"/x\"]\ntrust_level = \"trusted\"\n"
	if err := os.WriteFile(path, []byte(orig), 0o600); err != nil {
		t.Fatal(err)
	}
	opts := InstallOptions{Agent: "codex", SettingsPath: path, Binary: testBinary}
	res, err := InstallMCP(opts)
	if err != nil || len(res.Updated) != 1 {
		t.Fatalf("update: %+v, %v", res, err)
	}
	// Rewritten in place, with the env_vars line Codex needs to pass
	// reflect's settings to the server.
	want := strings.Replace(orig, "[mcp_servers.reflect]\ncommand = \"/old/reflect\"\nargs = [\"mcp\"]\n", codexBlock(testBinary), 1)
	if got := string(readFile(t, path)); got != want || !strings.Contains(got, `"REFLECT_LEARNINGS_DIR"`) {
		t.Fatalf("updated:\n%s\nwant\n%s", got, want)
	}
	// A table from before env_vars, same binary: brought up to date once.
	old := strings.Replace(orig, "/old/reflect", testBinary, 1)
	if err := os.WriteFile(path, []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	if res, err := InstallMCP(opts); err != nil || len(res.Updated) != 1 || string(readFile(t, path)) != want {
		t.Fatalf("a table without env_vars: %+v, %v\n%s", res, err, readFile(t, path))
	}
	if res, err := InstallMCP(opts); err != nil || res.Changed {
		t.Fatalf("again: %+v, %v", res, err)
	}
	if _, err := UninstallMCP(opts); err != nil {
		t.Fatal(err)
	}
	if got, want := string(readFile(t, path)), "model = \"o3\"\n\n[projects.\"/x\"]\ntrust_level = \"trusted\"\n"; got != want {
		t.Fatalf("uninstalled:\n%q\nwant\n%q", got, want)
	}
}

func TestInstallMCPCodexRefuses(t *testing.T) {
	t.Parallel()
	isolate(t)
	path := filepath.Join(t.TempDir(), "config.toml")
	for _, tc := range []struct{ content, want string }{
		{"[mcp_servers.reflect]\ncommand = \"uvx\"\nargs = [\"reflect-server\"]\n", "does not run `reflect mcp`"},
		{"mcp_servers = { reflect = { command = \"/old/reflect\", args = [\"mcp\"] } }\n", "inline or dotted"},
		{"model = \n", "invalid TOML"},
	} {
		if err := os.WriteFile(path, []byte(tc.content), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := InstallMCP(InstallOptions{Agent: "codex", SettingsPath: path, Binary: testBinary})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v; want an error saying %q", tc.content, err, tc.want)
		}
		if string(readFile(t, path)) != tc.content {
			t.Errorf("%q: the file changed", tc.content)
		}
	}
}

// OpenCode keeps its MCP servers under "mcp" in opencode.json of its
// config directory, a local server as one command array: install adds
// reflect's beside the user's settings, again changes nothing, uninstall
// restores the file byte for byte, and a "reflect" server that is not
// reflect's is refused and left alone.
func TestInstallMCPOpenCodeRoundTrip(t *testing.T) {
	t.Parallel()
	home := isolate(t)
	path, err := DefaultMCPConfigPath("opencode", Dirs{Home: home})
	if want := filepath.Join(home, ".config", "opencode", "opencode.json"); err != nil || path != want {
		t.Fatalf("path %q, %v; want %q", path, err, want)
	}
	if got, _ := DefaultMCPConfigPath("opencode", Dirs{Home: home, XDGConfig: "/xdg"}); got != "/xdg/opencode/opencode.json" {
		t.Errorf("with XDG_CONFIG_HOME: %q", got)
	}
	orig := "{\n  \"$schema\": \"https://opencode.ai/config.json\",\n  \"mcp\": {\n    \"github\": {\n      \"type\": \"remote\",\n      \"url\": \"https://example.invalid/mcp\"\n    }\n  }\n}\n"
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(orig), 0o644); err != nil {
		t.Fatal(err)
	}
	opts := InstallOptions{Agent: "opencode", Binary: testBinary, Dirs: Dirs{Home: home}}
	res, err := InstallMCP(opts)
	if err != nil || !res.Changed || len(res.Added) != 1 || res.Added[0].Event != "mcp.reflect" {
		t.Fatalf("install: %+v, %v", res, err)
	}
	var doc struct {
		Schema string                     `json:"$schema"`
		MCP    map[string]json.RawMessage `json:"mcp"`
	}
	if err := json.Unmarshal(readFile(t, path), &doc); err != nil {
		t.Fatal(err)
	}
	var ours openCodeServer
	if err := json.Unmarshal(doc.MCP["reflect"], &ours); err != nil || ours.Type != "local" ||
		strings.Join(ours.Command, " ") != testBinary+" mcp" || doc.Schema == "" || doc.MCP["github"] == nil {
		t.Fatalf("installed: %s (%v)", readFile(t, path), err)
	}
	if again, err := InstallMCP(opts); err != nil || again.Changed {
		t.Fatalf("second install: %+v, %v", again, err)
	}
	if un, err := UninstallMCP(opts); err != nil || !un.Changed || len(un.Removed) != 1 || un.Removed[0].Command != testBinary+" mcp" {
		t.Fatalf("uninstall: %+v, %v", un, err)
	}
	if got := string(readFile(t, path)); got != orig {
		t.Fatalf("uninstall is not exact:\n%s\nwant\n%s", got, orig)
	}

	theirs := `{"mcp": {"reflect": {"type": "local", "command": ["python3", "my_reflect.py"]}}}`
	if err := os.WriteFile(path, []byte(theirs), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := InstallMCP(opts); err == nil || !strings.Contains(err.Error(), "mcp.reflect is already defined") {
		t.Fatalf("someone else's reflect server was not refused: %v", err)
	}
	if res, err := UninstallMCP(opts); err != nil || res.Changed || string(readFile(t, path)) != theirs {
		t.Fatalf("uninstall touched someone else's server: %+v, %v", res, err)
	}
}
