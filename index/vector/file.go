package vector

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"syscall"
	"unicode/utf8"
	"unsafe"

	"github.com/reflectkb/reflect/internal/fsutil"
)

// The file format, all little-endian:
//
//	offset  size  field
//	0       8     magic "RFLVEC01"
//	8       4     format version (1)
//	12      4     dim: float32 components per vector, 1..MaxDim
//	16      8     count: number of rows
//	24      4     rows offset: where row 0 starts, a multiple of 8
//	28      2+n   embedder name (uint16 length, then UTF-8 bytes)
//	..      2+n   embedder version (likewise)
//	..            zero padding up to the rows offset
//	rows          count × (uint64 key, dim × float32)
//
// The rows offset is padded so that every vector starts 4-byte aligned in
// the memory map (a row is 8 + 4·dim bytes, so alignment carries from row
// to row): the scan can then read the floats in place instead of decoding
// them. The file length must be exactly rows offset + count × row size, so
// truncation and trailing garbage are both caught on open.
const (
	Magic         = "RFLVEC01"
	FormatVersion = 1
	// MaxDim bounds dim so that a corrupt header cannot ask for absurd rows.
	MaxDim = 1 << 16
	// MaxNameLen bounds the embedder name and version.
	MaxNameLen = 255

	fixedHeader = 28
	minHeader   = fixedHeader + 2 + 2
	keyFloats   = 2 // a uint64 key occupies two float32 slots of a row
)

// ErrInvalid is wrapped by every error Open returns for a file that is not
// a well-formed vector file of this format version. The remedy is always
// the same: rebuild the file from the documents.
var ErrInvalid = errors.New("invalid vector file")

// Header describes a vector file: the vector length and the embedder that
// produced the vectors, which a reader compares with its own before
// trusting the file.
type Header struct {
	Dim             int
	Embedder        string
	EmbedderVersion string
}

// Row is one document's vector. Key is the caller's document key (the
// catalog's row number, say).
type Row struct {
	Key uint64
	Vec []float32
}

// File is an open vector file. Its methods are safe for concurrent use,
// except Close, which must not race with anything else.
type File struct {
	path    string
	hdr     Header
	count   int
	stride  int       // float32 slots per row: keyFloats + dim
	floats  []float32 // all rows, viewed in place in the mapping
	data    []byte    // the whole mapping
	rowsOff int
	release func() error
	id      identity // the version of the file that was mapped
	q       *codes   // its codes, when they match it (codes.go)
	fd      *os.File // the file, open while q is, for rescoring (searchCodes)
	qErr    error    // why q is nil
}

// littleEndianHost says whether floats can be read from the mapping in
// place; the format is little-endian.
var littleEndianHost = func() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}()

// Open maps the vector file at path read-only and validates it: magic,
// version, dimension, name lengths, alignment and a length that matches the
// header exactly. A file that fails any check gives an error wrapping
// ErrInvalid; nothing in a file can make Open or Search read out of bounds.
func Open(path string) (*File, error) {
	if !littleEndianHost {
		return nil, fmt.Errorf("open vectors %s: vector files are read in place and need a little-endian host", path)
	}
	// O_NONBLOCK: a FIFO planted here would otherwise hang every search,
	// reindex and doctor until someone wrote to it.
	fd, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		if errors.Is(err, syscall.EISDIR) {
			return nil, invalid(path, "is a directory")
		}
		return nil, fmt.Errorf("open vectors: %w", err)
	}
	keep := false // the mapping outlives the descriptor, kept only for rescoring
	defer func() {
		if !keep {
			fd.Close()
		}
	}()
	// Shared with other readers, excluded by Patch's exclusive lock, so
	// the length and the header's count are read from one state of the
	// file; released on return, once both are in the parsed File.
	unlock, err := lockFile(fd, false)
	if err != nil {
		return nil, fmt.Errorf("open vectors: %w", err)
	}
	defer unlock()
	st, err := fd.Stat()
	if err != nil {
		return nil, fmt.Errorf("open vectors: %w", err)
	}
	if !st.Mode().IsRegular() {
		return nil, invalid(path, "is %s, not a regular file", fsutil.Kind(st.Mode()))
	}
	size := st.Size()
	if size < minHeader {
		return nil, invalid(path, "short header: %d bytes, need at least %d", size, minHeader)
	}
	if size > math.MaxInt {
		return nil, invalid(path, "%d bytes is too large for this platform", size)
	}
	data, release, err := mapFile(fd, int(size))
	if err != nil {
		return nil, fmt.Errorf("open vectors %s: %w", path, err)
	}
	f, err := parse(path, data)
	if err != nil {
		_ = release()
		return nil, err
	}
	f.release = release
	f.id = identityOf(st)
	// Still under the shared lock, so a patch cannot come between the
	// two files.
	f.q, f.qErr = openCodes(CodesPath(path), f.id, f.count, f.hdr.Dim)
	if f.q != nil {
		f.fd, keep = fd, true
	}
	return f, nil
}

