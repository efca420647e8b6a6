package agents

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/reflectkb/reflect/internal/jsonobj"
	"github.com/reflectkb/reflect/internal/udiff"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

const testBinary = "/opt/reflect/bin/reflect"

// isolate gives a test its own home directory. The package reads no
// environment: a test reaches a default path only through Dirs{Home: home},
// so none can reach the real ~/.claude or ~/.codex.
func isolate(t *testing.T) string {
	t.Helper()
	return t.TempDir()
}

// copyFixture copies testdata/<name> into a fresh temp dir and returns the
// copy's path and original bytes.
func copyFixture(t *testing.T, name, as string) (string, []byte) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), as)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path, data
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run %s -update)", err, t.Name())
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from golden:\n%s", name, udiff.Unified("want", "got", want, got))
	}
}

func semanticallyEqual(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatalf("unmarshal: %v\n%s", err, a)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatalf("unmarshal: %v\n%s", err, b)
	}
	return reflect.DeepEqual(x, y)
}

// get is o's raw value for key, nil when absent.
func get(o *jsonobj.Object, key string) json.RawMessage {
	v, _ := o.Get(key)
	return v
}

// topKeys returns the top-level keys of a JSON object in file order.
func topKeys(t *testing.T, data []byte) []string {
	t.Helper()
	o, err := jsonobj.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	return o.Keys()
}

func TestInstallMissingFile(t *testing.T) {
	t.Parallel()
	// The agents whose file is a hooks JSON with golden files here;
	// OpenCode's plugin and Copilot have their own tests.
	for _, agent := range []string{"claude", "codex", "gemini"} {
		t.Run(agent, func(t *testing.T) {
			dirs := Dirs{Home: isolate(t)}
			path, err := DefaultSettingsPath(agent, dirs)
			if err != nil {
				t.Fatal(err)
			}
			res, err := Install(InstallOptions{Agent: agent, Binary: testBinary, Dirs: dirs})
			if err != nil {
				t.Fatal(err)
			}
			if !res.Changed || !res.Created || res.Path != path {
				t.Errorf("result = %+v, want changed and created at %s", res, path)
			}
			if res.BackupPath != "" || res.BackupWritten {
				t.Errorf("backup %q for a file that did not exist", res.BackupPath)
			}
			if _, err := os.Stat(path + BackupSuffix); !os.IsNotExist(err) {
				t.Errorf("backup file exists: %v", err)
			}
			wantAdded := len(specs[agent].hooks)
			if agent == "claude" {
				wantAdded++ // statusLine
			}
			if len(res.Added) != wantAdded {
				t.Errorf("added %d entries, want %d: %+v", len(res.Added), wantAdded, res.Added)
			}
			fi, err := os.Stat(filepath.Dir(path))
			if err != nil || fi.Mode().Perm() != 0o700 {
				t.Errorf("config dir: %v, mode %v", err, fi.Mode().Perm())
			}
			golden(t, agent+"/missing.installed.json", readFile(t, path))
		})
	}
}

