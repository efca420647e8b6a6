package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/reflectkb/reflect/internal/config"
)

// consentRun runs what `reflect install <agent> [--json]` runs once the
// agent's hooks are written (askWriter; testdata/script/install_consent.txtar
// runs install itself, which needs a binary named reflect), with stdin
// holding answer, on a fake terminal or not, and only the named programs
// on a fake PATH, both through the factory.
func consentRun(t *testing.T, env map[string]string, tty bool, answer string, onPath []string, agent string, asJSON bool) (stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	io := &Streams{In: strings.NewReader(answer), Out: &out, Err: &errb, InTTY: tty, OutTTY: tty, ErrTTY: tty}
	look := func(name string) (string, error) {
		for _, n := range onPath {
			if n == name {
				return "/opt/bin/" + name, nil
			}
		}
		return "", &exec.Error{Name: name, Err: exec.ErrNotFound}
	}
	f := &Factory{IO: io, LookupEnv: config.MapLookup(env), LookPath: look}
	if err := askWriter(f, agent, asJSON); err != nil {
		t.Fatalf("askWriter: %v", err)
	}
	return out.String(), errb.String()
}

func consentEnv(t *testing.T) (map[string]string, string) {
	t.Helper()
	home := t.TempDir()
	state := filepath.Join(home, "state")
	return map[string]string{"HOME": home, "REFLECT_STATE_DIR": state, "REFLECT_LEARNINGS_DIR": filepath.Join(home, "kb")},
		filepath.Join(state, "config.toml")
}

func writerSetting(t *testing.T, env map[string]string) config.Setting {
	t.Helper()
	c, err := config.Load(config.MapLookup(env))
	if err != nil {
		t.Fatal(err)
	}
	s, err := c.Get("drain.writer")
	if err != nil {
		t.Fatal(err)
	}
	return effective(c, []config.Setting{s})[0]
}

// On a terminal, install asks once, default no, naming the writer, the
// caps and the command that changes the answer; the answer is written to
// config.toml and the question is not asked again. On the old code install
// asked nothing and the drainer picked claude from PATH.
func TestInstallAsksForWriterOnATerminal(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ answer, agent, want string }{
		{"y\n", "claude", "claude"},
		{"YES\n", "codex", "codex"},
		{"\n", "claude", "builtin"},
		{"n\n", "gemini", "builtin"},
		{"maybe\n", "claude", "builtin"},
	} {
		env, file := consentEnv(t)
		stdout, stderr := consentRun(t, env, true, tc.answer, []string{"claude", "codex"}, tc.agent, false)
		offered := "claude"
		if tc.agent == "codex" {
			offered = "codex"
		}
		for _, want := range []string{"[y/N]", offered + " (/opt/bin/" + offered + ")", "at most $1.00 a day (drain.daily_usd)",
			"20 runs a day (drain.daily_max)", "reflect config set drain.writer " + offered} {
			if !strings.Contains(stderr, want) {
				t.Errorf("answer %q: the question lacks %q:\n%s", tc.answer, want, stderr)
			}
		}
		if s := writerSetting(t, env); s.Value != tc.want || s.Source != "config.toml" {
			t.Errorf("answer %q: drain.writer = %+v, want %s from config.toml", tc.answer, s, tc.want)
		}
		if !strings.Contains(stdout, "Set drain.writer = "+tc.want+" in "+file) {
			t.Errorf("answer %q: stdout lacks the recorded choice:\n%s", tc.answer, stdout)
		}
		// Asked once: the next install leaves the choice alone.
		_, stderr = consentRun(t, env, true, "y\n", []string{"claude", "codex"}, tc.agent, false)
		if strings.Contains(stderr, "[y/N]") {
			t.Errorf("answer %q: asked again on the next install", tc.answer)
		}
		if s := writerSetting(t, env); s.Value != tc.want {
			t.Errorf("answer %q: the second install changed drain.writer to %s", tc.answer, s.Value)
		}
	}
}

