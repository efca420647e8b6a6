package kbsync

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reflectkb/reflect/internal/fsutil"
	"github.com/reflectkb/reflect/internal/testfs"
	"github.com/reflectkb/reflect/store"
)

// The owned files a merge may rewrite (.gitignore, .gitattributes) come
// from the remote: they are read as regular files within the document cap,
// so a FIFO or a huge file is an error, not a hang or an unbounded read.
func TestEnsureLinesReadsOwnedFilesBounded(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fifo := filepath.Join(dir, ".gitattributes")
	if err := testfs.Mkfifo(fifo); err != nil {
		t.Fatal(err)
	}
	if err := ensureLines(fifo, "x\n"); !errors.Is(err, fsutil.ErrNotRegular) {
		t.Errorf("a FIFO: %v, want an error wrapping ErrNotRegular", err)
	}
	big := filepath.Join(dir, ".gitignore")
	if err := os.WriteFile(big, []byte(strings.Repeat("a\n", store.MaxDocumentSize)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := ensureLines(big, "x\n"); !errors.Is(err, fsutil.ErrTooLarge) {
		t.Errorf("a file over the cap: %v, want an error wrapping ErrTooLarge", err)
	}
	small := filepath.Join(dir, "ok")
	if err := ensureLines(small, "x\n"); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(small); string(data) != "x\n" {
		t.Errorf("ensureLines wrote %q", data)
	}
}