func TestInstallKeepsUserSettings(t *testing.T) {
	t.Parallel()
	tests := []struct {
		agent, fixture, golden string
		userCommands           []string
	}{
		{"claude", "claude/user-settings.json", "claude/user-settings.installed.json",
			[]string{"~/.claude/guard.sh", "notify-send 'Claude is done'"}},
		{"claude", "claude/compact.json", "claude/compact.installed.json",
			[]string{"say done && echo \\u00e9 > /tmp/x"}},
		{"codex", "codex/user-hooks.json", "codex/user-hooks.installed.json",
			[]string{"python3 ~/.codex/hooks/guard.py", "python3 ~/.codex/hooks/stop.py"}},
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			isolate(t)
			path, orig := copyFixture(t, tt.fixture, "settings.json")
			res, err := Install(InstallOptions{Agent: tt.agent, SettingsPath: path, Binary: testBinary})
			if err != nil {
				t.Fatal(err)
			}
			if !res.Changed || res.Created {
				t.Errorf("changed=%v created=%v, want true false", res.Changed, res.Created)
			}
			got := readFile(t, path)
			golden(t, tt.golden, got)

			// Every original top-level key survives, in order, before ours.
			origKeys, gotKeys := topKeys(t, orig), topKeys(t, got)
			if !reflect.DeepEqual(gotKeys[:len(origKeys)], origKeys) {
				t.Errorf("top-level keys %v, want prefix %v", gotKeys, origKeys)
			}
			for _, k := range origKeys {
				if k == "hooks" || k == "statusLine" {
					continue
				}
				o1, _ := jsonobj.Parse(orig)
				o2, _ := jsonobj.Parse(got)
				if !jsonobj.Equal(get(o1, k), get(o2, k)) {
					t.Errorf("key %q changed: %s -> %s", k, get(o1, k), get(o2, k))
				}
			}
			// The user's hooks survive byte for byte (raw escapes included).
			for _, c := range tt.userCommands {
				if !bytes.Contains(got, []byte(c)) {
					t.Errorf("user command %q lost", c)
				}
			}
			// A user's own statusLine is never replaced.
			if tt.fixture == "claude/user-settings.json" {
				o, _ := jsonobj.Parse(got)
				if cmd, mine := ourStatusLine(get(o, "statusLine")); mine || cmd != "~/.claude/statusline.sh" {
					t.Errorf("statusLine = %s", get(o, "statusLine"))
				}
				if len(res.Notes) == 0 || !strings.Contains(strings.Join(res.Notes, "\n"), "statusLine") {
					t.Errorf("no note about the kept statusLine: %q", res.Notes)
				}
			}
			// Existing event arrays keep the user's group first.
			o, _ := jsonobj.Parse(got)
			hooks, _ := o.Object("hooks")
			stop, _ := hooks.Array("Stop")
			if len(stop) != 2 || isOurHook(firstHook(t, stop[0]), tt.agent) || !isOurHook(firstHook(t, stop[1]), tt.agent) {
				t.Errorf("Stop groups = %s", jsonobj.MarshalArray(stop))
			}
		})
	}
}

func firstHook(t *testing.T, group json.RawMessage) json.RawMessage {
	t.Helper()
	_, list, ok := parseGroup(group)
	if !ok || len(list) == 0 {
		t.Fatalf("bad group %s", group)
	}
	return list[0]
}

func TestInstallTwiceIsNoop(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ agent, fixture string }{
		{"claude", "claude/user-settings.json"},
		{"claude", "claude/compact.json"},
		{"codex", "codex/user-hooks.json"},
		{"gemini", "gemini/user-settings.json"},
	} {
		t.Run(tt.fixture, func(t *testing.T) {
			isolate(t)
			path, _ := copyFixture(t, tt.fixture, "settings.json")
			opts := InstallOptions{Agent: tt.agent, SettingsPath: path, Binary: testBinary}
			if _, err := Install(opts); err != nil {
				t.Fatal(err)
			}
			first := readFile(t, path)
			fi1, _ := os.Stat(path)
			res, err := Install(opts)
			if err != nil {
				t.Fatal(err)
			}
			if res.Changed || len(res.Added)+len(res.Updated)+len(res.Removed) > 0 {
				t.Errorf("second install changed something: %+v", res)
			}
			if !bytes.Equal(first, readFile(t, path)) {
				t.Error("second install changed the file's bytes")
			}
			fi2, _ := os.Stat(path)
			if !fi1.ModTime().Equal(fi2.ModTime()) {
				t.Error("second install rewrote the file")
			}
		})
	}
}