// Without a terminal (or with --json) install asks nothing, writes no
// choice, so the builtin writer runs, and prints the one command that opts
// in; end of input on a terminal records nothing either.
func TestInstallWithoutATerminalKeepsBuiltin(t *testing.T) {
	t.Parallel()
	env, file := consentEnv(t)
	stdout, stderr := consentRun(t, env, false, "y\n", []string{"claude"}, "claude", false)
	if strings.Contains(stderr, "[y/N]") {
		t.Error("asked without a terminal")
	}
	if !strings.Contains(stdout, "writer: builtin (no LLM, nothing spent)") || !strings.Contains(stdout, ": reflect config set drain.writer claude\n") {
		t.Errorf("stdout lacks the opt-in command:\n%s", stdout)
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Errorf("config.toml written without a choice (stat: %v)", err)
	}
	if s := writerSetting(t, env); s.Value != "builtin" || s.Source != "default" {
		t.Errorf("drain.writer = %+v, want the builtin default", s)
	}

	env, file = consentEnv(t)
	stdout, stderr = consentRun(t, env, true, "", []string{"claude"}, "claude", true)
	if strings.Contains(stderr, "[y/N]") || stdout != "" || !strings.Contains(stderr, "reflect config set drain.writer claude") {
		t.Errorf("--json: stdout %q, stderr %q; want nothing added to stdout and the command on stderr", stdout, stderr)
	}

	_, stderr = consentRun(t, env, true, "", []string{"claude"}, "claude", false)
	if !strings.Contains(stderr, "no answer") {
		t.Errorf("end of input: stderr %q", stderr)
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Errorf("config.toml written on end of input (stat: %v)", err)
	}

	// No LLM CLI installed: nothing to ask about.
	env, _ = consentEnv(t)
	stdout, stderr = consentRun(t, env, true, "y\n", nil, "claude", false)
	if strings.Contains(stderr, "[y/N]") || !strings.Contains(stdout, "with claude or codex installed") {
		t.Errorf("no LLM on PATH: stdout %q stderr %q", stdout, stderr)
	}

	// A writer chosen in the environment keeps working: no question, no note.
	env, _ = consentEnv(t)
	env["REFLECT_WRITER"] = "claude"
	stdout, stderr = consentRun(t, env, true, "n\n", []string{"claude"}, "claude", false)
	if strings.Contains(stderr, "[y/N]") || strings.Contains(stdout, "writer:") {
		t.Errorf("configured writer: stdout %q stderr %q", stdout, stderr)
	}
	if s := writerSetting(t, env); s.Value != "claude" {
		t.Errorf("configured writer changed to %+v", s)
	}
}

// The writer offered after an install is the agent's own when it has one,
// else the first on PATH in "auto"'s order; with none installed, claude
// and no path.
func TestLLMWriterForPrefersTheAgentsOwn(t *testing.T) {
	t.Parallel()
	onPath := func(names ...string) func(string) (string, error) {
		return func(n string) (string, error) {
			if slices.Contains(names, n) {
				return "/bin/" + n, nil
			}
			return "", errors.New("not found")
		}
	}
	for _, tc := range []struct {
		agent      string
		path       []string
		name, want string
	}{
		{"codex", []string{"claude", "codex"}, "codex", "/bin/codex"},
		{"claude", []string{"claude", "codex"}, "claude", "/bin/claude"},
		{"gemini", []string{"claude", "codex"}, "claude", "/bin/claude"},
		{"codex", []string{"claude"}, "claude", "/bin/claude"},
		{"claude", []string{"codex"}, "codex", "/bin/codex"},
		{"copilot", nil, "claude", ""},
		{"codex", nil, "codex", ""},
	} {
		name, p := llmWriterFor(tc.agent, onPath(tc.path...))
		if name != tc.name || p != tc.want {
			t.Errorf("llmWriterFor(%s) with %q on PATH = %s %q, want %s %q", tc.agent, tc.path, name, p, tc.name, tc.want)
		}
	}
}
