package agents

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

func TestIsOurCommand(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		cmd, agent string
		want       bool
	}{
		{"/usr/local/bin/reflect hook stop --agent claude", "claude", true},
		{"reflect hook prompt --agent claude", "claude", true},
		{"GOMAXPROCS=1 /usr/local/bin/reflect hook stop --agent claude", "claude", true},
		{"GOMAXPROCS=1 '/my hook dir/reflect' hook stop --agent codex", "codex", true},
		{"reflect hook prompt --agent=claude", "claude", true},
		{"'/my hook dir/reflect' hook stop --agent claude", "claude", true},
		{"reflect hook stop --agent codex", "claude", false},
		{"reflect hook stop --agent claudex", "claude", false},
		{"/usr/bin/not-reflect hook stop --agent claude", "claude", false},
		{"reflect-dev hook stop --agent claude", "claude", false},
		{"GOMAXPROCS=1 /opt/reflect/reflect.exe hook stop --agent claude", "claude", true},
		{"/opt/reflect/reflect.exe.old hook stop --agent claude", "claude", false},
		{"reflect statusline", "claude", false},
		{"~/.claude/guard.sh", "claude", false},
		{"", "claude", false},
	} {
		if got := isOurCommand(tt.cmd, tt.agent); got != tt.want {
			t.Errorf("isOurCommand(%q, %q) = %v, want %v", tt.cmd, tt.agent, got, tt.want)
		}
	}
}

// An install by a reflect from before the GOMAXPROCS=1 prefix is upgraded in
// place: every entry is rewritten once, none is duplicated, and uninstall
// still removes them all.
func TestInstallUpgradesUnprefixedCommands(t *testing.T) {
	t.Parallel()
	isolate(t)
	for _, agent := range []string{"claude", "codex"} {
		path := filepath.Join(t.TempDir(), "settings.json")
		opts := InstallOptions{Agent: agent, SettingsPath: path, Binary: testBinary}
		if _, err := Install(opts); err != nil {
			t.Fatal(err)
		}
		current := readFile(t, path)
		old := bytes.ReplaceAll(current, []byte(oneProc), nil)
		if err := os.WriteFile(path, old, 0o600); err != nil {
			t.Fatal(err)
		}
		res, err := Install(opts)
		if err != nil || !res.Changed {
			t.Fatalf("%s: reinstall over unprefixed commands: changed=%v err=%v", agent, res.Changed, err)
		}
		if len(res.Added) != 0 {
			t.Errorf("%s: reinstall added %+v instead of updating", agent, res.Added)
		}
		if got := readFile(t, path); !bytes.Equal(got, current) {
			t.Errorf("%s: after the upgrade:\n%s\nwant:\n%s", agent, got, current)
		}
		if _, err := Uninstall(opts); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(path); !os.IsNotExist(err) {
			t.Errorf("%s: the file install created is left after uninstall: %v", agent, err)
		}
	}
}
