package agents

import (
	"os"
	"path/filepath"
	"testing"
)

// absent fails the test when any of paths exists.
func absent(t *testing.T, what string, paths ...string) {
	t.Helper()
	for _, p := range paths {
		if _, err := os.Lstat(p); !os.IsNotExist(err) {
			got, _ := os.ReadFile(p)
			t.Errorf("%s: %s is left (%v):\n%s", what, p, err, got)
		}
	}
}

// A settings file reflect created, then rewrote (an install from a moved
// binary, Gemini's MCP entry in the same file), is removed by uninstall
// with no "backup of the original" holding reflect's own hooks, for every
// agent whose file is a hooks JSON. Older releases left {} and such a
// backup.
func TestUninstallRemovesTheFileItCreated(t *testing.T) {
	t.Parallel()
	for _, agent := range []string{"claude", "codex", "gemini", "copilot"} {
		t.Run(agent, func(t *testing.T) {
			dirs := Dirs{Home: isolate(t)}
			opts := InstallOptions{Agent: agent, Binary: testBinary, Dirs: dirs}
			if _, err := Install(opts); err != nil {
				t.Fatal(err)
			}
			moved := opts
			moved.Binary = "/usr/local/bin/reflect"
			res, err := Install(moved)
			if err != nil || !res.Changed {
				t.Fatalf("install from a moved binary: %+v, %v", res, err)
			}
			if res.BackupWritten {
				t.Errorf("a backup of reflect's own file was written: %s", res.BackupPath)
			}
			mcpPath, _ := DefaultMCPConfigPath(agent, dirs)
			if agent == "gemini" {
				if res, err := InstallMCP(moved); err != nil || res.BackupWritten {
					t.Fatalf("mcp install into reflect's own file: %+v, %v", res, err)
				}
			}
			un, err := Uninstall(moved)
			if err != nil || !un.Changed {
				t.Fatalf("uninstall: %+v, %v", un, err)
			}
			if agent == "gemini" {
				if un.Deleted {
					t.Fatal("uninstall deleted a file that still holds the MCP entry")
				}
				if un, err = UninstallMCP(moved); err != nil || !un.Changed {
					t.Fatalf("mcp uninstall: %+v, %v", un, err)
				}
			}
			if !un.Deleted {
				t.Errorf("the last uninstall did not report the file deleted: %+v", un)
			}
			absent(t, agent, un.Path, un.Path+BackupSuffix, mcpPath, mcpPath+BackupSuffix)
		})
	}
}

// A backup that an older release wrote of reflect's own file (it holds
// nothing but reflect's hooks) is no original: uninstall removes it and
// the file.
func TestUninstallRemovesABackupOfReflectsOwnFile(t *testing.T) {
	t.Parallel()
	dirs := Dirs{Home: isolate(t)}
	opts := InstallOptions{Agent: "gemini", Binary: testBinary, Dirs: dirs}
	res, err := Install(opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(res.Path+BackupSuffix, readFile(t, res.Path), 0o600); err != nil {
		t.Fatal(err)
	}
	un, err := Uninstall(opts)
	if err != nil || !un.Deleted || !un.BackupRemoved {
		t.Fatalf("uninstall: %+v, %v", un, err)
	}
	absent(t, "gemini", res.Path, res.Path+BackupSuffix)
}

// What the user added to a file reflect created stays; only reflect's
// entries go, and there is no backup to leave.
func TestUninstallKeepsWhatTheUserAddedToReflectsFile(t *testing.T) {
	t.Parallel()
	dirs := Dirs{Home: isolate(t)}
	opts := InstallOptions{Agent: "codex", Binary: testBinary, Dirs: dirs}
	res, err := Install(opts)
	if err != nil {
		t.Fatal(err)
	}
	data := readFile(t, res.Path)
	withUser := append([]byte(`{"description": "mine",`), data[1:]...)
	if err := os.WriteFile(res.Path, withUser, 0o600); err != nil {
		t.Fatal(err)
	}
	un, err := Uninstall(opts)
	if err != nil || un.Deleted {
		t.Fatalf("uninstall: %+v, %v", un, err)
	}
	if got := readFile(t, res.Path); !semanticallyEqual(t, got, []byte(`{"description": "mine"}`)) {
		t.Errorf("after uninstall:\n%s", got)
	}
	absent(t, "codex", res.Path+BackupSuffix)
}

// An empty settings file the user had ({}) is theirs: uninstall gives it
// back, byte for byte, and removes only the backup.
func TestUninstallKeepsTheUsersEmptyFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(isolate(t), "settings.json")
	orig := []byte("{ }\n")
	if err := os.WriteFile(path, orig, 0o600); err != nil {
		t.Fatal(err)
	}
	opts := InstallOptions{Agent: "claude", SettingsPath: path, Binary: testBinary}
	if res, err := Install(opts); err != nil || !res.BackupWritten {
		t.Fatalf("install: %+v, %v", res, err)
	}
	un, err := Uninstall(opts)
	if err != nil || un.Deleted || !un.BackupRemoved {
		t.Fatalf("uninstall: %+v, %v", un, err)
	}
	if got := readFile(t, path); string(got) != string(orig) {
		t.Errorf("after uninstall: %q, want %q", got, orig)
	}
	absent(t, "claude", path+BackupSuffix)
}

