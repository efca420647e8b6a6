package main

import (
	"strings"
	"testing"
)

func TestColorOnlyOnATerminalAndNotWithNoColor(t *testing.T) {
	t.Parallel()
	kb := tempKB(t)
	kb.env["TERM"] = "xterm"
	if code, _, stderr := kb.run(t, "", false, "add", "--title", "OAuth state cookies must be SameSite=Lax", "--insight", "Strict drops the cookie on the redirect"); code != 0 {
		t.Fatalf("add: %s", stderr)
	}
	for _, tc := range []struct {
		name    string
		tty     bool
		noColor string
		args    []string
		want    bool
	}{
		{"terminal", true, "", nil, true},
		{"pipe", false, "", nil, false},
		{"terminal with NO_COLOR", true, "1", nil, false},
		{"pipe with --color always", false, "", []string{"--color", "always"}, true},
		{"terminal with --color never", true, "", []string{"--color=never"}, false},
	} {
		kb.env["NO_COLOR"] = tc.noColor
		args := append([]string{"search", "cookie"}, tc.args...)
		code, stdout, stderr := kb.run(t, "", tc.tty, args...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", tc.name, code, stderr)
		}
		if got := strings.Contains(stdout, "\x1b["); got != tc.want {
			t.Errorf("%s: colour = %v, want %v: %q", tc.name, got, tc.want, stdout)
		}
		if tc.want {
			// the stemmed match is painted in title and snippet
			if !strings.Contains(stdout, "\x1b[1;31mcookies\x1b[0m") || !strings.Contains(stdout, "\x1b[1;31mcookie\x1b[0m") {
				t.Errorf("%s: matched words not highlighted: %q", tc.name, stdout)
			}
		}
	}
	// doctor colours its status words on a terminal.
	kb.env["NO_COLOR"] = ""
	_, stdout, _ := kb.run(t, "", true, "doctor")
	if !strings.Contains(stdout, "\x1b[32mok  \x1b[0m") {
		t.Errorf("doctor on a terminal: %q", stdout)
	}
	_, stdout, _ = kb.run(t, "", false, "doctor")
	if strings.Contains(stdout, "\x1b[") {
		t.Errorf("doctor on a pipe: %q", stdout)
	}
}
