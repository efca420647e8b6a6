package main

import (
	"errors"
	"strings"
	"testing"
)

// Without reflect-ui beside the binary or on PATH, reflect ui says how to
// get it instead of failing obscurely.
func TestUIWithoutServerBinary(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	if err := execSibling(uiBinary, nil, errNoUIBinary); !errors.Is(err, errNoUIBinary) {
		t.Fatalf("execSibling(reflect-ui) = %v, want errNoUIBinary", err)
	}
	if code, _, stderr := tempKB(t).run(t, "", false, "ui"); code != 1 || !strings.Contains(stderr, "reflect-ui") {
		t.Errorf("reflect ui without reflect-ui: exit %d, %q", code, stderr)
	}
}

// --port and --listen are checked before anything is started.
func TestUIFlags(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	for _, args := range [][]string{{"ui", "--port", "70000"}, {"ui", "--port", "80", "--listen", "0.0.0.0:80"}, {"ui", "extra"}} {
		if code, _, stderr := tempKB(t).run(t, "", false, args...); code != 2 {
			t.Errorf("reflect %v: exit %d (%s), want 2", args, code, stderr)
		}
	}
}
