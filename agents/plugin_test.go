package agents

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/reflectkb/reflect/internal/jsonobj"
	"github.com/reflectkb/reflect/internal/testfs"
)

// pluginNotice is the one line the plugin's SessionStart hook prints, as
// Claude Code's systemMessage, when there is no reflect on PATH.
const pluginNotice = `reflect: the reflect binary is not on PATH, so the plugin does nothing yet. ` +
	`Install it (curl -fsSL https://raw.githubusercontent.com/reflectkb/reflect/main/install.sh | sh, or npm i -g reflectkb), then start a new session.`

// pluginGuard is what the plugin's hooks.json puts before each installer
// command: without a reflect on PATH the hook exits 0 (saying so once, at
// session start) instead of failing every event with "not found".
func pluginGuard(sub string) string {
	if sub == "session-start" {
		return `command -v reflect >/dev/null 2>&1 || { echo '{"systemMessage":"` + pluginNotice + `"}'; exit 0; }; `
	}
	return "command -v reflect >/dev/null 2>&1 || exit 0; "
}

// pluginCommands are the plugin's hook commands by event.
func pluginCommands(t *testing.T) map[string]string {
	t.Helper()
	var plugin struct {
		Hooks map[string][]matcherGroup `json:"hooks"`
	}
	if err := json.Unmarshal(readFile(t, filepath.Join("..", "hooks", "hooks.json")), &plugin); err != nil {
		t.Fatal(err)
	}
	cmds := map[string]string{}
	for event, groups := range plugin.Hooks {
		for _, g := range groups {
			for _, h := range g.Hooks {
				cmds[event] = h.Command
			}
		}
	}
	return cmds
}

// runHook runs a hook command the way Claude Code does (sh -c), with PATH
// set to path.
func runHook(t *testing.T, command, path string) (string, error) {
	t.Helper()
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	cmd := exec.Command(sh, "-c", command)
	cmd.Env = []string{"PATH=" + path, "HOME=" + t.TempDir()}
	out, err := cmd.Output()
	return string(out), err
}

// Without a reflect binary the plugin's hooks never fail the session:
// each exits 0, and only SessionStart says (once, as a systemMessage) how
// to install it. With one, the hook runs it with the installer's arguments.
func TestPluginHooksWithoutReflect(t *testing.T) {
	t.Parallel()
	// A PATH with the shell's own tools but no reflect.
	empty := t.TempDir()
	for _, tool := range []string{"sh"} {
		p, err := exec.LookPath(tool)
		if err != nil {
			t.Skip("no", tool)
		}
		if err := os.Symlink(p, filepath.Join(empty, tool)); err != nil {
			t.Fatal(err)
		}
	}
	cmds := pluginCommands(t)
	if len(cmds) == 0 {
		t.Fatal("no plugin hooks")
	}
	for event, command := range cmds {
		out, err := runHook(t, command, empty)
		if err != nil {
			t.Errorf("%s without reflect: %v", event, err)
			continue
		}
		if event != "SessionStart" {
			if out != "" {
				t.Errorf("%s without reflect printed %q", event, out)
			}
			continue
		}
		var msg struct {
			SystemMessage string `json:"systemMessage"`
		}
		if err := json.Unmarshal([]byte(out), &msg); err != nil || msg.SystemMessage != pluginNotice || strings.Count(out, "\n") != 1 {
			t.Errorf("SessionStart without reflect printed %q (%v), want one systemMessage line", out, err)
		}
	}

	// With a reflect on PATH (here a script that prints its arguments).
	withReflect := t.TempDir()
	fake := "#!/bin/sh\necho \"ran: $*\"\n"
	if err := testfs.WriteExecutable(filepath.Join(withReflect, "reflect"), []byte(fake)); err != nil {
		t.Fatal(err)
	}
	out, err := runHook(t, cmds["UserPromptSubmit"], withReflect+string(os.PathListSeparator)+os.Getenv("PATH"))
	if err != nil || out != "ran: hook prompt --agent claude\n" {
		t.Errorf("UserPromptSubmit with reflect: %q, %v", out, err)
	}
	out, err = runHook(t, cmds["SessionStart"], withReflect+string(os.PathListSeparator)+os.Getenv("PATH"))
	if err != nil || out != "ran: hook session-start --agent claude\n" {
		t.Errorf("SessionStart with reflect: %q, %v", out, err)
	}
}

// TestPluginHooksMatchInstaller keeps the plugin's hooks/hooks.json and the
// settings.json installer from drifting apart: same events, matchers,
// commands (with reflect taken from PATH, behind pluginGuard) and timeouts,
// in the same order.
func TestPluginHooksMatchInstaller(t *testing.T) {
	t.Parallel()
	data := readFile(t, filepath.Join("..", "hooks", "hooks.json"))
	var plugin struct {
		Description string                    `json:"description"`
		Hooks       map[string][]matcherGroup `json:"hooks"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&plugin); err != nil {
		t.Fatalf("hooks.json: %v", err)
	}
	root, err := jsonobj.ParseDocument(data)
	if err != nil {
		t.Fatal(err)
	}
	hooks, err := root.Object("hooks")
	if err != nil {
		t.Fatal(err)
	}
	var got, want []Entry
	for _, event := range hooks.Keys() {
		for _, g := range plugin.Hooks[event] {
			for _, h := range g.Hooks {
				if h.Type != "command" {
					t.Errorf("%s: type %q", event, h.Type)
				}
				got = append(got, Entry{Event: event, Matcher: g.Matcher, Command: h.Command, Timeout: h.Timeout, StatusMessage: h.StatusMessage})
			}
		}
	}
	m := mutator{agent: specs["claude"], binary: "reflect"}
	for _, h := range specs["claude"].hooks {
		want = append(want, Entry{Event: h.Event, Matcher: h.Matcher, Command: pluginGuard(h.Sub) + m.command(h.Sub), Timeout: h.Timeout})
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("plugin hooks.json:\n%+v\ninstaller:\n%+v", got, want)
	}

	var manifest struct {
		Name, Version, Description string
		Author                     struct{ Name string }
	}
	if err := json.Unmarshal(readFile(t, filepath.Join("..", ".claude-plugin", "plugin.json")), &manifest); err != nil {
		t.Fatalf("plugin.json: %v", err)
	}
	if manifest.Name != "reflect" || manifest.Version == "" || manifest.Description == "" || manifest.Author.Name == "" {
		t.Errorf("plugin.json = %+v", manifest)
	}
}
