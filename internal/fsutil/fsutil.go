// Package fsutil holds the few file-system helpers every package needs:
// atomic writes (temp file + fsync + rename) and private directory creation.
// It must stay free of domain knowledge.
package fsutil

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// DirPerm and FilePerm are the permissions of everything reflect creates:
// state may contain prompts and paths, so nothing is group- or world-readable.
const (
	DirPerm  os.FileMode = 0o700
	FilePerm os.FileMode = 0o600
)

// EnsureDir creates dir (and parents) with DirPerm if it does not exist.
// An existing directory is left as it is: it may be the user's (a
// project's .claude, a git-synced learnings directory).
func EnsureDir(dir string) error {
	if err := os.MkdirAll(dir, DirPerm); err != nil {
		return fmt.Errorf("create directory %s: %w", dir, err)
	}
	return nil
}

// EnsureStateSubdir is EnsurePrivateDir for a directory reflect creates
// inside its state directory (armed/, session-injected/, spill/, logs/):
// there a symlink is never the user's doing, and writing through it would
// put prompts and commands wherever it points, so it is refused. (The
// state directory itself may be a symlink the user made.)
func EnsureStateSubdir(dir string) error {
	if fi, err := os.Lstat(dir); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		return fmt.Errorf("%s is a symlink; refusing to write through it (remove it, reflect recreates the directory)", dir)
	}
	return EnsurePrivateDir(dir)
}

// EnsurePrivateDir is EnsureDir for reflect's own state directories: one
// that exists group- or world-accessible (a 0755 or 0777 state directory
// lets others read prompts, or plant symlinks where state files go) is
// tightened to DirPerm, and refused when it cannot be. The check costs the
// one stat MkdirAll would have made anyway.
func EnsurePrivateDir(dir string) error {
	fi, err := os.Stat(dir)
	if err != nil {
		if err := os.MkdirAll(dir, DirPerm); err != nil {
			return fmt.Errorf("create directory %s: %w", dir, err)
		}
		return nil
	}
	if !fi.IsDir() {
		return fmt.Errorf("create directory %s: %w", dir, syscall.ENOTDIR)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		if err := os.Chmod(dir, DirPerm); err != nil {
			return fmt.Errorf("directory %s has mode %v and cannot be tightened to %v: %w", dir, fi.Mode().Perm(), DirPerm, err)
		}
	}
	return nil
}

// WriteAtomic writes data to path so that readers see either the old content
// or the new content, never a partial file: it writes a temp file in the same
// directory, syncs it and renames it over path.
func WriteAtomic(path string, data []byte, perm os.FileMode) error {
	return writeAtomic(path, data, perm, true)
}

// WriteAtomicNoSync is WriteAtomic without the fsync, for files that are
// rewritten on every hook and worth nothing after a crash (the status
// line's last event, a session's dedupe set, a failure watcher): readers
// still never see a partial file, but an fsync can cost a hook tens of
// milliseconds on a busy disk.
func WriteAtomicNoSync(path string, data []byte, perm os.FileMode) error {
	return writeAtomic(path, data, perm, false)
}

// WriteAtomicStream is WriteAtomic for content written by write, for a
// file too large to build in memory first (part of it copied from the old
// file, say).
func WriteAtomicStream(path string, perm os.FileMode, write func(w io.Writer) error) error {
	return writeAtomicFunc(path, perm, true, write)
}

func writeAtomic(path string, data []byte, perm os.FileMode, sync bool) error {
	return writeAtomicFunc(path, perm, sync, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// TempPattern is the os.CreateTemp pattern of a file that will be renamed
// onto path: a hidden ".<name>.tmp-<random>" beside it, which listings of
// documents skip. Every atomic write in reflect uses it, so TempOf can tell
// whose temporary file a name is.
func TempPattern(path string) string { return "." + filepath.Base(path) + ".tmp-*" }

// TempOf returns the name of the file a temporary file named name (from
// TempPattern) is written for, and whether name is one.
func TempOf(name string) (string, bool) {
	rest, ok := strings.CutPrefix(name, ".")
	if !ok {
		return "", false
	}
	i := strings.LastIndex(rest, ".tmp-")
	if i <= 0 {
		return "", false
	}
	return rest[:i], true
}

// createTemp creates the temporary file beside path that an atomic write
// renames onto it.
func createTemp(path string) (*os.File, error) {
	dir := filepath.Dir(path)
	if err := EnsureDir(dir); err != nil {
		return nil, err
	}
	tmp, err := os.CreateTemp(dir, TempPattern(path))
	if err != nil {
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	return tmp, nil
}

func writeAtomicFunc(path string, perm os.FileMode, sync bool, write func(w io.Writer) error) error {
	tmp, err := createTemp(path)
	if err != nil {
		return err
	}
	name := tmp.Name()
	cleanup := func() { _ = tmp.Close(); _ = os.Remove(name) }
	if err := write(tmp); err != nil {
		cleanup()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Chmod(perm); err != nil {
		cleanup()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if sync {
		if err := tmp.Sync(); err != nil {
			cleanup()
			return fmt.Errorf("write %s: %w", path, err)
		}
	}
	if err := tmp.Close(); err != nil {
		_ = os.Remove(name)
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(name, path); err != nil {
		_ = os.Remove(name)
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// maxNameLen bounds file names derived from untrusted ids.
const maxNameLen = 100

// SafeName turns an untrusted identifier (a session id from a hook payload)
// into a file name that stays inside its directory: only letters, digits,
// '-', '_' and '.' survive, dots cannot lead (no "..", no hidden files), and
// the result is at most 100 bytes. An id with nothing usable gives "unknown".
func SafeName(id string) string {
	b := make([]byte, 0, len(id))
	for i := 0; i < len(id) && len(b) < maxNameLen; i++ {
		c := id[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '-', c == '_':
			b = append(b, c)
		case c == '.' && len(b) > 0 && b[len(b)-1] != '.':
			b = append(b, c)
		default:
			b = append(b, '_')
		}
	}
	s := string(b)
	for len(s) > 0 && (s[0] == '.' || s[0] == '_') {
		s = s[1:]
	}
	if s == "" {
		return "unknown"
	}
	return s
}

// WriteLocked replaces the content of path in place under an exclusive
// flock; ReadLocked reads it under a shared one, so a reader never sees a
// partial write. It is for small files rewritten by every hook: unlike
// WriteAtomic it creates no new file (inode) per write, a cost (on ext4,
// among others) every hook would pay.
func WriteLocked(path string, data []byte, perm os.FileMode) error {
	if err := EnsureDir(filepath.Dir(path)); err != nil {
		return err
	}
	f, err := OpenPrivate(path, os.O_RDWR)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer f.Close()
	if err := lockOpen(f, true); err != nil {
		return fmt.Errorf("lock %s: %w", path, err)
	}
	if err := f.Truncate(0); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if _, err := f.WriteAt(data, 0); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil // closing the file releases the lock
}

// ReadLocked reads a file written with WriteLocked.
// Like ReadRegular it refuses anything but a regular file, so a FIFO
// planted at the path cannot hang the status line.
func ReadLocked(path string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil {
		return nil, err
	} else if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("read %s: %s: %w", path, fi.Mode().Type(), ErrNotRegular)
	}
	if err := lockOpen(f, false); err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return io.ReadAll(f)
}
