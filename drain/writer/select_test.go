package writer

import (
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/reflectkb/reflect/internal/testfs"
)

// onPath is a fake exec.LookPath that finds only the named programs.
func onPath(names ...string) func(string) (string, error) {
	return func(file string) (string, error) {
		for _, n := range names {
			if file == n {
				return "/usr/local/bin/" + n, nil
			}
		}
		return "", &exec.Error{Name: file, Err: exec.ErrNotFound}
	}
}

func TestSelectAuto(t *testing.T) {
	t.Parallel()
	cfg := Choice{StateDir: "/state"}
	tests := []struct {
		path     []string
		want     Writer
		whyParts []string
	}{
		{[]string{"claude", "codex"}, &Claude{Path: "/usr/local/bin/claude", Dir: "/state/writer"}, []string{"claude found on PATH"}},
		{[]string{"codex"}, &Codex{Path: "/usr/local/bin/codex", Dir: "/state/writer"}, []string{"no claude on PATH", "codex found"}},
		{nil, &Builtin{}, []string{"no claude or codex on PATH"}},
	}
	for _, tt := range tests {
		for _, setting := range []string{"auto", " Auto "} {
			cfg.Name = setting
			w, why, err := Select(cfg, onPath(tt.path...))
			if err != nil {
				t.Fatalf("PATH %v, writer %q: %v", tt.path, setting, err)
			}
			if !reflect.DeepEqual(w, tt.want) {
				t.Errorf("PATH %v, writer %q: got %#v, want %#v", tt.path, setting, w, tt.want)
			}
			for _, p := range tt.whyParts {
				if !strings.Contains(why, p) {
					t.Errorf("PATH %v: why %q lacks %q", tt.path, why, p)
				}
			}
		}
	}
}

// TestSelectNoneChosen: with no writer chosen the builtin writer runs
// whatever is on PATH, and the reason names the command that opts in. On
// the old code claude or codex on PATH was picked unasked.
func TestSelectNoneChosen(t *testing.T) {
	t.Parallel()
	for _, path := range [][]string{{"claude", "codex"}, {"codex"}, nil} {
		for _, name := range []string{"", "  "} {
			w, why, err := Select(Choice{Name: name, StateDir: "/state"}, onPath(path...))
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := w.(*Builtin); !ok {
				t.Errorf("PATH %v, writer %q: got %#v, want the builtin writer", path, name, w)
			}
			if !strings.Contains(why, OptIn) {
				t.Errorf("why %q does not name %q", why, OptIn)
			}
		}
	}
}

func TestLLM(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]bool{"": false, "builtin": false, " Builtin ": false, "claude": true, "codex": true, "command": true, "auto": true} {
		if got := LLM(name); got != want {
			t.Errorf("LLM(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestSelectConfigured(t *testing.T) {
	t.Parallel()
	all := onPath("claude", "codex", "my-writer")
	tests := []struct {
		writer, command string
		lookPath        func(string) (string, error)
		want            Writer
		wantErr         string
	}{
		{"codex", "", all, &Codex{Path: "/usr/local/bin/codex", Dir: "/state/writer"}, ""},
		{"CLAUDE", "", all, &Claude{Path: "/usr/local/bin/claude", Dir: "/state/writer"}, ""},
		{"builtin", "", all, &Builtin{}, ""},
		{"command", `my-writer --model "small one"`, all, &Command{Argv: []string{"/usr/local/bin/my-writer", "--model", "small one"}}, ""},
		{"claude", "", onPath("codex"), nil, "claude (set by env REFLECT_WRITER) is not on PATH"},
		{"codex", "", onPath(), nil, "codex (set by env REFLECT_WRITER) is not on PATH"},
		{"command", "", all, nil, "needs a command"},
		{"command", "   ", all, nil, "needs a command"},
		{"command", `my-writer "unterminated`, all, nil, "unterminated double quote"},
		{"command", "missing-writer -x", all, nil, "missing-writer is not an executable"},
		{"gpt", "", all, nil, `unknown writer "gpt"`},
	}
	for _, tt := range tests {
		cfg := Choice{StateDir: "/state", Name: tt.writer, Command: tt.command, Origin: "env REFLECT_WRITER"}
		w, why, err := Select(cfg, tt.lookPath)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("writer %q command %q: err = %v, want %q", tt.writer, tt.command, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("writer %q: %v", tt.writer, err)
			continue
		}
		if !reflect.DeepEqual(w, tt.want) {
			t.Errorf("writer %q: got %#v, want %#v", tt.writer, w, tt.want)
		}
		if !strings.Contains(why, "set by env REFLECT_WRITER") {
			t.Errorf("writer %q: why %q does not say where the setting came from", tt.writer, why)
		}
		if w.Name() != strings.ToLower(tt.writer) {
			t.Errorf("Name() = %q, want %q", w.Name(), strings.ToLower(tt.writer))
		}
	}
}

// The environment of the choice reaches the writer Select returns, so a
// drain can run its writer with another environment than its own.
func TestSelectPassesEnv(t *testing.T) {
	t.Parallel()
	env := []string{"PATH=/opt/bin", "FAKE_OUT=/tmp/x"}
	for _, tt := range []struct {
		name, command string
		want          Writer
	}{
		{"claude", "", &Claude{Path: "/usr/local/bin/claude", Dir: "/state/writer", Env: env}},
		{"codex", "", &Codex{Path: "/usr/local/bin/codex", Dir: "/state/writer", Env: env}},
		{"auto", "", &Claude{Path: "/usr/local/bin/claude", Dir: "/state/writer", Env: env}},
		{"command", "my-writer -x", &Command{Argv: []string{"/usr/local/bin/my-writer", "-x"}, Env: env}},
	} {
		w, _, err := Select(Choice{Name: tt.name, Command: tt.command, StateDir: "/state", Env: env}, onPath("claude", "codex", "my-writer"))
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if !reflect.DeepEqual(w, tt.want) {
			t.Errorf("%s: got %#v, want %#v", tt.name, w, tt.want)
		}
	}
}

func TestSelectDefaultLookPath(t *testing.T) {
	bin := t.TempDir()
	if err := testfs.WriteExecutable(filepath.Join(bin, "codex"), []byte("#!/bin/sh\n")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin) // codex, and no claude
	w, _, err := Select(Choice{Name: "auto"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := &Codex{Path: filepath.Join(bin, "codex")}
	if !reflect.DeepEqual(w, want) {
		t.Fatalf("got %#v, want %#v (the real PATH, and a temporary directory without a state dir)", w, want)
	}
}
