package store

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/reflectkb/reflect/internal/fsutil"
)

// ReadDocument is the one way a file of the documents directory (a
// learning or a sidecar) is read, by every surface that reads one: the
// index, `reflect show`, the MCP server, the web view, the drainer's fold
// and the sync merge driver. What is under documents/ is untrusted: a
// teammate's push, a hand edit or any local tool can put there a symbolic
// link to a private key, a FIFO or /dev/zero. So ReadDocument reads
// regular files only, never follows a link and never reads more than
// MaxDocumentSize bytes:
//
//   - Lstat first: a symbolic link, a directory, a device or a FIFO is
//     refused before it is opened (opening a FIFO would block until a
//     writer showed up), and so is a file over the limit, unread.
//   - The open itself does not follow a link (O_NOFOLLOW) and does not
//     block (O_NONBLOCK), for a path swapped between the Lstat and the
//     open; the open file is then checked again (fstat): still a regular
//     file, and the same one the Lstat saw.
//   - The read stops one byte past the limit, for a file that grows while
//     it is read.
//
// Problems with the file are *DocError values naming path; a missing file
// is an error that wraps fs.ErrNotExist.
func ReadDocument(path string) ([]byte, error) {
	before, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if err := checkDocumentInfo(path, before); err != nil {
		return nil, err
	}
	f, err := fsutil.OpenNoFollow(path, os.O_RDONLY, 0)
	if err != nil {
		if errors.Is(err, fsutil.ErrNotRegular) {
			return nil, docError(path, symlinkReason)
		}
		return nil, err
	}
	defer f.Close()
	after, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if err := checkDocumentInfo(path, after); err != nil {
		return nil, err
	}
	if !os.SameFile(before, after) {
		return nil, docError(path, "was replaced while being read; run the command again")
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxDocumentSize+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if len(data) > MaxDocumentSize {
		return nil, docError(path, "file grew past the size limit while being read")
	}
	return data, nil
}

// symlinkReason says why a link is refused and what to do about it.
const symlinkReason = "is a symbolic link; reflect reads only regular files under documents/ (a link could hand any file of this machine to the model): replace it with the file itself, or remove it"

// checkDocumentInfo refuses what ReadDocument must not read, from its
// file information alone.
func checkDocumentInfo(path string, fi fs.FileInfo) error {
	switch m := fi.Mode(); {
	case m&fs.ModeSymlink != 0:
		return docError(path, symlinkReason)
	case m.IsDir():
		return docError(path, "is a directory")
	case !m.IsRegular():
		return docError(path, fmt.Sprintf("is not a regular file (%s); reflect reads only regular files under documents/", fsutil.Kind(m)))
	case fi.Size() > MaxDocumentSize:
		return docError(path, fmt.Sprintf("file is %d bytes, more than the %d a learning may have", fi.Size(), MaxDocumentSize))
	}
	return nil
}

// ReadRaw returns the file of the learning with this id as written, read
// by ReadDocument, or ErrNotFound. Callers that show it (`reflect show`,
// the MCP resources) still redact and neutralise it for where it goes.
func (s *Store) ReadRaw(id string) ([]byte, error) {
	if !ValidID(id) {
		return nil, fmt.Errorf("%q: %w", id, ErrNotFound)
	}
	data, err := ReadDocument(s.Path(id))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w", id, ErrNotFound)
	}
	return data, err
}
