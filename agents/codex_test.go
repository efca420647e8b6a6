package agents

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// codexHome installs reflect's Codex hooks into a temp CODEX_HOME and
// returns the hooks file.
func codexHome(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	path := filepath.Join(home, "hooks.json")
	if _, err := Install(InstallOptions{Agent: "codex", SettingsPath: path, Binary: "/opt/reflect/bin/reflect"}); err != nil {
		t.Fatal(err)
	}
	return path
}

func writeTrust(t *testing.T, hooksPath string, trust []HookTrust, hash func(HookTrust) string, extra string) {
	t.Helper()
	var b strings.Builder
	b.WriteString("model = \"gpt-5.5\"\n\n")
	for _, h := range trust {
		if v := hash(h); v != "" {
			b.WriteString("[hooks.state.\"" + h.Key + "\"]\ntrusted_hash = \"" + v + "\"\n")
		}
	}
	b.WriteString(extra)
	if err := os.WriteFile(filepath.Join(filepath.Dir(hooksPath), "config.toml"), []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
}

func statuses(trust []HookTrust) map[string]string {
	m := map[string]string{}
	for _, h := range trust {
		m[h.Event] = h.Status
	}
	return m
}

func TestCodexTrustStates(t *testing.T) {
	t.Parallel()
	path := codexHome(t)
	trust, err := CodexTrust(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(trust) != len(specs["codex"].hooks) {
		t.Fatalf("%d entries, want one per reflect hook: %+v", len(trust), trust)
	}
	for _, h := range trust {
		if h.Status != TrustUntrusted || !strings.HasPrefix(h.Key, path+":") || !strings.HasSuffix(h.Key, ":0:0") {
			t.Errorf("fresh install: %+v", h)
		}
	}
	// Trust all but Stop, trust PostToolUse for another definition and
	// turn SessionEnd off.
	var endHash string
	for _, h := range trust {
		if h.Event == "SessionEnd" {
			endHash = h.CurrentHash
		}
	}
	writeTrust(t, path, trust, func(h HookTrust) string {
		switch h.Event {
		case "Stop", "SessionEnd":
			return ""
		case "PostToolUse":
			return "sha256:0000"
		}
		return h.CurrentHash
	}, "[hooks.state.\""+path+":session_end:0:0\"]\nenabled = false\ntrusted_hash = \""+endHash+"\"\n")
	trust, err = CodexTrust(path)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"SessionStart": TrustTrusted, "UserPromptSubmit": TrustTrusted, "PreToolUse": TrustTrusted, "PreCompact": TrustTrusted,
		"PostToolUse": TrustModified, "Stop": TrustUntrusted, "SessionEnd": TrustDisabled,
	}
	if got := statuses(trust); len(got) != len(want) {
		t.Fatalf("got %v", got)
	} else {
		for ev, st := range want {
			if got[ev] != st {
				t.Errorf("%s: %s, want %s", ev, got[ev], st)
			}
		}
	}
	note := trustNote(trust)
	for _, s := range []string{"3 of reflect's 7", "not trusted: Stop", "older definition: PostToolUse", "turned off: SessionEnd", "/hooks", "--dangerously-bypass-hook-trust"} {
		if !strings.Contains(note, s) {
			t.Errorf("note %q lacks %q", note, s)
		}
	}
}

// Reinstalling with another binary changes every definition: the trust
// given to the old ones no longer applies, and install says so. A repeat
// install keeps reflect's group index, so trust survives it.
func TestCodexTrustAfterReinstall(t *testing.T) {
	t.Parallel()
	path := codexHome(t)
	trust, _ := CodexTrust(path)
	writeTrust(t, path, trust, func(h HookTrust) string { return h.CurrentHash }, "")
	res, err := Install(InstallOptions{Agent: "codex", SettingsPath: path, Binary: "/opt/reflect/bin/reflect"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Changed || trustNote(res.Trust) != "" || len(res.Trust) != 7 {
		t.Fatalf("repeat install: changed %v, trust %+v, notes %q", res.Changed, res.Trust, res.Notes)
	}
	res, err = Install(InstallOptions{Agent: "codex", SettingsPath: path, Binary: "/usr/local/bin/reflect"})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range res.Trust {
		if h.Status != TrustModified || !strings.HasSuffix(h.Key, ":0:0") {
			t.Errorf("after moving the binary: %+v", h)
		}
	}
	if len(res.Notes) == 0 || !strings.Contains(res.Notes[0], "trusted for an older definition") {
		t.Errorf("notes %q", res.Notes)
	}
}

// The hash follows Codex's normalization: the timeout filled in (and
// SessionEnd's clamped to 3), the matcher dropped where Codex ignores it.
func TestCodexHookHashNormalization(t *testing.T) {
	t.Parallel()
	h := func(event, matcher, raw string) string { return codexHookHash(event, matcher, []byte(raw)) }
	cmd := `{"type":"command","command":"x"}`
	if h("SessionStart", "", cmd) != h("SessionStart", "", `{"type":"command","command":"x","timeout":600,"async":false}`) {
		t.Error("default timeout 600 not filled in")
	}
	if h("SessionEnd", "", `{"type":"command","command":"x","timeout":10}`) != h("SessionEnd", "", `{"type":"command","command":"x","timeout":3}`) {
		t.Error("SessionEnd timeout not clamped to 3")
	}
	if h("Stop", "Bash", cmd) != h("Stop", "", cmd) {
		t.Error("Stop's matcher is not ignored")
	}
	if h("PostToolUse", "Bash", cmd) == h("PostToolUse", "", cmd) {
		t.Error("PostToolUse's matcher is ignored")
	}
	if h("SessionStart", "", cmd) == h("UserPromptSubmit", "", cmd) {
		t.Error("the event is not part of the hash")
	}
	if got := h("SessionStart", "", cmd); !strings.HasPrefix(got, "sha256:") || len(got) != len("sha256:")+64 {
		t.Errorf("hash %q", got)
	}
}

func TestCodexTrustBrokenConfig(t *testing.T) {
	t.Parallel()
	path := codexHome(t)
	if err := os.WriteFile(filepath.Join(filepath.Dir(path), "config.toml"), []byte("[hooks.state\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := CodexTrust(path); err == nil || !strings.Contains(err.Error(), "config.toml") {
		t.Errorf("broken config.toml: %v", err)
	}
	if trust, err := CodexTrust(filepath.Join(t.TempDir(), "hooks.json")); err != nil || trust != nil {
		t.Errorf("no hooks file: %+v, %v", trust, err)
	}
}

// With the user's own group first, reflect's entry sits at group 1; an
// upgrade rewrites it in place, so its trust key (which holds the
// position) stays the same and only the definition needs trusting again.
func TestCodexTrustKeyKeepsPosition(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "hooks.json")
	user := `{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"~/bin/greet.sh"}]}]}}`
	if err := os.WriteFile(path, []byte(user), 0o600); err != nil {
		t.Fatal(err)
	}
	keyOf := func() string {
		trust, err := CodexTrust(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range trust {
			if h.Event == "SessionStart" {
				return h.Key
			}
		}
		t.Fatal("no SessionStart entry")
		return ""
	}
	for _, bin := range []string{"/opt/reflect/bin/reflect", "/usr/local/bin/reflect", "/usr/local/bin/reflect"} {
		if _, err := Install(InstallOptions{Agent: "codex", SettingsPath: path, Binary: bin}); err != nil {
			t.Fatal(err)
		}
		if key := keyOf(); !strings.HasSuffix(key, ":session_start:1:0") {
			t.Errorf("after installing %s: key %s, want group 1", bin, key)
		}
	}
}
