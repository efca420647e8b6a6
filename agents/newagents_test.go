package agents

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reflectkb/reflect/internal/testfs"
)

// Copilot CLI: hooks land under the PascalCase events in settings.json
// as flat {type, bash, timeoutSec} handlers; the user's own settings and
// hooks stay, a second install changes nothing, an upgrade rewrites in
// place, uninstall removes exactly ours and the backup is written once.
func TestCopilotInstall(t *testing.T) {
	home := isolate(t)
	path := filepath.Join(home, ".copilot", "settings.json")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	orig := `{
  "banner": "never",
  "hooks": {
    "PostToolUse": [{"type": "command", "bash": "./audit.sh", "timeoutSec": 3}]
  }
}
`
	if err := os.WriteFile(path, []byte(orig), 0o600); err != nil {
		t.Fatal(err)
	}
	res, err := Install(InstallOptions{Agent: "copilot", Binary: testBinary, Dirs: Dirs{Home: home}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Path != path || !res.Changed || len(res.Added) != len(copilotHooks) || !res.BackupWritten {
		t.Fatalf("install: %+v", res)
	}
	var got struct {
		Banner string                    `json:"banner"`
		Hooks  map[string][]copilotEntry `json:"hooks"`
	}
	if err := json.Unmarshal(readFile(t, path), &got); err != nil {
		t.Fatal(err)
	}
	post := got.Hooks["PostToolUse"]
	if got.Banner != "never" || len(post) != 2 || post[0].Bash != "./audit.sh" ||
		post[1] != (copilotEntry{Type: "command", Bash: "GOMAXPROCS=1 " + testBinary + " hook post-tool --agent copilot", TimeoutSec: 5}) {
		t.Fatalf("settings after install: %+v", got)
	}
	for _, h := range copilotHooks {
		if len(got.Hooks[h.Event]) == 0 {
			t.Errorf("no %s hook", h.Event)
		}
	}
	again, err := Install(InstallOptions{Agent: "copilot", Binary: testBinary, Dirs: Dirs{Home: home}})
	if err != nil || again.Changed || again.BackupWritten {
		t.Fatalf("second install: %+v, %v", again, err)
	}
	moved, err := Install(InstallOptions{Agent: "copilot", Binary: "/usr/local/bin/reflect", Dirs: Dirs{Home: home}})
	if err != nil || len(moved.Updated) != len(copilotHooks) || moved.BackupWritten {
		t.Fatalf("install from another binary: %+v, %v", moved, err)
	}
	if !strings.Contains(string(readFile(t, path)), `"./audit.sh"`) {
		t.Fatal("the user's hook was lost")
	}
	un, err := Uninstall(InstallOptions{Agent: "copilot", Dirs: Dirs{Home: home}})
	if err != nil || len(un.Removed) != len(copilotHooks) {
		t.Fatalf("uninstall: %+v, %v", un, err)
	}
	var after map[string]any
	if err := json.Unmarshal(readFile(t, path), &after); err != nil {
		t.Fatal(err)
	}
	hooks, _ := after["hooks"].(map[string]any)
	if after["banner"] != "never" || len(hooks) != 1 || len(hooks["PostToolUse"].([]any)) != 1 {
		t.Fatalf("after uninstall: %v", after)
	}
	// The file is the original again (in the original's own bytes), so
	// the backup, which reflect wrote, goes.
	if string(readFile(t, path)) != orig || !un.BackupRemoved {
		t.Fatalf("after uninstall (backup removed %v):\n%s\nwant the original:\n%s", un.BackupRemoved, readFile(t, path), orig)
	}
	if _, err := os.Stat(path + BackupSuffix); !os.IsNotExist(err) {
		t.Fatalf("backup left behind: %v", err)
	}
	if st := status(context.Background(), specs["copilot"], Dirs{Home: home}); st.Installed {
		t.Fatalf("status after uninstall: %+v", st)
	}
}

// OpenCode: install writes reflect's own plugin file (the binary quoted as
// a JS string), a dry run writes nothing and shows the diff, a second
// install is a no-op, a file of that name that reflect did not write is
// refused and never removed, uninstall deletes ours.
func TestOpenCodeInstall(t *testing.T) {
	home := isolate(t)
	path := filepath.Join(home, ".config", "opencode", "plugins", "reflect.js")
	bin := "/opt/my reflect/bin/reflect"
	dry, err := Install(InstallOptions{Agent: "opencode", Binary: bin, DryRun: true, Dirs: Dirs{Home: home}})
	if err != nil || !dry.Changed || !strings.Contains(dry.Diff, "+++ "+path) || !strings.Contains(dry.Diff, `+const REFLECT = "/opt/my reflect/bin/reflect";`) {
		t.Fatalf("dry run: %+v, %v", dry, err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatal("dry run wrote the plugin")
	}
	res, err := Install(InstallOptions{Agent: "opencode", Binary: bin, Dirs: Dirs{Home: home}})
	if err != nil || !res.Created || len(res.Added) != 1 {
		t.Fatalf("install: %+v, %v", res, err)
	}
	data := string(readFile(t, path))
	if !strings.HasPrefix(data, openCodeMarker) || strings.Contains(data, "@REFLECT@") || binaryOf(data) != bin {
		t.Fatalf("plugin:\n%s", data)
	}
	if again, err := Install(InstallOptions{Agent: "opencode", Binary: bin, Dirs: Dirs{Home: home}}); err != nil || again.Changed {
		t.Fatalf("second install: %+v, %v", again, err)
	}
	t.Setenv("PATH", "") // no opencode executable: status still reads the file
	if st := status(context.Background(), specs["opencode"], Dirs{Home: home}); !st.Installed || !st.HooksRun || st.Executable != "" {
		t.Fatalf("status: %+v", st)
	}
	un, err := Uninstall(InstallOptions{Agent: "opencode", Dirs: Dirs{Home: home}})
	if err != nil || len(un.Removed) != 1 || !un.Deleted || !strings.Contains(un.Removed[0].Command, "'/opt/my reflect/bin/reflect'") {
		t.Fatalf("uninstall: %+v, %v", un, err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatal("uninstall left the plugin")
	}

	mine := "export const Mine = async () => ({})\n"
	if err := os.WriteFile(path, []byte(mine), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Install(InstallOptions{Agent: "opencode", Binary: bin, Dirs: Dirs{Home: home}}); err == nil || !strings.Contains(err.Error(), "not written by reflect") {
		t.Fatalf("install over the user's file: %v", err)
	}
	if un, err := Uninstall(InstallOptions{Agent: "opencode", Dirs: Dirs{Home: home}}); err != nil || un.Changed {
		t.Fatalf("uninstall of the user's file: %+v, %v", un, err)
	}
	if string(readFile(t, path)) != mine {
		t.Fatal("the user's file was touched")
	}
}

// XDG_CONFIG_HOME and COPILOT_HOME move the files as they move the agents'.
func TestNewAgentsConfigDirs(t *testing.T) {
	t.Parallel()
	dirs := Dirs{Home: isolate(t), XDGConfig: "/x/config", Copilot: "/x/copilot"}
	for agent, want := range map[string]string{"opencode": "/x/config/opencode/plugins/reflect.js", "copilot": "/x/copilot/settings.json"} {
		if got, err := DefaultSettingsPath(agent, dirs); err != nil || got != want {
			t.Errorf("%s: %q, %v; want %q", agent, got, err, want)
		}
	}
}

// Status lists every agent of the registry, in order, whether installed
// or not; Copilot with "disableAllHooks" does not run them, Codex without
// trust does not either.
func TestStatuses(t *testing.T) {
	home := isolate(t)
	t.Setenv("PATH", "")
	for _, a := range []string{"codex", "gemini", "copilot"} {
		if _, err := Install(InstallOptions{Agent: a, Binary: testBinary, Dirs: Dirs{Home: home}}); err != nil {
			t.Fatal(err)
		}
	}
	settings := filepath.Join(home, ".copilot", "settings.json")
	data := strings.Replace(string(readFile(t, settings)), "{", `{"disableAllHooks": true,`, 1)
	if err := os.WriteFile(settings, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	sts := Statuses(context.Background(), Dirs{Home: home})
	var names []string
	for _, s := range sts {
		names = append(names, s.Agent)
	}
	if strings.Join(names, ",") != strings.Join(Names, ",") || strings.Join(Names, ",") != "claude,codex,gemini,opencode,copilot" {
		t.Fatalf("agents %q", names)
	}
	by := map[string]AgentStatus{}
	for _, s := range sts {
		by[s.Agent] = s
	}
	if s := by["claude"]; s.Installed || s.HooksRun {
		t.Errorf("claude: %+v", s)
	}
	if s := by["codex"]; !s.Installed || s.HooksRun || !strings.Contains(s.Detail, "/hooks") {
		t.Errorf("codex without trust: %+v", s)
	}
	if s := by["gemini"]; !s.Installed || !s.HooksRun {
		t.Errorf("gemini installed: %+v", s)
	}
	if s := by["copilot"]; !s.Installed || s.HooksRun || !strings.Contains(s.Detail, "disableAllHooks") {
		t.Errorf("copilot with disableAllHooks: %+v", s)
	}
}

// The version is the first version number the agent's --version prints
// (Copilot ends its sentence with a dot).
func TestVersion(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "copilot")
	if err := testfs.WriteExecutable(bin, []byte("#!/bin/sh\necho 'GitHub Copilot CLI 1.0.102.'\necho 'Run copilot update 2.0.0'\n")); err != nil {
		t.Fatal(err)
	}
	if v := version(context.Background(), bin); v != "1.0.102" {
		t.Fatalf("version %q", v)
	}
	if v := version(context.Background(), filepath.Join(dir, "missing")); v != "" {
		t.Fatalf("missing binary: %q", v)
	}
}
