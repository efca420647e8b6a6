package hooks_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/reflectkb/reflect/hooks"
)

// procResult is what a `reflect hook` process did.
type procResult struct {
	stdout, stderr string
	took           time.Duration
}

// runProc runs this test binary as `reflect ARGS...` (see TestMain) with
// stdin and an environment that holds only what the hook needs: HOME and
// both reflect directories in temp dirs, PATH for git. It fails the test
// unless the process exits 0.
func runProc(t *testing.T, e *hookEnv, stdin []byte, env []string, args ...string) procResult {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, args...)
	cmd.Env = append([]string{
		asReflectEnv + "=1",
		"HOME=" + e.home,
		"PATH=" + os.Getenv("PATH"),
		"REFLECT_STATE_DIR=" + e.state,
		"REFLECT_LEARNINGS_DIR=" + e.kb,
		spawnLogEnv + "=" + filepath.Join(e.home, "spawned.log"),
	}, env...)
	cmd.Stdin = bytes.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err = cmd.Run()
	res := procResult{stdout.String(), stderr.String(), time.Since(start)}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		t.Fatalf("reflect %s exited %d\nstderr: %s", strings.Join(args, " "), exit.ExitCode(), res.stderr)
	}
	if err != nil {
		t.Fatalf("reflect %s: %v", strings.Join(args, " "), err)
	}
	return res
}

// checkProc asserts what every hook process must do whatever its input:
// exit 0 (runProc), print nothing on stderr, and print nothing or one
// answer the agent accepts.
func checkProc(t *testing.T, res procResult, agent, event string) {
	t.Helper()
	if res.stderr != "" {
		t.Errorf("stderr: %q", res.stderr)
	}
	if err := validateOutput(agent, event, []byte(res.stdout)); err != nil {
		t.Errorf("%v\nstdout: %q", err, res.stdout)
	}
}

// bigPayload is a valid hook payload of at least size bytes: a failed
// command whose output is huge.
func bigPayload(size int) []byte {
	out := strings.Repeat("x", size)
	return []byte(fmt.Sprintf(`{"session_id":"big","cwd":"/nonexistent","hook_event_name":"PostToolUseFailure",`+
		`"tool_name":"Bash","tool_input":{"command":"make"},"error":"Exit code 2\n%s","prompt":"%s"}`, out, out[:100]))
}

// Real `reflect hook` processes fed input no agent should send, or sent
// to a wrong invocation, exit 0 with nothing on stderr and nothing (or a
// valid answer) on stdout.
func TestProcessBadInput(t *testing.T) {
	t.Parallel()
	e := newHookEnv(t)
	inputs := []struct {
		name string
		data []byte
	}{
		{"garbage", []byte("\x00\x01garbage\xff{{{")},
		{"empty", nil},
		{"array", []byte(`[{"session_id":"s","prompt":"fix the OAuth state mismatch"}]`)},
		{"null", []byte("null")},
	}
	for _, in := range inputs {
		for _, agent := range hooks.Agents {
			for _, event := range hooks.Events {
				t.Run(fmt.Sprintf("%s/%s/%s", in.name, agent, event), func(t *testing.T) {
					res := runProc(t, e, in.data, nil, "hook", event, "--agent", agent)
					checkProc(t, res, agent, event)
					if res.stdout != "" {
						t.Errorf("answered %q to %s input", res.stdout, in.name)
					}
				})
			}
		}
	}

	valid := e.fixture(t, "claude", "user-prompt-submit", nil)
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"unknown event", []string{"hook", "bogus", "--agent", "claude"}},
		{"agent's event name", []string{"hook", "UserPromptSubmit", "--agent", "claude"}},
		{"no event", []string{"hook", "--agent", "codex"}},
		{"missing --agent", []string{"hook", "prompt"}},
		{"empty --agent", []string{"hook", "prompt", "--agent="}},
		{"unknown agent", []string{"hook", "prompt", "--agent", "cursor"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := runProc(t, e, valid, nil, tc.args...)
			checkProc(t, res, "", "")
			if res.stdout != "" {
				t.Errorf("printed %q", res.stdout)
			}
			if ev := lastEvent(t, e.state); !ev.Error {
				t.Errorf("last event %+v, want an error", ev)
			}
		})
	}
}

