package fsutil

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// names lists dir's entries, hidden ones included.
func names(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	return out
}

func TestStagerPublishesWholeFilesOnlyAtTheEnd(t *testing.T) {
	dir := t.TempDir()
	old := filepath.Join(dir, "old.md")
	if err := os.WriteFile(old, []byte("old content"), 0o600); err != nil {
		t.Fatal(err)
	}
	var s Stager
	want := map[string]string{old: "new content"}
	for _, n := range []string{"a.md", "b.md", "c.md"} {
		want[filepath.Join(dir, n)] = "content of " + n
	}
	for _, p := range []string{old, filepath.Join(dir, "a.md"), filepath.Join(dir, "b.md"), filepath.Join(dir, "c.md")} {
		if err := s.Stage(p, []byte(want[p]), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Before Publish: the old file as it was, the new ones not there,
	// only hidden temporary files beside them.
	if got, _ := os.ReadFile(old); string(got) != "old content" {
		t.Errorf("before Publish old.md reads %q", got)
	}
	for _, n := range names(t, dir) {
		if _, ok := TempOf(n); !ok && n != "old.md" {
			t.Errorf("before Publish %s is visible", n)
		}
	}
	n, err := s.Publish()
	if err != nil || n != 4 {
		t.Fatalf("Publish = %d, %v", n, err)
	}
	for p, content := range want {
		got, err := os.ReadFile(p)
		if err != nil || string(got) != content {
			t.Errorf("%s reads %q, %v; want %q", p, got, err, content)
		}
		if fi, err := os.Stat(p); err == nil && runtime.GOOS != "windows" && fi.Mode().Perm() != 0o644 {
			t.Errorf("%s has mode %v", p, fi.Mode().Perm())
		}
	}
	if got := names(t, dir); len(got) != 4 {
		t.Errorf("after Publish the directory holds %v", got)
	}
}

func TestStagerDiscardLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	var s Stager
	for _, n := range []string{"a.md", "b.md"} {
		if err := s.Stage(filepath.Join(dir, n), []byte(n), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s.Discard()
	if got := names(t, dir); len(got) != 0 {
		t.Errorf("after Discard the directory holds %v", got)
	}
}

func TestStagerPublishStopsAtAFailedRenameAndRemovesTheRest(t *testing.T) {
	dir := t.TempDir()
	// A non-empty directory where the second file goes: its rename fails.
	blocked := filepath.Join(dir, "b.md")
	if err := os.MkdirAll(filepath.Join(blocked, "inside"), 0o700); err != nil {
		t.Fatal(err)
	}
	var s Stager
	for _, n := range []string{"a.md", "b.md", "c.md"} {
		if err := s.Stage(filepath.Join(dir, n), []byte(n), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	n, err := s.Publish()
	if n != 1 || err == nil || !strings.Contains(err.Error(), "b.md") {
		t.Fatalf("Publish = %d, %v; want 1 and an error naming b.md", n, err)
	}
	got := names(t, dir)
	if strings.Join(got, " ") != "a.md b.md" {
		t.Errorf("after a failed Publish the directory holds %v, want a.md and the directory b.md", got)
	}
}

// A batch larger than any a Stager syncs file by file (on Linux it then
// syncs the file system once) publishes every file whole, and only then.
func TestStagerPublishesALargeBatch(t *testing.T) {
	dir := t.TempDir()
	var s Stager
	const n = 100
	for i := range n {
		p := filepath.Join(dir, fmt.Sprintf("f%03d.md", i))
		if err := s.Stage(p, []byte(strings.Repeat("x", i)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range names(t, dir) {
		if _, ok := TempOf(name); !ok {
			t.Fatalf("before Publish %s is visible", name)
		}
	}
	if got, err := s.Publish(); got != n || err != nil {
		t.Fatalf("Publish = %d, %v", got, err)
	}
	got := names(t, dir)
	if len(got) != n {
		t.Fatalf("after Publish the directory holds %d entries, want %d", len(got), n)
	}
	for i := range n {
		data, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("f%03d.md", i)))
		if err != nil || string(data) != strings.Repeat("x", i) {
			t.Fatalf("f%03d.md reads %q, %v", i, data, err)
		}
	}
}
