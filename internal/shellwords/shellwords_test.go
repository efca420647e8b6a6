package shellwords

import (
	"reflect"
	"strings"
	"testing"
)

func TestSplit(t *testing.T) {
	t.Parallel()
	type segs = [][]string
	tests := []struct {
		cmd  string
		want segs
	}{
		// From the drainer's command keys.
		{"go test ./...", segs{{"go", "test", "./..."}}},
		{"cd svc && FOO=1 go test -run X ./...", segs{{"cd", "svc"}, {"FOO=1", "go", "test", "-run", "X", "./..."}}},
		{"env | grep AWS; go test ./...", segs{{"env"}, {"grep", "AWS"}, {"go", "test", "./..."}}},
		{"bash -lc 'npm run build'", segs{{"bash", "-lc", "npm run build"}}},
		{"echo start\ncargo build --release", segs{{"echo", "start"}, {"cargo", "build", "--release"}}},
		{"go test ./... 2>&1 | tail -20", segs{{"go", "test", "./...", "2>"}, {"1"}, {"tail", "-20"}}},
		{"# comment\nkubectl get pods", segs{{"kubectl", "get", "pods"}}},
		{"make # build it\nmake test", segs{{"make"}, {"make", "test"}}},
		{"a#b c", segs{{"a#b", "c"}}},
		{"go test\r\n", segs{{"go", "test"}}},
		{"", nil},
		{"'unterminated", segs{{"unterminated"}}},
		// From the hooks' mini-learning titles.
		{"cd api && npm run build", segs{{"cd", "api"}, {"npm", "run", "build"}}},
		{`bash -c "cd x && cargo nextest run"`, segs{{"bash", "-c", "cd x && cargo nextest run"}}},
		{"'my tool' --flag", segs{{"my tool", "--flag"}}},
		{`echo "say \"hi\"" done`, segs{{"echo", `say "hi"`, "done"}}},
		{`echo 'a\b'`, segs{{"echo", `a\b`}}},
		{"ls a\\ b", segs{{"ls", "a b"}}},
		{"make \\\n  test", segs{{"make", "test"}}},
		{"(cd x; make)", segs{{"cd", "x"}, {"make"}}},
		{`""`, segs{{""}}},
		{"trailing\\", segs{{"trailing\\"}}},
	}
	for _, tt := range tests {
		if got := Split(tt.cmd); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Split(%q) = %q, want %q", tt.cmd, got, tt.want)
		}
	}
}

func TestSplitN(t *testing.T) {
	t.Parallel()
	cmd := "a; b; c; d"
	if got, want := SplitN(cmd, 2), [][]string{{"a"}, {"b"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("SplitN(%q, 2) = %q, want %q", cmd, got, want)
	}
	if got := SplitN(cmd, 0); got != nil {
		t.Errorf("SplitN(%q, 0) = %q, want none", cmd, got)
	}
	if got := SplitN(cmd, -1); len(got) != 4 {
		t.Errorf("SplitN(%q, -1) = %q, want 4 commands", cmd, got)
	}
}

// FuzzSplit: Split never panics, never returns an empty command, and
// plain words joined by spaces (or single-quoted) come back as they went in.
func FuzzSplit(f *testing.F) {
	for _, s := range []string{"go test ./...", "bash -lc 'make idp'", `a "b\"c" d`, "x # y\nz", "a\\\nb", "'", `"\`, "a && b || c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, seg := range Split(s) {
			if len(seg) == 0 {
				t.Fatalf("Split(%q) has an empty command", s)
			}
		}
		words := strings.FieldsFunc(s, func(r rune) bool { return !isPlain(r) })
		if len(words) == 0 {
			return
		}
		if got := Split(strings.Join(words, " ")); !reflect.DeepEqual(got, [][]string{words}) {
			t.Fatalf("Split(%q) = %q, want %q", strings.Join(words, " "), got, words)
		}
		quoted := make([]string, len(words))
		for i, w := range words {
			quoted[i] = "'" + w + "'"
		}
		if got := Split(strings.Join(quoted, " ")); !reflect.DeepEqual(got, [][]string{words}) {
			t.Fatalf("Split(%q) = %q, want %q", strings.Join(quoted, " "), got, words)
		}
	})
}

// isPlain reports whether r may appear in a word that needs no quoting.
func isPlain(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%", r)
}
