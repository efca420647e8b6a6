package agents

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reflectkb/reflect/internal/jsonobj"
)

// TestGeminiHooksWillRun: doctor's answer to "will Gemini run reflect's
// hooks" follows hooksConfig.enabled and hooksConfig.disabled, where
// Gemini's /hooks disable writes a hook's name.
func TestGeminiHooksWillRun(t *testing.T) {
	isolate(t)
	path := filepath.Join(t.TempDir(), "settings.json")
	if got, err := GeminiHooks(path); err != nil || len(got) != 0 {
		t.Fatalf("no file: %+v, %v", got, err)
	}
	if _, err := Install(InstallOptions{Agent: "gemini", SettingsPath: path, Binary: testBinary}); err != nil {
		t.Fatal(err)
	}
	all, err := GeminiHooks(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != len(geminiAgent.hooks) {
		t.Fatalf("listed %d hooks, want %d: %+v", len(all), len(geminiAgent.hooks), all)
	}
	for _, h := range all {
		if !h.Runs || h.Why != "" {
			t.Errorf("%+v: want it to run", h)
		}
	}

	// setConfig replaces hooksConfig as the user (or /hooks) would.
	setConfig := func(cfg string) {
		t.Helper()
		root, err := jsonobj.ParseDocument(readFile(t, path))
		if err != nil {
			t.Fatal(err)
		}
		if err := root.Set("hooksConfig", json.RawMessage(cfg)); err != nil {
			t.Fatal(err)
		}
		out, err := root.Render()
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, out, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	setConfig(`{"disabled": ["reflect-prompt"]}`)
	got, err := GeminiHooks(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range got {
		if want := h.Hook != "prompt"; h.Runs != want {
			t.Errorf("%s runs = %v, want %v (%s)", h.Hook, h.Runs, want, h.Why)
		}
	}
	setConfig(`{"enabled": false}`)
	got, err = GeminiHooks(path)
	if err != nil || len(got) == 0 {
		t.Fatalf("%+v, %v", got, err)
	}
	for _, h := range got {
		if h.Runs || !strings.Contains(h.Why, "hooksConfig.enabled") {
			t.Errorf("%+v: want not running because hooks are off", h)
		}
	}

	if err := os.WriteFile(path, []byte("{\"hooks\": "), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := GeminiHooks(path); err == nil {
		t.Error("a broken settings file gave no error")
	}
}

// TestInstallMCPGeminiRoundTrip: the server goes into the same
// settings.json as the hooks, beside the user's own servers, and
// uninstall gives back the file's content.
func TestInstallMCPGeminiRoundTrip(t *testing.T) {
	home := isolate(t)
	want := filepath.Join(home, ".gemini", "settings.json")
	if got, err := DefaultMCPConfigPath("gemini", Dirs{Home: home}); err != nil || got != want {
		t.Fatalf("DefaultMCPConfigPath = %q, %v; want %q", got, err, want)
	}
	path, orig := copyFixture(t, "gemini/user-settings.json", "settings.json")
	opts := InstallOptions{Agent: "gemini", SettingsPath: path, Binary: testBinary}
	res, err := InstallMCP(opts)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Changed || len(res.Added) != 1 || res.Added[0].Event != "mcpServers.reflect" {
		t.Fatalf("install: %+v", res)
	}
	got := string(readFile(t, path))
	if !strings.Contains(got, `"reflect": {
      "command": "/opt/reflect/bin/reflect",
      "args": [
        "mcp"
      ]
    }`) || !strings.Contains(got, `"github-mcp-server"`) {
		t.Errorf("settings after install:\n%s", got)
	}
	if res, err := InstallMCP(opts); err != nil || res.Changed {
		t.Errorf("second install: %+v, %v", res, err)
	}
	if res, err := UninstallMCP(opts); err != nil || len(res.Removed) != 1 {
		t.Fatalf("uninstall: %+v, %v", res, err)
	}
	if !semanticallyEqual(t, orig, readFile(t, path)) {
		t.Errorf("after uninstall:\n%s", readFile(t, path))
	}
}

// Gemini reads hook timeouts in milliseconds; what install and uninstall
// report stays in seconds, as for every agent.
func TestGeminiTimeoutsInMilliseconds(t *testing.T) {
	isolate(t)
	path := filepath.Join(t.TempDir(), "settings.json")
	opts := InstallOptions{Agent: "gemini", SettingsPath: path, Binary: testBinary}
	res, err := Install(opts)
	if err != nil {
		t.Fatal(err)
	}
	if res.Added[0].Event != "SessionStart" || res.Added[0].Timeout != 10 {
		t.Errorf("reported %+v, want SessionStart with 10 s", res.Added[0])
	}
	if got := string(readFile(t, path)); !strings.Contains(got, `"timeout": 10000`) {
		t.Errorf("file does not hold 10000 ms:\n%s", got)
	}
	res, err = Uninstall(opts)
	if err != nil || len(res.Removed) == 0 || res.Removed[0].Timeout != 10 {
		t.Errorf("uninstall reported %+v, %v; want 10 s", res.Removed, err)
	}
}

// TestGeminiInstallDropsBeforeTool: an install made when reflect registered
// a BeforeTool hook for Gemini (which gives it no channel to the model)
// loses that entry on the next install, and keeps the user's own
// BeforeTool hooks.
func TestGeminiInstallDropsBeforeTool(t *testing.T) {
	isolate(t)
	path := filepath.Join(t.TempDir(), "settings.json")
	old := `{
  "hooks": {
    "BeforeTool": [
      {"matcher": "run_shell_command", "hooks": [
        {"name": "reflect-pre-tool", "type": "command", "command": "GOMAXPROCS=1 /old/reflect hook pre-tool --agent gemini", "timeout": 5000}
      ]},
      {"matcher": "write_file", "hooks": [
        {"name": "lint", "type": "command", "command": "my-linter"}
      ]}
    ]
  }
}
`
	if err := os.WriteFile(path, []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Install(InstallOptions{Agent: "gemini", SettingsPath: path, Binary: testBinary}); err != nil {
		t.Fatal(err)
	}
	got := string(readFile(t, path))
	if strings.Contains(got, "reflect-pre-tool") || strings.Contains(got, "hook pre-tool") {
		t.Errorf("the old BeforeTool hook is still registered:\n%s", got)
	}
	if !strings.Contains(got, "my-linter") {
		t.Errorf("the user's own BeforeTool hook was lost:\n%s", got)
	}
	if !strings.Contains(got, "hook post-tool --agent gemini") {
		t.Errorf("AfterTool hook missing:\n%s", got)
	}
}