func invalid(path, format string, args ...any) error {
	return fmt.Errorf("vector file %s: %s: %w", path, fmt.Sprintf(format, args...), ErrInvalid)
}

// parse validates data as a vector file. Every offset it computes is
// checked against len(data) before use, and no size is multiplied before it
// is known to be small enough not to overflow.
func parse(path string, data []byte) (*File, error) {
	if len(data) < minHeader {
		return nil, invalid(path, "short header: %d bytes, need at least %d", len(data), minHeader)
	}
	if string(data[:8]) != Magic {
		return nil, invalid(path, "bad magic %q (not a reflect vector file)", data[:8])
	}
	le := binary.LittleEndian
	if v := le.Uint32(data[8:]); v != FormatVersion {
		return nil, invalid(path, "format version %d, this reflect reads version %d", v, FormatVersion)
	}
	dim := le.Uint32(data[12:])
	if dim == 0 || dim > MaxDim {
		return nil, invalid(path, "dimension %d outside 1..%d", dim, MaxDim)
	}
	count := le.Uint64(data[16:])
	rowsOff := uint64(le.Uint32(data[24:]))
	pos := fixedHeader
	name, pos, err := readName(path, data, pos, "embedder name")
	if err != nil {
		return nil, err
	}
	version, pos, err := readName(path, data, pos, "embedder version")
	if err != nil {
		return nil, err
	}
	if rowsOff%4 != 0 {
		return nil, invalid(path, "rows offset %d is not 4-byte aligned", rowsOff)
	}
	if want := uint64(align8(pos)); rowsOff != want {
		return nil, invalid(path, "rows offset %d, header ends at %d (want %d)", rowsOff, pos, want)
	}
	if rowsOff > uint64(len(data)) {
		return nil, invalid(path, "rows offset %d beyond the end of the file (%d bytes)", rowsOff, len(data))
	}
	for _, b := range data[pos:rowsOff] {
		if b != 0 {
			return nil, invalid(path, "non-zero header padding")
		}
	}
	rowBytes := 8 + 4*uint64(dim)
	body := uint64(len(data)) - rowsOff
	if count > body/rowBytes {
		return nil, invalid(path, "header says %d rows of %d bytes, only %d bytes follow the header (truncated?)", count, rowBytes, body)
	}
	if body != count*rowBytes {
		return nil, invalid(path, "%d bytes follow %d rows of %d bytes (trailing garbage?)", body-count*rowBytes, count, rowBytes)
	}
	f := &File{
		path:    path,
		hdr:     Header{Dim: int(dim), Embedder: name, EmbedderVersion: version},
		count:   int(count),
		stride:  keyFloats + int(dim),
		data:    data,
		rowsOff: int(rowsOff),
	}
	if count > 0 {
		p := unsafe.Pointer(&data[rowsOff])
		// The mapping is page-aligned and rowsOff a multiple of 4, so this
		// holds; it is checked because a misaligned view would be undefined.
		if uintptr(p)%unsafe.Alignof(float32(0)) != 0 {
			return nil, invalid(path, "rows not aligned in memory")
		}
		f.floats = unsafe.Slice((*float32)(p), int(count)*f.stride)
	}
	return f, nil
}

