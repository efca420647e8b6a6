// Package fsutil holds the few file-system helpers every package needs:
// atomic writes (temp file + fsync + rename) and private directory creation.
// It must stay free of domain knowledge.
package fsutil

import (
	"fmt"
	"os"
	"path/filepath"
)

// DirPerm and FilePerm are the permissions of everything reflect creates:
// state may contain prompts and paths, so nothing is group- or world-readable.
const (
	DirPerm  os.FileMode = 0o700
	FilePerm os.FileMode = 0o600
)

// EnsureDir creates dir (and parents) with DirPerm if it does not exist.
func EnsureDir(dir string) error {
	if err := os.MkdirAll(dir, DirPerm); err != nil {
		return fmt.Errorf("create directory %s: %w", dir, err)
	}
	return nil
}

// WriteAtomic writes data to path so that readers see either the old content
// or the new content, never a partial file: it writes a temp file in the same
// directory, syncs it and renames it over path.
func WriteAtomic(path string, data []byte, perm os.FileMode) error {
	dir := filepath.Dir(path)
	if err := EnsureDir(dir); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	name := tmp.Name()
	cleanup := func() { _ = tmp.Close(); _ = os.Remove(name) }
	if _, err := tmp.Write(data); err != nil {
		cleanup()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Chmod(perm); err != nil {
		cleanup()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		cleanup()
		return fmt.Errorf("write %s: %w", path, err)
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
