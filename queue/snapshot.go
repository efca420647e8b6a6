package queue

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/reflectkb/reflect/internal/fsutil"
)

// snapshot is what an append-only file held when it was read, cut at its
// last newline so that a line being appended at that moment is not taken
// for a whole one. Enqueue reads the queue and the ledger into snapshots
// before it takes the lock, and under the lock reads only what was
// appended since (catchUp): the locked section costs the bytes appended
// meanwhile, not the size of the files.
type snapshot struct {
	fi   os.FileInfo // nil when the file did not exist
	data []byte
}

// readSnapshot reads path (a missing file is an empty snapshot).
func readSnapshot(path string) (snapshot, error) {
	f, fi, err := fsutil.OpenRegular(path)
	if errors.Is(err, fs.ErrNotExist) {
		return snapshot{}, nil
	}
	if err != nil {
		return snapshot{}, fmt.Errorf("read %s: %w", path, err)
	}
	defer f.Close()
	// Sized from the stat, as os.ReadFile does: io.ReadAll's doubling
	// buffer would copy a large ledger many times over, a cost every hook
	// would pay.
	data := make([]byte, fi.Size())
	n, err := io.ReadFull(f, data)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return snapshot{}, fmt.Errorf("read %s: %w", path, err)
	}
	data = data[:n]
	return snapshot{fi: fi, data: data[:bytes.LastIndexByte(data, '\n')+1]}, nil
}

// catchUp brings s up to date with path and returns what a check must
// still look at: the bytes appended since the snapshot, or, when the file
// was replaced (a rewrite renamed a new file into place) or truncated, all
// of it, with replaced set so that conclusions drawn from the old snapshot
// are dropped. The caller holds the exclusive lock, so nothing is being
// appended meanwhile.
func (s *snapshot) catchUp(path string) (fresh []byte, replaced bool, err error) {
	f, fi, err := fsutil.OpenRegular(path)
	if errors.Is(err, fs.ErrNotExist) {
		replaced = s.fi != nil
		*s = snapshot{}
		return nil, replaced, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("read %s: %w", path, err)
	}
	defer f.Close()
	from := int64(len(s.data))
	if s.fi == nil || !os.SameFile(s.fi, fi) || fi.Size() < from {
		from, replaced = 0, s.fi != nil || len(s.data) > 0
		s.data = nil
	}
	fresh = make([]byte, fi.Size()-from)
	n, err := f.ReadAt(fresh, from)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, false, fmt.Errorf("read %s: %w", path, err)
	}
	fresh = fresh[:n]
	s.fi = fi
	s.data = append(s.data, fresh...)
	return fresh, replaced, nil
}
