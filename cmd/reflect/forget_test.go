package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tempKB points reflect at empty directories under a temp dir.
func tempKB(t *testing.T) (docs string) {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("HOME", filepath.Join(dir, "home"))
	t.Setenv("REFLECT_STATE_DIR", filepath.Join(dir, "state"))
	t.Setenv("REFLECT_LEARNINGS_DIR", filepath.Join(dir, "kb"))
	return filepath.Join(dir, "kb", "documents")
}

// run runs reflect in-process with stdin as given and says whether the
// streams are terminals.
func run(t *testing.T, stdin string, tty bool, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = Main(args, &Streams{In: strings.NewReader(stdin), Out: &out, Err: &errb, InTTY: tty, ErrTTY: tty, OutTTY: tty}, os.LookupEnv)
	return code, out.String(), errb.String()
}

func TestForgetAsksOnATerminal(t *testing.T) {
	docs := tempKB(t)
	if code, _, stderr := run(t, "", false, "add", "--title", "Pin the Go toolchain", "--insight", "go.mod toolchain line"); code != 0 {
		t.Fatalf("add: exit %d: %s", code, stderr)
	}
	files, _ := filepath.Glob(filepath.Join(docs, "lrn-pin-*.md"))
	if len(files) != 1 {
		t.Fatalf("documents: %v", files)
	}
	id := strings.TrimSuffix(filepath.Base(files[0]), ".md")
	tail := id[len(id)-6:]

	// Anything but yes keeps the learning.
	for _, answer := range []string{"\n", "n\n", "nope\n", ""} {
		code, stdout, stderr := run(t, answer, true, "forget", tail)
		if code != 0 || stdout != "" {
			t.Fatalf("answer %q: exit %d, stdout %q", answer, code, stdout)
		}
		for _, want := range []string{"Would forget " + id + "  Pin the Go toolchain", "Forget 1 learning? [y/N] ", "Nothing forgotten."} {
			if !strings.Contains(stderr, want) {
				t.Errorf("answer %q: stderr %q lacks %q", answer, stderr, want)
			}
		}
		if _, err := os.Stat(files[0]); err != nil {
			t.Fatalf("answer %q deleted the learning: %v", answer, err)
		}
	}
	code, stdout, stderr := run(t, "Y\n", true, "forget", tail)
	if code != 0 || stdout != "Forgot "+id+".\n" {
		t.Fatalf("answer Y: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if _, err := os.Stat(files[0]); !os.IsNotExist(err) {
		t.Fatalf("answer Y kept the learning: %v", err)
	}
}
