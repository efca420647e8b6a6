package writer

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/reflectkb/reflect/internal/testfs"
	"github.com/reflectkb/reflect/transcript"
)

// fake is a fake writer executable.
type fake struct {
	// path is the script; out is the directory it records into.
	path, out string
	// env is the environment to run it with (the writers' Env).
	env []string
}

// fakeBin writes an executable shell script called name into a new
// directory. It runs with this process's environment plus $FAKE_OUT and
// extra (KEY=VALUE): the process's own is left as it is, so tests with
// fakes run in parallel.
func fakeBin(t *testing.T, name, script string, extra ...string) fake {
	t.Helper()
	return writeFake(t, name, "#!/bin/sh\n"+fakeHelp+script, extra)
}

func writeFake(t *testing.T, name, body string, extra []string) fake {
	t.Helper()
	f := fake{path: filepath.Join(t.TempDir(), name), out: t.TempDir()}
	if err := testfs.WriteExecutable(f.path, []byte(body)); err != nil {
		t.Fatal(err)
	}
	f.env = append(append(os.Environ(), "FAKE_OUT="+f.out), extra...)
	return f
}

// fakeHelp answers --help as current claude and codex do, listing the
// flags that keep a writer's run out of the user's sessions; any other call
// goes on to the fake's script. A fake that prints a help without them
// stands for an older CLI.
const fakeHelp = `case " $* " in *" --help "*)
  echo "  --no-session-persistence  Disable session persistence"
  echo "  --ephemeral               Run without persisting session files to disk"
  exit 0;;
esac
`

// recordScript saves the fake's arguments (one file each), environment,
// stdin and working directory into $FAKE_OUT.
const recordScript = `i=0
for a in "$@"; do printf '%s' "$a" > "$FAKE_OUT/arg$i"; i=$((i+1)); done
echo $i > "$FAKE_OUT/argc"
env > "$FAKE_OUT/env"
cat > "$FAKE_OUT/stdin"
pwd -P > "$FAKE_OUT/pwd"
`

func readRecorded(t *testing.T, dir, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func fakeArgs(t *testing.T, out string) []string {
	t.Helper()
	n, err := strconv.Atoi(strings.TrimSpace(readRecorded(t, out, "argc")))
	if err != nil {
		t.Fatal(err)
	}
	args := make([]string, n)
	for i := range args {
		args[i] = readRecorded(t, out, "arg"+strconv.Itoa(i))
	}
	return args
}

var writerCondensed = &transcript.Condensed{
	Harness:   "claude",
	SessionID: "s-1",
	Cwd:       "/work/repo",
	Text:      "USER: login fails with state mismatch\nTOOL FAILED (exit 1): go test ./callback\n",
}

func TestClaudeWriterParsesResult(t *testing.T) {
	t.Parallel()
	// The drainer is started from a Claude Code hook: it inherits these,
	// and the writer must not.
	f := fakeBin(t, "claude", recordScript+`cat "$FIXTURE"`, "FIXTURE="+mustAbs(t, "testdata/writers/claude-print-result.json"),
		"REFLECT_DISABLE=0", "CLAUDECODE=1", "CLAUDE_CODE_ENTRYPOINT=cli")
	out := f.out
	dir := filepath.Join(t.TempDir(), "writer")

	got, err := (&Claude{Path: f.path, Dir: dir, Env: f.env}).Write(context.Background(), writerCondensed)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Learnings) != 1 || got.Learnings[0].Title != "OAuth state cookie must be SameSite=Lax" {
		t.Fatalf("learnings = %+v", got.Learnings)
	}
	if got.CostUSD != 0.0412 || got.InputTokens != 6120 || got.OutputTokens != 410 {
		t.Fatalf("cost %v, tokens %d/%d; want 0.0412, 6120/410", got.CostUSD, got.InputTokens, got.OutputTokens)
	}

	args := fakeArgs(t, out)
	if len(args) != 7 || args[0] != "-p" || args[2] != "--output-format" || args[3] != "json" || args[4] != "--max-turns" || args[5] != "1" ||
		args[6] != "--no-session-persistence" {
		t.Fatalf("args = %q", args)
	}
	if args[1] != Prompt(writerCondensed) {
		t.Fatalf("prompt argument is not Prompt(c): %q", args[1][:60])
	}
	env := readRecorded(t, out, "env")
	if strings.Count(env, "REFLECT_DISABLE=") != 1 || !strings.Contains(env, "\nREFLECT_DISABLE=1\n") {
		t.Fatalf("writer env must hold REFLECT_DISABLE=1 exactly once:\n%s", env)
	}
	for _, k := range []string{"CLAUDECODE=", "CLAUDE_CODE_ENTRYPOINT="} {
		if strings.Contains(env, k) {
			t.Errorf("writer env leaks %s", k)
		}
	}
	if s := readRecorded(t, out, "stdin"); s != "" {
		t.Errorf("stdin = %q, want empty", s)
	}
	wantDir, _ := filepath.EvalSymlinks(dir)
	if pwd := strings.TrimSpace(readRecorded(t, out, "pwd")); pwd != wantDir {
		t.Errorf("ran in %s, want %s", pwd, wantDir)
	}
	if st, err := os.Stat(dir); err != nil || st.Mode().Perm() != 0o700 {
		t.Errorf("writer dir: %v, mode %v; want 0700", err, st.Mode().Perm())
	}
}