func TestUninstallRestoresOriginal(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		agent, fixture string
		byteEqual      bool // original is in the installer's own format
	}{
		{"claude", "claude/user-settings.json", true},
		{"claude", "claude/compact.json", false},
		{"codex", "codex/user-hooks.json", true},
		{"gemini", "gemini/user-settings.json", false},
	} {
		t.Run(tt.fixture, func(t *testing.T) {
			isolate(t)
			path, orig := copyFixture(t, tt.fixture, "settings.json")
			opts := InstallOptions{Agent: tt.agent, SettingsPath: path, Binary: testBinary}
			if _, err := Install(opts); err != nil {
				t.Fatal(err)
			}
			res, err := Uninstall(opts)
			if err != nil {
				t.Fatal(err)
			}
			wantRemoved := len(specs[tt.agent].hooks)
			if tt.fixture == "claude/compact.json" {
				wantRemoved++ // our statusLine; user-settings has the user's own
			}
			if !res.Changed || len(res.Removed) != wantRemoved {
				t.Errorf("removed %d (%+v), want %d", len(res.Removed), res.Removed, wantRemoved)
			}
			got := readFile(t, path)
			if !semanticallyEqual(t, orig, got) {
				t.Errorf("after uninstall:\n%s\nwant semantically:\n%s", got, orig)
			}
			if !reflect.DeepEqual(topKeys(t, got), topKeys(t, orig)) {
				t.Errorf("key order %v, want %v", topKeys(t, got), topKeys(t, orig))
			}
			if tt.byteEqual && !bytes.Equal(got, orig) {
				t.Errorf("not byte-equal:\n%s", udiff.Unified("orig", "got", orig, got))
			}
			// Uninstalling again is a no-op.
			res, err = Uninstall(opts)
			if err != nil || res.Changed {
				t.Errorf("second uninstall: %+v, %v", res, err)
			}
		})
	}
	t.Run("missing file", func(t *testing.T) {
		for _, agent := range []string{"claude", "codex", "gemini"} {
			opts := InstallOptions{Agent: agent, Binary: testBinary, Dirs: Dirs{Home: isolate(t)}}
			res, err := Uninstall(opts)
			if err != nil || res.Changed {
				t.Fatalf("uninstall of nothing: %+v, %v", res, err)
			}
			if _, err := os.Stat(res.Path); !os.IsNotExist(err) {
				t.Errorf("uninstall created %s", res.Path)
			}
			if _, err := Install(opts); err != nil {
				t.Fatal(err)
			}
			if _, err := Uninstall(opts); err != nil {
				t.Fatal(err)
			}
			// The file is reflect's own: uninstall removes it, and no
			// backup was ever written.
			for _, p := range []string{res.Path, res.Path + BackupSuffix} {
				if _, err := os.Stat(p); !os.IsNotExist(err) {
					t.Errorf("%s: %s left after install+uninstall: %v", agent, p, err)
				}
			}
		}
	})
}

// TestStaleEntries: entries of an older reflect (moved binary, other timeout)
// are updated in place, never duplicated, and uninstall removes them while a
// user's hook sharing their group stays.
func TestStaleEntries(t *testing.T) {
	t.Parallel()
	isolate(t)
	path, _ := copyFixture(t, "claude/stale.json", "settings.json")
	opts := InstallOptions{Agent: "claude", SettingsPath: path, Binary: testBinary}
	res, err := Install(opts)
	if err != nil {
		t.Fatal(err)
	}
	var updatedEvents []string
	for _, e := range res.Updated {
		updatedEvents = append(updatedEvents, e.Event)
	}
	if want := []string{"SessionStart", "Stop", "statusLine"}; !reflect.DeepEqual(updatedEvents, want) {
		t.Errorf("updated %v, want %v", updatedEvents, want)
	}
	got := readFile(t, path)
	golden(t, "claude/stale.installed.json", got)
	if bytes.Contains(got, []byte("/old/place")) {
		t.Error("old binary path still present")
	}

	if _, err := Uninstall(opts); err != nil {
		t.Fatal(err)
	}
	got = readFile(t, path)
	want := `{
  "hooks": {
    "Stop": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "notify-send done"
          }
        ]
      }
    ],
    "Notification": [
      {
        "hooks": []
      }
    ]
  }
}
`
	if string(got) != want {
		t.Errorf("after uninstall:\n%s", udiff.Unified("want", "got", []byte(want), got))
	}
}

func TestUninstallLeavesOtherAgentAndUserHooks(t *testing.T) {
	t.Parallel()
	isolate(t)
	path, _ := copyFixture(t, "claude/user-settings.json", "settings.json")
	if _, err := Install(InstallOptions{Agent: "claude", SettingsPath: path, Binary: testBinary}); err != nil {
		t.Fatal(err)
	}
	before := readFile(t, path)
	// Codex's uninstaller must not recognise Claude's entries.
	res, err := Uninstall(InstallOptions{Agent: "codex", SettingsPath: path})
	if err != nil || res.Changed {
		t.Fatalf("codex uninstall on claude file: %+v, %v", res, err)
	}
	if !bytes.Equal(before, readFile(t, path)) {
		t.Error("file changed")
	}
}

