package writer

import (
	"context"
	"encoding/json"
	"github.com/reflectkb/reflect/transcript"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestCommandWriter(t *testing.T) {
	t.Parallel()
	f := fakeBin(t, "my-writer", recordScript+`
cp "$REFLECT_CONDENSED_JSON" "$FAKE_OUT/condensed.json"
cp "$REFLECT_WRITER_PROMPT" "$FAKE_OUT/prompt.txt"
echo 'Thinking out loud first.'
echo '{"learnings":[{"title":"From a command","key_insight":"Commands can write learnings.","cites":["'"$PWD"'/main.go"]}]}'
`)
	out := f.out
	cwd := t.TempDir()
	c := *writerCondensed
	c.Cwd = cwd
	c.Events = []transcript.Event{{Kind: transcript.ToolFailed, Command: "go test ./...", ExitCode: 1, Text: "FAIL"}}

	got, err := (&Command{Argv: []string{f.path, "--model", "small one"}, Env: f.env}).Write(context.Background(), &c)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Learnings) != 1 || got.Learnings[0].Title != "From a command" {
		t.Fatalf("learnings = %+v", got.Learnings)
	}
	if !reflect.DeepEqual(got.Learnings[0].Cites, []string{"main.go"}) {
		t.Errorf("cites = %q, want main.go relative to the session cwd", got.Learnings[0].Cites)
	}
	if args := fakeArgs(t, out); !reflect.DeepEqual(args, []string{"--model", "small one"}) {
		t.Errorf("args = %q", args)
	}
	if s := readRecorded(t, out, "stdin"); s != c.Text {
		t.Errorf("stdin = %q, want the condensed text %q", s, c.Text)
	}
	if p := readRecorded(t, out, "prompt.txt"); p != Prompt(&c) {
		t.Errorf("REFLECT_WRITER_PROMPT file is not the prompt")
	}
	var full struct {
		SessionID string             `json:"session_id"`
		Text      string             `json:"text"`
		Events    []transcript.Event `json:"events"`
	}
	if err := json.Unmarshal([]byte(readRecorded(t, out, "condensed.json")), &full); err != nil {
		t.Fatal(err)
	}
	if full.SessionID != "s-1" || full.Text != c.Text || len(full.Events) != 1 || full.Events[0].Command != "go test ./..." {
		t.Errorf("REFLECT_CONDENSED_JSON = %+v", full)
	}
	if env := readRecorded(t, out, "env"); !strings.Contains(env, "\nREFLECT_DISABLE=1\n") {
		t.Error("env lacks REFLECT_DISABLE=1")
	}
	wantDir, _ := filepath.EvalSymlinks(cwd)
	if pwd := strings.TrimSpace(readRecorded(t, out, "pwd")); pwd != wantDir {
		t.Errorf("ran in %s, want the session cwd %s", pwd, wantDir)
	}
	// The temporary files are gone once Write returns.
	files := grepEnv(readRecorded(t, out, "env"), "REFLECT_CONDENSED_JSON")
	if files == "" {
		t.Fatal("env lacks REFLECT_CONDENSED_JSON")
	}
	if _, err := os.Stat(filepath.Dir(files)); !os.IsNotExist(err) {
		t.Errorf("writer files left behind in %s: %v", filepath.Dir(files), err)
	}
}

func grepEnv(env, key string) string {
	for _, line := range strings.Split(env, "\n") {
		if v, ok := strings.CutPrefix(line, key+"="); ok {
			return v
		}
	}
	return ""
}

func TestCommandWriterFailures(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, script, want string
	}{
		{"garbage with exit 0", `cat > /dev/null; echo 'no json here'`, `no JSON object with a "learnings" key`},
		{"silent exit 0", `cat > /dev/null`, "writer output is empty"},
		{"exit 3", `cat > /dev/null; echo 'quota exceeded' >&2; exit 3`, "(exit status 3): quota exceeded"},
		{"too much output", `cat > /dev/null; head -c 5000000 /dev/zero | tr '\0' 'x'`, "more than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := fakeBin(t, "w", tt.script)
			got, err := (&Command{Argv: []string{f.path}, Env: f.env}).Write(context.Background(), writerCondensed)
			if err == nil {
				t.Fatalf("Write = %+v, want an error", got)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %q does not mention %q", err, tt.want)
			}
		})
	}
	if _, err := (&Command{}).Write(context.Background(), writerCondensed); err == nil {
		t.Error("an empty command must fail")
	}
}

func TestSplitCommand(t *testing.T) {
	t.Parallel()
	home, _ := os.UserHomeDir()
	tests := []struct {
		in   string
		want []string
	}{
		{"llm -m gpt-4o", []string{"llm", "-m", "gpt-4o"}},
		{"  spaced\tout \n ", []string{"spaced", "out"}},
		{`sh -c 'llm < "$REFLECT_WRITER_PROMPT"'`, []string{"sh", "-c", `llm < "$REFLECT_WRITER_PROMPT"`}},
		{`"/opt/my tools/writer" --flag="a b"`, []string{"/opt/my tools/writer", "--flag=a b"}},
		{`a\ b c\\d "q\"uote" "keep \n" 'it''s'`, []string{"a b", `c\d`, `q"uote`, `keep \n`, "its"}},
		{`"" x`, []string{"", "x"}},
		{"~/bin/writer ~/x", []string{filepath.Join(home, "bin/writer"), "~/x"}},
		{"'~/bin/writer'", []string{"~/bin/writer"}},
		{"$HOME/w *", []string{"$HOME/w", "*"}},
	}
	for _, tt := range tests {
		got, err := SplitCommand(tt.in)
		if err != nil {
			t.Errorf("SplitCommand(%q): %v", tt.in, err)
			continue
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("SplitCommand(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	for _, bad := range []string{"", "   ", `"open`, `it's`, `trailing\`} {
		if got, err := SplitCommand(bad); err == nil {
			t.Errorf("SplitCommand(%q) = %q, want an error", bad, got)
		}
	}
}
