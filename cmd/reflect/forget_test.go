package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reflectkb/reflect/internal/config"
)

// testKB is a knowledge base under a temp dir and the environment that
// points reflect at it. The environment is the test's own, not the
// process's, so tests using it run in parallel.
type testKB struct {
	docs string            // the documents directory
	env  map[string]string // HOME, REFLECT_STATE_DIR, REFLECT_LEARNINGS_DIR, and what a test adds
}

// tempKB points reflect at empty directories under a temp dir.
func tempKB(t *testing.T) *testKB {
	t.Helper()
	dir := t.TempDir()
	return &testKB{docs: filepath.Join(dir, "kb", "documents"), env: map[string]string{
		"HOME":                  filepath.Join(dir, "home"),
		"REFLECT_STATE_DIR":     filepath.Join(dir, "state"),
		"REFLECT_LEARNINGS_DIR": filepath.Join(dir, "kb"),
	}}
}

// run runs reflect in-process in k's environment with stdin as given and
// says whether the streams are terminals.
func (k *testKB) run(t *testing.T, stdin string, tty bool, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = Main(args, &Streams{In: strings.NewReader(stdin), Out: &out, Err: &errb, InTTY: tty, ErrTTY: tty, OutTTY: tty}, config.MapLookup(k.env))
	return code, out.String(), errb.String()
}

func TestForgetAsksOnATerminal(t *testing.T) {
	t.Parallel()
	kb := tempKB(t)
	docs := kb.docs
	if code, _, stderr := kb.run(t, "", false, "add", "--title", "Pin the Go toolchain", "--insight", "go.mod toolchain line"); code != 0 {
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
		code, stdout, stderr := kb.run(t, answer, true, "forget", tail)
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
	code, stdout, stderr := kb.run(t, "Y\n", true, "forget", tail)
	if code != 0 || stdout != "Forgot "+id+".\n" {
		t.Fatalf("answer Y: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if _, err := os.Stat(files[0]); !os.IsNotExist(err) {
		t.Fatalf("answer Y kept the learning: %v", err)
	}
}