func TestInvalidJSONIsRefused(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		agent, fixture, wantPos string
	}{
		{"claude", "claude/invalid.json", "line 5, column 3"},
		{"claude", "claude/bad-shape.json", `"hooks" must be a JSON object`},
		{"codex", "codex/invalid.json", "line 4, column 40"},
	} {
		for _, op := range []string{"install", "uninstall"} {
			t.Run(tt.fixture+"/"+op, func(t *testing.T) {
				isolate(t)
				path, orig := copyFixture(t, tt.fixture, "settings.json")
				opts := InstallOptions{Agent: tt.agent, SettingsPath: path, Binary: testBinary}
				f := Install
				if op == "uninstall" {
					f = Uninstall
				}
				_, err := f(opts)
				if err == nil {
					t.Fatal("no error")
				}
				msg := err.Error()
				for _, want := range []string{path, tt.wantPos, "fix or move the file, then run reflect " + op + " " + tt.agent + " again"} {
					if !strings.Contains(msg, want) {
						t.Errorf("error %q does not contain %q", msg, want)
					}
				}
				if !bytes.Equal(orig, readFile(t, path)) {
					t.Error("file was modified")
				}
				entries, _ := os.ReadDir(filepath.Dir(path))
				if len(entries) != 1 {
					t.Errorf("extra files written: %v", entries)
				}
			})
		}
	}
}

func TestBackupWrittenOnce(t *testing.T) {
	t.Parallel()
	isolate(t)
	path, orig := copyFixture(t, "claude/user-settings.json", "settings.json")
	if err := os.Chmod(path, 0o640); err != nil {
		t.Fatal(err)
	}
	opts := InstallOptions{Agent: "claude", SettingsPath: path, Binary: testBinary}
	res, err := Install(opts)
	if err != nil {
		t.Fatal(err)
	}
	backup := path + BackupSuffix
	if !res.BackupWritten || res.BackupPath != backup {
		t.Errorf("backup = %q written=%v", res.BackupPath, res.BackupWritten)
	}
	if !bytes.Equal(readFile(t, backup), orig) {
		t.Error("backup is not the original")
	}
	for _, p := range []string{path, backup} {
		if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o640 {
			t.Errorf("%s mode %v, want 0640 kept", p, fi.Mode().Perm())
		}
	}
	// Install again from another binary: the file changes, the backup
	// does not.
	opts.Binary = "/elsewhere/reflect"
	if res, err = Install(opts); err != nil || !res.Changed || res.BackupWritten {
		t.Fatalf("reinstall: %+v, %v", res, err)
	}
	if !bytes.Equal(readFile(t, backup), orig) {
		t.Error("backup was overwritten")
	}
	// Uninstall gives the original back, byte for byte, and removes the
	// backup reflect wrote, which has nothing left to restore.
	if res, err = Uninstall(opts); err != nil || res.BackupWritten || !res.BackupRemoved {
		t.Fatalf("uninstall: %+v, %v", res, err)
	}
	if !bytes.Equal(readFile(t, path), orig) {
		t.Errorf("after uninstall:\n%s\nwant the original", readFile(t, path))
	}
	if _, err := os.Stat(backup); !os.IsNotExist(err) {
		t.Errorf("backup left after uninstall: %v", err)
	}
}

func TestDryRunWritesNothing(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ agent, fixture string }{
		{"claude", ""},
		{"claude", "claude/user-settings.json"},
		{"codex", ""},
		{"codex", "codex/user-hooks.json"},
	} {
		t.Run(tt.agent+"/"+tt.fixture, func(t *testing.T) {
			isolate(t)
			var path string
			var orig []byte
			if tt.fixture != "" {
				path, orig = copyFixture(t, tt.fixture, "settings.json")
			} else {
				path = filepath.Join(t.TempDir(), "sub", "settings.json")
			}
			opts := InstallOptions{Agent: tt.agent, SettingsPath: path, Binary: testBinary, DryRun: true}
			res, err := Install(opts)
			if err != nil {
				t.Fatal(err)
			}
			if !res.Changed || !res.DryRun || res.NewContent == "" || !strings.Contains(res.Diff, "\n+") {
				t.Errorf("dry run result: %+v", res)
			}
			if !strings.Contains(res.Diff, "@@") || res.Op != "install" {
				t.Errorf("dry run diff (op %q):\n%s", res.Op, res.Diff)
			}
			if tt.fixture == "" {
				if _, err := os.Stat(filepath.Dir(path)); !os.IsNotExist(err) {
					t.Errorf("dry run created the directory: %v", err)
				}
			} else {
				if !bytes.Equal(orig, readFile(t, path)) {
					t.Error("dry run modified the file")
				}
				if _, err := os.Stat(path + BackupSuffix); !os.IsNotExist(err) {
					t.Error("dry run wrote a backup")
				}
			}
			// The dry run's content is exactly what a real run writes.
			opts.DryRun = false
			if _, err := Install(opts); err != nil {
				t.Fatal(err)
			}
			if got := readFile(t, path); string(got) != res.NewContent {
				t.Errorf("real install differs from dry run:\n%s", udiff.Unified("dry", "real", []byte(res.NewContent), got))
			}
			// A dry-run uninstall writes nothing either.
			before := readFile(t, path)
			opts.DryRun = true
			ures, err := Uninstall(opts)
			if err != nil || !ures.Changed || !strings.Contains(ures.Diff, "\n-") {
				t.Errorf("dry uninstall: %+v, %v", ures, err)
			}
			if !bytes.Equal(before, readFile(t, path)) {
				t.Error("dry-run uninstall modified the file")
			}
		})
	}
}