// UninstallAll leaves no trace in any agent: hooks, status line, MCP
// entries and OpenCode's plugin file go, the user's own settings stay.
func TestUninstallAll(t *testing.T) {
	t.Parallel()
	dirs := Dirs{Home: isolate(t)}
	var created []string
	for _, name := range Names {
		opts := InstallOptions{Agent: name, Binary: testBinary, Dirs: dirs}
		res, err := Install(opts)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		created = append(created, res.Path, res.Path+BackupSuffix)
		if specs[name].editMCP != nil {
			res, err := InstallMCP(opts)
			if err != nil {
				t.Fatalf("%s mcp: %v", name, err)
			}
			created = append(created, res.Path, res.Path+BackupSuffix)
		}
	}
	// The user's own ~/.claude.json, which holds far more than MCP servers.
	claudeJSON := filepath.Join(dirs.Home, ".claude.json")
	mine := []byte("{\n  \"numStartups\": 3\n}\n")
	if err := os.WriteFile(claudeJSON, mine, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := InstallMCP(InstallOptions{Agent: "claude", Binary: testBinary, Dirs: dirs}); err != nil {
		t.Fatal(err)
	}

	results, err := UninstallAll(InstallOptions{Agent: "ignored", SettingsPath: "/ignored", Dirs: dirs})
	if err != nil {
		t.Fatal(err)
	}
	removed := 0
	for _, r := range results {
		removed += len(r.Removed)
	}
	if removed == 0 {
		t.Fatalf("nothing removed: %+v", results)
	}
	var left []string
	for _, p := range created {
		if p == claudeJSON {
			continue
		}
		if _, err := os.Lstat(p); err == nil {
			left = append(left, p)
		}
	}
	if len(left) > 0 {
		t.Errorf("left behind: %v", left)
	}
	if got := readFile(t, claudeJSON); string(got) != string(mine) {
		t.Errorf("~/.claude.json after uninstall --all:\n%s\nwant:\n%s", got, mine)
	}
	absent(t, "claude", claudeJSON+BackupSuffix)
	for _, name := range Names {
		if st := status(t.Context(), specs[name], dirs); st.Installed {
			t.Errorf("%s still installed: %+v", name, st)
		}
	}
}

// What an uninstall by an older release left, {} and a backup of reflect's
// own hooks, goes at the next uninstall, which has no entry to remove.
func TestUninstallRemovesAnOlderUninstallsLeftovers(t *testing.T) {
	t.Parallel()
	for _, agent := range []string{"codex", "gemini"} {
		dirs := Dirs{Home: isolate(t)}
		opts := InstallOptions{Agent: agent, Binary: testBinary, Dirs: dirs}
		res, err := Install(opts)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(res.Path+BackupSuffix, readFile(t, res.Path), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(res.Path, []byte("{}\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		un, err := Uninstall(opts)
		if err != nil || un.Changed || !un.Deleted || !un.BackupRemoved {
			t.Fatalf("%s uninstall: %+v, %v", agent, un, err)
		}
		absent(t, agent, res.Path, res.Path+BackupSuffix)

		// A {} beside a backup of the user's own file is theirs: kept.
		if err := os.WriteFile(res.Path+BackupSuffix, []byte(`{"model": "x"}`), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(res.Path, []byte("{}\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if un, err := Uninstall(opts); err != nil || un.Deleted || un.BackupRemoved {
			t.Fatalf("%s uninstall beside the user's backup: %+v, %v", agent, un, err)
		}
		if string(readFile(t, res.Path)) != "{}\n" || string(readFile(t, res.Path+BackupSuffix)) != `{"model": "x"}` {
			t.Errorf("%s: the user's files changed", agent)
		}
	}
}