func readName(path string, data []byte, pos int, what string) (string, int, error) {
	if pos+2 > len(data) {
		return "", 0, invalid(path, "short header: %s length missing", what)
	}
	n := int(binary.LittleEndian.Uint16(data[pos:]))
	pos += 2
	if n > MaxNameLen {
		return "", 0, invalid(path, "%s is %d bytes, at most %d allowed", what, n, MaxNameLen)
	}
	if pos+n > len(data) {
		return "", 0, invalid(path, "short header: %s cut off", what)
	}
	s := string(data[pos : pos+n])
	if !utf8.ValidString(s) {
		return "", 0, invalid(path, "%s is not UTF-8", what)
	}
	return s, pos + n, nil
}

func align8(n int) int { return (n + 7) &^ 7 }

// Close unmaps the file. Vectors returned by Vector become invalid.
func (f *File) Close() error {
	if f.release == nil {
		return nil
	}
	err := f.release()
	if f.q != nil {
		if qerr := f.q.release(); err == nil {
			err = qerr
		}
		f.fd.Close()
	}
	f.release, f.data, f.floats, f.count, f.q, f.fd = nil, nil, nil, 0, nil, nil
	if err != nil {
		return fmt.Errorf("close vectors %s: %w", f.path, err)
	}
	return nil
}

// Header returns the dimension and embedder identity the file was written
// with.
func (f *File) Header() Header { return f.hdr }

// Dim returns the vector length.
func (f *File) Dim() int { return f.hdr.Dim }

// Len returns the number of rows.
func (f *File) Len() int { return f.count }

// Key returns row i's document key.
func (f *File) Key(i int) uint64 {
	return binary.LittleEndian.Uint64(f.data[f.rowsOff+i*(f.stride*4):])
}

// Vector returns row i's vector. It points into the read-only mapping: do
// not modify it, and do not use it after Close.
func (f *File) Vector(i int) []float32 {
	off := i*f.stride + keyFloats
	return f.floats[off : off+f.hdr.Dim : off+f.hdr.Dim]
}

// Write writes rows to path as a vector file with header h, atomically: a
// temp file in the same directory is written, synced and renamed over path,
// so a reader sees the old file or the new one, and a reader that has the
// old one mapped keeps a valid mapping. Every vector must have h.Dim finite
// components and every key must be unique.
func Write(path string, h Header, rows []Row) error {
	if err := validate(h, rows); err != nil {
		return fmt.Errorf("write vectors %s: %w", path, err)
	}
	dir := filepath.Dir(path)
	if err := fsutil.EnsureDir(dir); err != nil {
		return err
	}
	if err := clearWay(path); err != nil {
		return fmt.Errorf("write vectors %s: %w", path, err)
	}
	tmp, err := os.CreateTemp(dir, fsutil.TempPattern(path))
	if err != nil {
		return fmt.Errorf("write vectors %s: %w", path, err)
	}
	name := tmp.Name()
	fail := func(err error) error {
		_ = tmp.Close()
		_ = os.Remove(name)
		return fmt.Errorf("write vectors %s: %w", path, err)
	}
	cw := newCodesWriter(CodesPath(path), h.Dim)
	defer cw.abort()
	w := bufio.NewWriterSize(tmp, 1<<20)
	if _, err := w.Write(encodeHeader(h, len(rows))); err != nil {
		return fail(err)
	}
	buf := make([]byte, 8+4*h.Dim)
	for _, r := range rows {
		binary.LittleEndian.PutUint64(buf, r.Key)
		if littleEndian {
			// The file's floats are the machine's: copy them as they are
			// (a third of the time of encoding 2.5 million floats one by one).
			copy(buf[8:], unsafe.Slice((*byte)(unsafe.Pointer(&r.Vec[0])), 4*len(r.Vec)))
		} else {
			for j, x := range r.Vec {
				binary.LittleEndian.PutUint32(buf[8+4*j:], math.Float32bits(x))
			}
		}
		if _, err := w.Write(buf); err != nil {
			return fail(err)
		}
		cw.add(r.Vec)
	}
	if err := w.Flush(); err != nil {
		return fail(err)
	}
	if err := tmp.Sync(); err != nil {
		return fail(err)
	}
	st, err := tmp.Stat()
	if err != nil {
		return fail(err)
	}
	if err := tmp.Close(); err != nil {
		_ = os.Remove(name)
		return fmt.Errorf("write vectors %s: %w", path, err)
	}
	if err := os.Rename(name, path); err != nil {
		_ = os.Remove(name)
		return fmt.Errorf("write vectors %s: %w", path, err)
	}
	// The codes name the file just installed; should they fail, there are
	// none, and searches scan the floats (CodesProblem says why).
	_ = cw.commit(identityOf(st))
	// Make the rename itself durable; not every platform can sync a
	// directory, and the data is derived, so failure here is not an error.
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
	return nil
}

