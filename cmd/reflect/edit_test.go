package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/reflectkb/reflect/internal/testfs"
)

// fakeEditor writes a shell script that edits the file it is given as
// script says, and sets it as VISUAL in k's environment.
func fakeEditor(t *testing.T, k *testKB, script string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "editor.sh")
	if err := testfs.WriteExecutable(path, []byte("#!/bin/sh\nset -e\nf=\"$1\"\n"+script)); err != nil {
		t.Fatal(err)
	}
	k.env["VISUAL"] = path
}

func addForEdit(t *testing.T, k *testKB) (id, path string, before []byte) {
	t.Helper()
	code, stdout, stderr := k.run(t, "", false, "add", "--title", "Pin the Go toolchain", "--insight", "go.mod toolchain line", "--tags", "go,toolchain")
	if code != 0 {
		t.Fatalf("add: exit %d: %s", code, stderr)
	}
	id = strings.TrimPrefix(strings.SplitN(stdout, "\n", 2)[0], "Added ")
	path = filepath.Join(k.docs, id+".md")
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return id, path, before
}

func TestEditSavesAndReindexes(t *testing.T) {
	t.Parallel()
	k := tempKB(t)
	id, path, _ := addForEdit(t, k)
	fakeEditor(t, k, `sed -i 's/go.mod toolchain line/the toolchain line of go.mod pins gotip builds/; s/tags: \[go, toolchain\]/tags: [go]/' "$f"`+"\n")
	code, stdout, stderr := k.run(t, "", false, "edit", id[len(id)-6:])
	if code != 0 {
		t.Fatalf("edit: exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "Updated "+id) || !strings.Contains(stdout, "changed: tags (-toolchain), key_insight") {
		t.Errorf("stdout %q", stdout)
	}
	after, _ := os.ReadFile(path)
	if !strings.Contains(string(after), "gotip builds") || !strings.Contains(string(after), "tags: [go]\n") {
		t.Errorf("document:\n%s", after)
	}
	if code, stdout, _ := k.run(t, "", false, "search", "gotip"); code != 0 || !strings.Contains(stdout, "Pin the Go toolchain") {
		t.Errorf("the edit is not searchable: exit %d %q", code, stdout)
	}
	// Saving it unchanged edits nothing.
	fakeEditor(t, k, "true\n")
	if code, _, stderr := k.run(t, "", false, "edit", id); code != 0 || !strings.Contains(stderr, "Edit cancelled: no changes") {
		t.Errorf("unchanged edit: exit %d, %q", code, stderr)
	}
	if code, _, stderr := k.run(t, "", false, "edit", "lrn-nope"); code != 1 || !strings.Contains(stderr, `no learning "lrn-nope"`) {
		t.Errorf("unknown id: exit %d, %q", code, stderr)
	}
}

// Without a terminal, an edit that breaks the frontmatter is refused: the
// learning is unchanged and the edited copy is kept and named.
func TestEditRefusesABrokenDocumentWithoutATerminal(t *testing.T) {
	t.Parallel()
	k := tempKB(t)
	id, path, before := addForEdit(t, k)
	fakeEditor(t, k, `sed -i 's/^confidence: medium/confidence: [/; s/^## /## my precious notes /' "$f"`+"\n")
	code, _, stderr := k.run(t, "", false, "edit", id)
	if code != 1 || !strings.Contains(stderr, "not saved: ") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if after, _ := os.ReadFile(path); string(after) != string(before) {
		t.Errorf("the learning changed:\n%s", after)
	}
	m := regexp.MustCompile(`your edited copy is (\S+)`).FindStringSubmatch(stderr)
	if m == nil {
		t.Fatalf("stderr names no copy: %q", stderr)
	}
	if kept, err := os.ReadFile(m[1]); err != nil || !strings.Contains(string(kept), "confidence: [") {
		t.Errorf("the edited copy was not kept: %v\n%s", err, kept)
	}
}

// On a terminal, a failed check opens the editor again with the error at
// the top; a fixed copy is saved without the error lines.
func TestEditReopensWithTheErrorOnATerminal(t *testing.T) {
	t.Parallel()
	k := tempKB(t)
	id, path, _ := addForEdit(t, k)
	seen := filepath.Join(t.TempDir(), "second-open.md")
	fakeEditor(t, k, `if [ ! -e "`+seen+`.n" ]; then
  touch "`+seen+`.n"
  sed -i 's/^confidence: medium/confidence: sure/' "$f"
else
  cp "$f" "`+seen+`"
  sed -i 's/^confidence: sure/confidence: high/' "$f"
fi
`)
	code, stdout, stderr := k.run(t, "", true, "edit", id)
	if code != 0 || !strings.Contains(stdout, "changed: confidence") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	second, _ := os.ReadFile(seen)
	if !strings.HasPrefix(string(second), editErrorPrefix) || !strings.Contains(string(second), `confidence "sure" is not one of high, medium, low`) {
		t.Errorf("the second open does not start with the error:\n%s", second)
	}
	after, _ := os.ReadFile(path)
	if !strings.Contains(string(after), "confidence: high") || strings.Contains(string(after), editErrorPrefix) {
		t.Errorf("saved:\n%s", after)
	}

	// Saving the copy unchanged after the error gives up, the learning as it was.
	before := after
	fakeEditor(t, k, `grep -q '^# reflect: ' "$f" || sed -i 's/^confidence: high/confidence: sure/' "$f"`+"\n")
	code, _, stderr = k.run(t, "", true, "edit", id)
	if code != 1 || !strings.Contains(stderr, "still fails the check") {
		t.Errorf("give up: exit %d, %q", code, stderr)
	}
	if after, _ := os.ReadFile(path); string(after) != string(before) {
		t.Errorf("the learning changed:\n%s", after)
	}
}

// Questions are edited in the document like any frontmatter field: an
// added one is saved redacted, reported as a change, and searched.
func TestEditQuestions(t *testing.T) {
	t.Parallel()
	k := tempKB(t)
	id, path, _ := addForEdit(t, k)
	const token = "ghp_0123456789abcdefghijklmnopqrstuvwxyzAB"
	fakeEditor(t, k, `sed -i 's/^tags: \[go, toolchain\]$/&\nquestions: ["why does go build download another compiler?", "is `+token+` needed?"]/' "$f"`+"\n")
	code, stdout, stderr := k.run(t, "", false, "edit", id)
	if code != 0 {
		t.Fatalf("edit: exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "changed: questions (+why does go build download another compiler?, +is [REDACTED") || strings.Contains(stdout, token) {
		t.Errorf("stdout %q", stdout)
	}
	after, _ := os.ReadFile(path)
	if !strings.Contains(string(after), "questions: [") || strings.Contains(string(after), token) {
		t.Errorf("document:\n%s", after)
	}
	if code, stdout, _ := k.run(t, "", false, "search", "download another compiler"); code != 0 || !strings.Contains(stdout, "Pin the Go toolchain") {
		t.Errorf("the edited questions are not searched: exit %d %q", code, stdout)
	}
}
