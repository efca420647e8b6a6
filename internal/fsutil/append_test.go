package fsutil

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/reflectkb/reflect/internal/testfs"
)

// A symlink planted where a state file goes must not redirect a write: the
// target keeps its content and the write fails with ErrNotRegular.
func TestStateWritesRefuseSymlinks(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "victim")
	if err := os.WriteFile(target, []byte("precious\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, write := range map[string]func(string) error{
		"AppendLine":  func(p string) error { return AppendLine(p, []byte("x\n")) },
		"WriteLocked": func(p string) error { return WriteLocked(p, []byte("x\n"), FilePerm) },
		"OpenNoFollow": func(p string) error {
			f, err := OpenNoFollow(p, os.O_WRONLY|os.O_TRUNC, FilePerm)
			if err == nil {
				f.Close()
			}
			return err
		},
	} {
		link := filepath.Join(dir, name+".json")
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
		if err := write(link); !errors.Is(err, ErrNotRegular) {
			t.Errorf("%s through a symlink: err = %v, want ErrNotRegular", name, err)
		}
		if got, _ := os.ReadFile(target); string(got) != "precious\n" {
			t.Errorf("%s wrote through the symlink: target now %q", name, got)
		}
	}
}

// A FIFO at a state file's path is refused at once instead of blocking the
// hook that opens it (for writing: no reader; for reading: no writer).
func TestStateFilesRefuseFIFOs(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := testfs.Mkfifo(fifo); err != nil {
		t.Skip("mkfifo:", err)
	}
	if err := AppendLine(fifo, []byte("x\n")); err == nil {
		t.Error("AppendLine to a FIFO succeeded")
	}
	if _, err := ReadRegular(fifo, 100); !errors.Is(err, ErrNotRegular) {
		t.Errorf("ReadRegular(FIFO) err = %v, want ErrNotRegular", err)
	}
	if _, err := ReadLocked(fifo); !errors.Is(err, ErrNotRegular) {
		t.Errorf("ReadLocked(FIFO) err = %v, want ErrNotRegular", err)
	}
	if _, err := ReadRegular(dir, 100); !errors.Is(err, ErrNotRegular) {
		t.Errorf("ReadRegular(dir) err = %v, want ErrNotRegular", err)
	}
}

func TestReadRegularCapsSize(t *testing.T) {
	path := filepath.Join(t.TempDir(), "HEAD")
	if err := os.WriteFile(path, []byte(strings.Repeat("x", 101)), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadRegular(path, 100); !errors.Is(err, ErrTooLarge) {
		t.Errorf("101 bytes with a limit of 100: err = %v, want ErrTooLarge", err)
	}
	if got, err := ReadRegular(path, 101); err != nil || len(got) != 101 {
		t.Errorf("ReadRegular = %d bytes, %v", len(got), err)
	}
}

// Existing files and directories with loose modes are tightened.
func TestLooseModesTightened(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := EnsurePrivateDir(dir); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(dir); fi.Mode().Perm() != DirPerm {
		t.Errorf("dir mode %v after EnsurePrivateDir, want %v", fi.Mode().Perm(), DirPerm)
	}
	path := filepath.Join(dir, "hooks.log")
	if err := os.WriteFile(path, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o666); err != nil {
		t.Fatal(err)
	}
	if err := AppendLine(path, []byte("new\n")); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != FilePerm {
		t.Errorf("file mode %v after AppendLine, want %v", fi.Mode().Perm(), FilePerm)
	}
	if got, _ := os.ReadFile(path); string(got) != "old\nnew\n" {
		t.Errorf("content %q", got)
	}
	if err := os.WriteFile(filepath.Join(dir, "file"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := EnsurePrivateDir(filepath.Join(dir, "file")); err == nil {
		t.Error("EnsurePrivateDir accepted a regular file")
	}
}

// A full disk (ENOSPC) or a short write leaves the file as it was: whole
// lines or nothing, never a torn line that a reader takes for a record.
func TestAppendLineWholeOrNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "queue.jsonl")
	if err := AppendLine(path, []byte(`{"id":"a"}`+"\n")); err != nil {
		t.Fatal(err)
	}
	for _, fault := range []struct {
		name string
		fn   func(f *os.File, b []byte) (int, error)
	}{
		{"ENOSPC after half", func(f *os.File, b []byte) (int, error) {
			n, _ := f.Write(b[:len(b)/2])
			return n, &os.PathError{Op: "write", Path: f.Name(), Err: syscall.ENOSPC}
		}},
		{"short write", func(f *os.File, b []byte) (int, error) { return f.Write(b[:3]) }},
	} {
		t.Run(fault.name, func(t *testing.T) {
			orig := write
			write = fault.fn
			defer func() { write = orig }()
			if err := AppendLine(path, []byte(`{"id":"b","padding":"xxxxxxxxxxxxxxxx"}`+"\n")); err == nil {
				t.Fatal("AppendLine reported success on a failed write")
			}
			if got, _ := os.ReadFile(path); string(got) != `{"id":"a"}`+"\n" {
				t.Errorf("after a failed append the file holds %q", got)
			}
		})
	}
	if err := AppendLine(path, []byte(`{"id":"c"}`+"\n")); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); string(got) != `{"id":"a"}`+"\n"+`{"id":"c"}`+"\n" {
		t.Errorf("after recovery the file holds %q", got)
	}
}

// A symlink in place of a state subdirectory is refused, not written through.
func TestEnsureStateSubdirRefusesSymlink(t *testing.T) {
	state := t.TempDir()
	elsewhere := t.TempDir()
	link := filepath.Join(state, "armed")
	if err := os.Symlink(elsewhere, link); err != nil {
		t.Fatal(err)
	}
	if err := EnsureStateSubdir(link); err == nil || !strings.Contains(err.Error(), "symlink") {
		t.Errorf("EnsureStateSubdir(symlink) = %v, want a refusal", err)
	}
	if err := EnsureStateSubdir(filepath.Join(state, "logs")); err != nil {
		t.Errorf("EnsureStateSubdir(new dir) = %v", err)
	}
}