func TestSymlinkedSettingsStayALink(t *testing.T) {
	t.Parallel()
	isolate(t)
	real, _ := copyFixture(t, "claude/user-settings.json", "dotfiles-settings.json")
	link := filepath.Join(t.TempDir(), "settings.json")
	if err := os.Symlink(real, link); err != nil {
		t.Skip(err)
	}
	if _, err := Install(InstallOptions{Agent: "claude", SettingsPath: link, Binary: testBinary}); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("settings.json is no longer a symlink: %v", err)
	}
	if !bytes.Contains(readFile(t, real), []byte("hook session-start")) {
		t.Error("link target not updated")
	}
}

func TestDefaultSettingsPath(t *testing.T) {
	t.Parallel()
	home := isolate(t)
	for _, tt := range []struct{ agent, want string }{
		{"claude", filepath.Join(home, ".claude", "settings.json")},
		{"codex", filepath.Join(home, ".codex", "hooks.json")},
		{"gemini", filepath.Join(home, ".gemini", "settings.json")},
	} {
		got, err := DefaultSettingsPath(tt.agent, Dirs{Home: home})
		if err != nil || got != tt.want {
			t.Errorf("DefaultSettingsPath(%q) = %q, %v; want %q", tt.agent, got, err, tt.want)
		}
	}
	moved := Dirs{Home: home, Codex: "/srv/codex", Claude: "/srv/claude"}
	if got, _ := DefaultSettingsPath("codex", moved); got != "/srv/codex/hooks.json" {
		t.Errorf("with CODEX_HOME: %q", got)
	}
	if got, _ := DefaultSettingsPath("claude", moved); got != "/srv/claude/settings.json" {
		t.Errorf("with CLAUDE_CONFIG_DIR: %q", got)
	}
	// GEMINI_CLI_HOME stands for $HOME: Gemini still uses .gemini in it.
	if got, _ := DefaultSettingsPath("gemini", Dirs{Home: home, GeminiHome: "/srv/gemini"}); got != "/srv/gemini/.gemini/settings.json" {
		t.Errorf("with GEMINI_CLI_HOME: %q", got)
	}
	if _, err := DefaultSettingsPath("claude", Dirs{}); err == nil || !strings.Contains(err.Error(), "set HOME") {
		t.Errorf("without a home: %v", err)
	}
	_, err := DefaultSettingsPath("cursor", Dirs{Home: home})
	if err == nil || !strings.Contains(err.Error(), "claude") || !strings.Contains(err.Error(), "codex") {
		t.Errorf("unknown agent error = %v", err)
	}
	if _, err := Install(InstallOptions{Agent: "cursor", Binary: testBinary}); err == nil {
		t.Error("Install accepted an unknown agent")
	}
}