// clearWay makes sure the rename that installs a new file at path can
// succeed: a directory there (which no rename replaces) is moved aside to
// path + ".moved-aside", not deleted, since someone put it there. Anything
// else (a regular file, symlink, FIFO) is replaced by the rename itself.
func clearWay(path string) error {
	fi, err := os.Lstat(path)
	if err != nil || !fi.IsDir() {
		return nil
	}
	aside := path + ".moved-aside"
	if err := os.Rename(path, aside); err != nil {
		return fmt.Errorf("%s is a directory and could not be moved aside: %w", path, err)
	}
	return nil
}

// NonFinite counts the rows whose vector has a NaN or infinite component.
// Write never writes one, so any is damage (a bad disk, a hand edit): a
// NaN cosine would sort arbitrarily. It reads every float, which costs
// milliseconds for tens of thousands of rows; reindex and doctor pay it,
// searches do not.
func (f *File) NonFinite() int {
	bad := 0
	f.inBlocks(0, f.count, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			for _, x := range f.Vector(i) {
				if math.Float32bits(x)&floatExponent == floatExponent {
					bad++
					break
				}
			}
		}
	})
	return bad
}

// floatExponent masks a float32's exponent bits.
const floatExponent = 0x7f800000

// littleEndian says the machine stores floats as the file does.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

func validate(h Header, rows []Row) error {
	if h.Dim <= 0 || h.Dim > MaxDim {
		return fmt.Errorf("dimension %d outside 1..%d", h.Dim, MaxDim)
	}
	for _, s := range []string{h.Embedder, h.EmbedderVersion} {
		if len(s) > MaxNameLen || !utf8.ValidString(s) {
			return fmt.Errorf("embedder name or version %q: want UTF-8 of at most %d bytes", s, MaxNameLen)
		}
	}
	seen := make(map[uint64]struct{}, len(rows))
	for i, r := range rows {
		if len(r.Vec) != h.Dim {
			return fmt.Errorf("row %d (key %d) has %d components, want %d", i, r.Key, len(r.Vec), h.Dim)
		}
		for _, x := range r.Vec {
			// All exponent bits set is NaN or ±Inf: one mask instead of two
			// float64 tests per component.
			if math.Float32bits(x)&floatExponent == floatExponent {
				return fmt.Errorf("row %d (key %d) contains %v", i, r.Key, x)
			}
		}
		if _, dup := seen[r.Key]; dup {
			return fmt.Errorf("key %d appears twice", r.Key)
		}
		seen[r.Key] = struct{}{}
	}
	return nil
}

func encodeHeader(h Header, count int) []byte {
	end := fixedHeader + 2 + len(h.Embedder) + 2 + len(h.EmbedderVersion)
	b := make([]byte, align8(end))
	le := binary.LittleEndian
	copy(b, Magic)
	le.PutUint32(b[8:], FormatVersion)
	le.PutUint32(b[12:], uint32(h.Dim))
	le.PutUint64(b[16:], uint64(count))
	le.PutUint32(b[24:], uint32(len(b)))
	pos := fixedHeader
	for _, s := range []string{h.Embedder, h.EmbedderVersion} {
		le.PutUint16(b[pos:], uint16(len(s)))
		pos += 2 + copy(b[pos+2:], s)
	}
	return b
}
