package vector

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"unsafe"

	"github.com/reflectkb/reflect/internal/fsutil"
)

// Writer writes a vector file one row at a time, for a caller that reads
// its rows from elsewhere (the catalog's vectors table) and need not hold
// them all: a full export at 100,000 learnings held 100 MB of decoded
// vectors before Write could start. The file it makes is byte for byte
// what Write makes of the same rows, and is installed the same way: rows go
// to a temp file in the same directory, which Commit syncs and renames over
// path, so a reader sees the old file or the new one, never a part. The
// count in the header is written last, by Commit, so it need not be known
// up front. Until Commit, path is untouched; Abort (or any failed call)
// removes the temp file. A Writer is not safe for concurrent use.
type Writer struct {
	path   string
	h      Header
	tmp    *os.File
	w      *bufio.Writer
	count  int
	last   uint64
	row    []byte // one encoded row, reused
	codes  *codesWriter
	closed bool
}

// Create starts a vector file at path with header h. Rows must then be
// added in increasing key order (the order a reader's Find relies on, and
// what makes keys unique without remembering them).
func Create(path string, h Header) (*Writer, error) {
	if err := validate(h, nil); err != nil {
		return nil, fmt.Errorf("write vectors %s: %w", path, err)
	}
	dir := filepath.Dir(path)
	if err := fsutil.EnsureDir(dir); err != nil {
		return nil, err
	}
	if err := clearWay(path); err != nil {
		return nil, fmt.Errorf("write vectors %s: %w", path, err)
	}
	tmp, err := os.CreateTemp(dir, fsutil.TempPattern(path))
	if err != nil {
		return nil, fmt.Errorf("write vectors %s: %w", path, err)
	}
	w := &Writer{path: path, h: h, tmp: tmp, w: bufio.NewWriterSize(tmp, 1<<20), row: make([]byte, 8+4*h.Dim), codes: newCodesWriter(CodesPath(path), h.Dim)}
	// The count is 0 until Commit writes it in place.
	if _, err := w.w.Write(encodeHeader(h, 0)); err != nil {
		return nil, w.fail(err)
	}
	return w, nil
}

// Add appends a row. The vector must have the header's dimension and
// finite components, and key must be above the previous row's; a row that
// is not gives an error, and the Writer is aborted.
func (w *Writer) Add(key uint64, vec []float32) error {
	if w.closed {
		return fmt.Errorf("write vectors %s: writer closed", w.path)
	}
	switch {
	case len(vec) != w.h.Dim:
		return w.fail(fmt.Errorf("row %d (key %d) has %d components, want %d", w.count, key, len(vec), w.h.Dim))
	case w.count > 0 && key <= w.last:
		return w.fail(fmt.Errorf("row %d: key %d not above the previous key %d", w.count, key, w.last))
	}
	for _, x := range vec {
		if math.Float32bits(x)&floatExponent == floatExponent {
			return w.fail(fmt.Errorf("row %d (key %d) contains %v", w.count, key, x))
		}
	}
	binary.LittleEndian.PutUint64(w.row, key)
	if littleEndian {
		copy(w.row[8:], unsafe.Slice((*byte)(unsafe.Pointer(&vec[0])), 4*len(vec)))
	} else {
		for j, x := range vec {
			binary.LittleEndian.PutUint32(w.row[8+4*j:], math.Float32bits(x))
		}
	}
	if _, err := w.w.Write(w.row); err != nil {
		return w.fail(err)
	}
	w.codes.add(vec)
	w.count++
	w.last = key
	return nil
}

// Len returns the number of rows added so far.
func (w *Writer) Len() int { return w.count }

// Commit writes the row count into the header, syncs the file and renames
// it over path.
func (w *Writer) Commit() error {
	if w.closed {
		return fmt.Errorf("write vectors %s: writer closed", w.path)
	}
	if err := w.w.Flush(); err != nil {
		return w.fail(err)
	}
	var c [8]byte
	binary.LittleEndian.PutUint64(c[:], uint64(w.count))
	if _, err := w.tmp.WriteAt(c[:], 16); err != nil {
		return w.fail(err)
	}
	if err := w.tmp.Sync(); err != nil {
		return w.fail(err)
	}
	st, err := w.tmp.Stat()
	if err != nil {
		return w.fail(err)
	}
	w.closed = true
	name := w.tmp.Name()
	if err := w.tmp.Close(); err != nil {
		_ = os.Remove(name)
		w.codes.abort()
		return fmt.Errorf("write vectors %s: %w", w.path, err)
	}
	if err := os.Rename(name, w.path); err != nil {
		_ = os.Remove(name)
		w.codes.abort()
		return fmt.Errorf("write vectors %s: %w", w.path, err)
	}
	// As in Write, the codes name the file just installed, or there are
	// none.
	_ = w.codes.commit(identityOf(st))
	// As in Write: make the rename durable where the directory can be
	// synced; the data is derived, so failure here is not an error.
	if d, err := os.Open(filepath.Dir(w.path)); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
	return nil
}

// Abort drops the temp file and leaves path as it was. It does nothing
// after Commit or a failed call, so it can be deferred.
func (w *Writer) Abort() {
	if !w.closed {
		_ = w.fail(nil)
	}
}

// fail closes and removes the temp file and wraps err.
func (w *Writer) fail(err error) error {
	w.closed = true
	w.codes.abort()
	_ = w.tmp.Close()
	_ = os.Remove(w.tmp.Name())
	if err == nil {
		return nil
	}
	return fmt.Errorf("write vectors %s: %w", w.path, err)
}