func TestInstallChecksBinary(t *testing.T) {
	t.Parallel()
	isolate(t)
	for _, bin := range []string{"", "reflect", "./bin/reflect", "/tmp/go-build123/reflect.test"} {
		path := filepath.Join(t.TempDir(), "settings.json")
		if _, err := Install(InstallOptions{Agent: "claude", SettingsPath: path, Binary: bin}); err == nil {
			t.Errorf("binary %q accepted", bin)
		}
		if _, err := os.Stat(path); !os.IsNotExist(err) {
			t.Errorf("binary %q: file written", bin)
		}
	}
	// A path that needs quoting is quoted, and still recognised as ours.
	path := filepath.Join(t.TempDir(), "settings.json")
	opts := InstallOptions{Agent: "claude", SettingsPath: path, Binary: "/Users/me/My Tools/reflect"}
	if _, err := Install(opts); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(readFile(t, path), []byte(`"GOMAXPROCS=1 '/Users/me/My Tools/reflect' hook stop --agent claude"`)) {
		t.Errorf("unquoted path:\n%s", readFile(t, path))
	}
	if res, err := Install(opts); err != nil || res.Changed {
		t.Errorf("reinstall with quoted path: %+v, %v", res, err)
	}
	if _, err := Uninstall(opts); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("the file install created is left after uninstall: %v", err)
	}
}

// FuzzSettingsRoundTrip: whatever parses must render to JSON that means the
// same thing, and rendering is a fixed point (so reinstalls never churn).
func FuzzSettingsRoundTrip(f *testing.F) {
	for _, name := range []string{"claude/user-settings.json", "claude/compact.json", "claude/stale.json", "codex/user-hooks.json"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"a":{"b":[1,2,{"c":null}]},"a":2}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		root, err := jsonobj.ParseDocument(data)
		if err != nil {
			return
		}
		out, err := root.Render()
		if err != nil {
			t.Fatal(err)
		}
		var x, y any
		if len(bytes.TrimSpace(data)) > 0 {
			if err := json.Unmarshal(data, &x); err != nil {
				t.Fatal(err)
			}
		} else {
			x = map[string]any{}
		}
		if err := json.Unmarshal(out, &y); err != nil {
			t.Fatalf("rendered invalid JSON: %v\n%s", err, out)
		}
		if !reflect.DeepEqual(x, y) {
			t.Fatalf("round trip changed meaning:\n%s\n->\n%s", data, out)
		}
		root2, err := jsonobj.ParseDocument(out)
		if err != nil {
			t.Fatal(err)
		}
		out2, _ := root2.Render()
		if !bytes.Equal(out, out2) {
			t.Fatalf("render is not a fixed point:\n%s\n->\n%s", out, out2)
		}
		// Install then uninstall gives back the same meaning.
		for _, agent := range []string{"claude", "codex"} {
			r, _ := jsonobj.ParseDocument(data)
			m := mutator{agent: specs[agent], binary: testBinary, res: &Result{}}
			if m.install(r) != nil {
				continue
			}
			m.res = &Result{}
			if err := m.uninstall(r); err != nil {
				t.Fatal(err)
			}
			back, _ := r.Render()
			var z any
			_ = json.Unmarshal(back, &z)
			if !ourFree(x) {
				continue
			}
			if !reflect.DeepEqual(normalizeHooks(x), normalizeHooks(z)) {
				t.Fatalf("%s install+uninstall changed meaning:\n%s\n->\n%s", agent, out, back)
			}
		}
	})
}

// ourFree reports whether v contains no command that looks like ours or a
// statusLine, so install+uninstall must give it back unchanged.
func ourFree(v any) bool {
	b, _ := json.Marshal(v)
	return !bytes.Contains(b, []byte("reflect")) && !bytes.Contains(b, []byte("statusLine"))
}

// normalizeHooks applies the documented trade-off: uninstall cannot tell an
// originally empty or null "hooks" object or event array from one install
// created, so it drops them; compare modulo those.
func normalizeHooks(v any) any {
	m, ok := v.(map[string]any)
	if !ok {
		return v
	}
	c := map[string]any{}
	for k, val := range m {
		c[k] = val
	}
	hooks, isMap := c["hooks"].(map[string]any)
	if c["hooks"] == nil && hasKey(c, "hooks") {
		delete(c, "hooks")
	}
	if isMap {
		h := map[string]any{}
		for ev, groups := range hooks {
			if list, ok := groups.([]any); groups == nil || ok && len(list) == 0 {
				continue
			}
			h[ev] = groups
		}
		if len(h) == 0 {
			delete(c, "hooks")
		} else {
			c["hooks"] = h
		}
	}
	return c
}

func hasKey(m map[string]any, k string) bool {
	_, ok := m[k]
	return ok
}
