package main

import (
	"strings"
	"testing"

	"github.com/rivo/uniseg"
)

func TestListCutsTitlesToTheTerminal(t *testing.T) {
	t.Parallel()
	kb := tempKB(t)
	kb.env["COLUMNS"] = "50"
	long := "A very long title that goes on and on well past the width of any reasonable terminal"
	if code, _, stderr := kb.run(t, "", false, "add", "--title", long, "--insight", "cut to the terminal"); code != 0 {
		t.Fatalf("add: %s", stderr)
	}
	if code, _, stderr := kb.run(t, "", false, "add", "--title", "日本語のタイトルはとても長くなることがありますのでここで切ります", "--insight", "幅で切る"); code != 0 {
		t.Fatalf("add: %s", stderr)
	}
	code, stdout, _ := kb.run(t, "", true, "list")
	if code != 0 {
		t.Fatalf("list: exit %d", code)
	}
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("list printed %q", stdout)
	}
	for _, l := range lines[1:] {
		if w := uniseg.StringWidth(l); w > 50 || !strings.HasSuffix(l, "…") {
			t.Errorf("line %q is %d columns wide or not cut with …", l, w)
		}
	}
	// Piped, the title is printed in full.
	if _, stdout, _ = kb.run(t, "", false, "list"); !strings.Contains(stdout, long) {
		t.Errorf("piped list cut the title: %q", stdout)
	}
}

func TestTruncateWidth(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in    string
		width int
		want  string
	}{
		{"short", 10, "short"},
		{"exactly10!", 10, "exactly10!"},
		{"eleven char", 10, "eleven ch…"},
		{"日本語です", 6, "日本…"}, // two columns a character
		{"café au lait", 6, "café …"},
	} {
		if got := truncateWidth(tc.in, tc.width); got != tc.want {
			t.Errorf("truncateWidth(%q, %d) = %q, want %q", tc.in, tc.width, got, tc.want)
		}
	}
}