// A payload larger than the 8 MB read limit costs neither memory nor time
// beyond the limit, and never an answer or a crash.
func TestProcessHugePayload(t *testing.T) {
	e := newHookEnv(t)
	data := bigPayload(10 << 20)
	for _, c := range []struct{ agent, event string }{
		{"claude", "post-tool"}, {"codex", "post-tool"}, {"codex", "prompt"}, {"claude", "stop"},
	} {
		t.Run(c.agent+"/"+c.event, func(t *testing.T) {
			res := runProc(t, e, data, nil, "hook", c.event, "--agent", c.agent)
			checkProc(t, res, c.agent, c.event)
			if res.stdout != "" {
				t.Errorf("printed %q", res.stdout)
			}
			if res.took > 5*time.Second {
				t.Errorf("took %s", res.took)
			}
		})
	}
}

// The end-to-end path works as a process too: config from the
// environment, payload from stdin, the golden answer on stdout.
func TestProcessAnswers(t *testing.T) {
	t.Parallel()
	e := newHookEnv(t)
	for _, f := range []struct{ agent, fixture, event string }{
		{"claude", "user-prompt-submit", "prompt"},
		{"codex", "user-prompt-question", "prompt"},
		{"claude", "user-prompt-correction", "prompt"},
	} {
		t.Run(f.agent+"/"+f.fixture, func(t *testing.T) {
			res := runProc(t, e, e.fixture(t, f.agent, f.fixture, nil), nil, "hook", f.event, "--agent", f.agent)
			checkProc(t, res, f.agent, f.event)
			want, err := os.ReadFile(filepath.Join("testdata", "golden", f.agent+"-"+f.fixture+".out"))
			if err != nil {
				t.Fatal(err)
			}
			if res.stdout != string(want) {
				t.Errorf("stdout %q, want the golden %q", res.stdout, want)
			}
		})
	}
}

// A real session-start process with transcripts waiting starts a detached
// `reflect drain` (this test binary, recorded by TestMain) and exits
// without waiting for it.
func TestProcessStartsDrain(t *testing.T) {
	t.Parallel()
	e := newHookEnv(t)
	in := e.fixture(t, "claude", "stop", map[string]any{"transcript_path": e.transcript(t, "t.jsonl")})
	checkProc(t, runProc(t, e, in, nil, "hook", "stop", "--agent", "claude"), "claude", "stop")
	if n := len(pending(t, e.state)); n != 1 {
		t.Fatalf("queue holds %d records", n)
	}
	res := runProc(t, e, e.fixture(t, "claude", "session-start", nil), nil, "hook", "session-start", "--agent", "claude")
	checkProc(t, res, "claude", "session-start")
	if got := waitLines(filepath.Join(e.home, "spawned.log"), 1); !slices.Equal(got, []string{"drain"}) {
		t.Errorf("spawned %q, want one `reflect drain`", got)
	}
	if ev := lastEvent(t, e.state); !strings.HasSuffix(ev.Detail, "; draining in the background") {
		t.Errorf("last event %+v", ev)
	}
}

// REFLECT_DISABLE=1 in the environment and a broken config.toml both make
// the process a silent no-op that exits 0.
func TestProcessDisabledAndBrokenConfig(t *testing.T) {
	t.Parallel()
	e := newHookEnv(t)
	transcript := e.transcript(t, "t.jsonl")
	t.Run("disabled", func(t *testing.T) {
		for _, f := range fixtureRuns {
			in := e.fixture(t, f.agent, f.fixture, map[string]any{"transcript_path": transcript})
			res := runProc(t, e, in, []string{"REFLECT_DISABLE=1"}, "hook", f.event, "--agent", f.agent)
			checkProc(t, res, f.agent, f.event)
			if res.stdout != "" {
				t.Errorf("%s/%s printed %q", f.agent, f.fixture, res.stdout)
			}
		}
		if got := treeOf(t, e.state); len(got) != 0 {
			t.Errorf("disabled hooks wrote %v", got)
		}
	})
	t.Run("broken config.toml", func(t *testing.T) {
		if err := os.WriteFile(filepath.Join(e.state, "config.toml"), []byte("[recall\nmax = ="), 0o600); err != nil {
			t.Fatal(err)
		}
		res := runProc(t, e, e.fixture(t, "claude", "user-prompt-submit", nil), nil, "hook", "prompt", "--agent", "claude")
		checkProc(t, res, "claude", "prompt")
		if res.stdout != "" {
			t.Errorf("printed %q with a broken config", res.stdout)
		}
	})
}