func TestClaudeWriterLongPromptOnStdin(t *testing.T) {
	t.Parallel()
	f := fakeBin(t, "claude", recordScript+`cat "$FIXTURE"`, "FIXTURE="+mustAbs(t, "testdata/writers/claude-print-result.json"))
	out := f.out
	c := *writerCondensed
	c.Text = strings.Repeat("USER: a long session line\n", 8000) // > 128 KiB, one argument's limit
	if _, err := (&Claude{Path: f.path, Env: f.env}).Write(context.Background(), &c); err != nil {
		t.Fatal(err)
	}
	args := fakeArgs(t, out)
	if strings.Join(args, " ") != "-p --output-format json --max-turns 1 --no-session-persistence" {
		t.Fatalf("args = %q, want the prompt on stdin", args)
	}
	if readRecorded(t, out, "stdin") != Prompt(&c) {
		t.Fatal("stdin is not the prompt")
	}
}

func TestClaudeWriterFailures(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, script, want string
	}{
		{"error envelope", `cat "$FIXTURE_ERROR"`, "error_max_turns"},
		{"garbage with exit 0", `echo 'Hello! I am not JSON.'`, "no JSON result"},
		{"nothing with exit 0", `true`, "no JSON result"},
		{"success without result", `echo '{"type":"result","subtype":"success","is_error":false}'`, `no "result"`},
		{"success with prose result", `echo '{"type":"result","subtype":"success","is_error":false,"result":"Nothing to learn here."}'`, `no JSON object with a "learnings" key`},
		{"is_error with success subtype", `echo '{"type":"result","subtype":"success","is_error":true,"result":"API Error: 529 overloaded"}'`, "claude run failed: success: API Error: 529 overloaded"},
		{"not a result", `echo '{"type":"system","subtype":"init"}'`, "not a result object"},
		{"exit status", `echo "Error: Invalid API key · token sk-ant-api03-` + strings.Repeat("x", 40) + `" >&2; exit 1`, "exit status 1"},
	}
	fixture := "FIXTURE_ERROR=" + mustAbs(t, "testdata/writers/claude-print-error.json")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := fakeBin(t, "claude", tt.script, fixture)
			got, err := (&Claude{Path: f.path, Env: f.env}).Write(context.Background(), writerCondensed)
			if err == nil {
				t.Fatalf("Write = %+v, want an error", got)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %q does not mention %q", err, tt.want)
			}
			if strings.Contains(err.Error(), "sk-ant-api03-xxxx") {
				t.Fatalf("error leaks a secret from stderr: %v", err)
			}
		})
	}
}

func TestClaudeWriterEmptyLearnings(t *testing.T) {
	t.Parallel()
	f := fakeBin(t, "claude", `echo '{"type":"result","subtype":"success","is_error":false,"result":"{\"learnings\":[]}","total_cost_usd":0.001}'`)
	got, err := (&Claude{Path: f.path, Env: f.env}).Write(context.Background(), writerCondensed)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Learnings) != 0 || got.CostUSD != 0.001 {
		t.Fatalf("got %+v, want no learnings at cost 0.001", got)
	}
}

// An empty Path looks the writer up on PATH: this changes the process's
// PATH, so it runs alone.
func TestClaudeWriterNotOnPath(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, err := (&Claude{}).Write(context.Background(), writerCondensed)
	if err == nil || !strings.Contains(err.Error(), "claude not found on PATH") {
		t.Fatalf("err = %v", err)
	}
}

// A writer without a Path runs the executable of its name on PATH, with
// this process's environment when it has no Env.
func TestWritersFoundOnPath(t *testing.T) {
	bin := t.TempDir()
	for _, name := range []string{"claude", "codex"} {
		script := "#!/bin/sh\n" + fakeHelp + "echo " + name + ` >> "$FAKE_OUT/calls"
case "$1" in
  exec) while [ $# -gt 0 ]; do if [ "$1" = "-o" ]; then echo '{"learnings":[]}' > "$2"; fi; shift; done ;;
  *) echo '{"type":"result","subtype":"success","is_error":false,"result":"{\"learnings\":[]}"}' ;;
esac
`
		if err := testfs.WriteExecutable(filepath.Join(bin, name), []byte(script)); err != nil {
			t.Fatal(err)
		}
	}
	out := t.TempDir()
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("FAKE_OUT", out)
	for _, w := range []Writer{&Claude{}, &Codex{}} {
		if _, err := w.Write(context.Background(), writerCondensed); err != nil {
			t.Errorf("%s: %v", w.Name(), err)
		}
	}
	if calls := readRecorded(t, out, "calls"); calls != "claude\ncodex\n" {
		t.Errorf("the fakes on PATH ran %q, want claude then codex", calls)
	}
}

// TestClaudeWriterTimeoutKillsGroup checks that a writer that hangs is
// killed with everything it started when the context ends.
func TestClaudeWriterTimeoutKillsGroup(t *testing.T) {
	t.Parallel()
	f := fakeBin(t, "claude", `sleep 30 &
echo $! > "$FAKE_OUT/child"
echo '{"type":"result"' # a partial answer, then hang
sleep 30
`)
	const timeout = 300 * time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	start := time.Now()
	_, err := (&Claude{Path: f.path, Env: f.env}).Write(ctx, writerCondensed)
	elapsed := time.Since(start)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want a deadline error", err)
	}
	// The fake hangs for 30 s: returning well before that means the
	// timeout, not the child, ended Write. The margin is for a loaded
	// machine, where killing and reaping a process group is not instant.
	if elapsed > timeout+10*time.Second {
		t.Fatalf("Write returned after %s, want within 10s of the timeout (the fake hangs for 30 s)", elapsed)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(readRecorded(t, f.out, "child")))
	if err != nil {
		t.Fatal(err)
	}
	testfs.WaitGone(t, pid)
}

func mustAbs(t *testing.T, p string) string {
	t.Helper()
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}
