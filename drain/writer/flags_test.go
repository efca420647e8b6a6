package writer

import (
	"context"
	"strings"
	"testing"
)

// oldCLI writes a fake name whose --help lists neither flag (an older
// claude or codex) and that records its calls and arguments.
func oldCLI(t *testing.T, name, script string, extra ...string) fake {
	t.Helper()
	body := "#!/bin/sh\n" + `case " $* " in *" --help "*) echo help >> "$FAKE_OUT/help"; echo "  -p, --print  Print response"; exit 0;; esac
` + recordScript + script
	return writeFake(t, name, body, extra)
}

// An older claude without --no-session-persistence still works as the
// writer, without the flag; its --help is read once for many writes.
func TestClaudeWriterOlderCLIWithoutNoPersistence(t *testing.T) {
	t.Parallel()
	f := oldCLI(t, "claude", `cat "$FIXTURE"`, "FIXTURE="+mustAbs(t, "testdata/writers/claude-print-result.json"))
	out := f.out
	for i := 0; i < 3; i++ {
		if _, err := (&Claude{Path: f.path, Env: f.env}).Write(context.Background(), writerCondensed); err != nil {
			t.Fatal(err)
		}
	}
	if args := fakeArgs(t, out); strings.Contains(strings.Join(args, " "), "--no-session-persistence") {
		t.Errorf("args %q pass a flag the CLI does not list", args)
	}
	if n := strings.Count(readRecorded(t, out, "help"), "help"); n != 1 {
		t.Errorf("--help ran %d times for 3 writes, want once", n)
	}
}

// An older codex without exec --ephemeral runs without it.
func TestCodexWriterOlderCLIWithoutEphemeral(t *testing.T) {
	t.Parallel()
	f := oldCLI(t, "codex", `
while [ $# -gt 0 ]; do
  if [ "$1" = "-o" ]; then echo '{"learnings":[]}' > "$2"; fi
  shift
done
`)
	if _, err := (&Codex{Path: f.path, Env: f.env}).Write(context.Background(), writerCondensed); err != nil {
		t.Fatal(err)
	}
	args := fakeArgs(t, f.out)
	if strings.Contains(strings.Join(args, " "), "--ephemeral") || args[0] != "exec" {
		t.Errorf("args %q", args)
	}
}

func TestHasFlag(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		help, flag string
		want       bool
	}{
		{"  --ephemeral   Run without persisting", "--ephemeral", true},
		{"  --ephemeral-dir DIR", "--ephemeral", false},
		{"  --no-session-persistence\n", "--no-session-persistence", true},
		{"--no-session-persistence", "--no-session-persistence", true},
		{"  --print", "--ephemeral", false},
	} {
		if got := hasFlag(tc.help, tc.flag); got != tc.want {
			t.Errorf("hasFlag(%q, %q) = %v", tc.help, tc.flag, got)
		}
	}
}
