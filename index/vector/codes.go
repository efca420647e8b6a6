package vector

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"unsafe"

	"github.com/reflectkb/reflect/internal/fsutil"
)

// A vector file has a companion codes file (CodesPath): every row's vector
// quantized to int8, a quarter of the bytes, which Search scans instead of
// the floats and then rescores its best candidates exactly
// (searchCodes). It is derived from the vector file alone and written
// with it (Write, Writer, Patch; WriteCodes rebuilds it), and names the
// version of the vector file it was made from, so a codes file left
// behind by a crash, a rewrite it missed or an older build is not used.
//
// The format, all little-endian:
//
//	offset  size  field
//	0       8     magic "RFLVQ801"
//	8       4     format version (2)
//	12      4     dim, as the vector file's
//	16      8     count, as the vector file's
//	24      8     the vector file's size  } its identity when these
//	32      8     its modification time   } codes were made from it
//	40      8     its inode number (0 where there is none)
//	48      16    zero (so that the blocks start on a 64-byte boundary)
//	64            blocks: ⌈count/64⌉ × codesBlockBytes(dim) bytes
//
// A row's codes are the float32 scale d, the float32 error bound e, the
// float32 norm bound m and dim int8 codes c: the vector is d·c up to an
// error of norm at most e, and ‖d·c‖ ≤ m (quantize). A zero vector (a
// tombstone) is a zero row. Rows are stored in blocks of codesBlockRows
// (64): first the 64 rows' (d, e, m), 768 bytes, then dim columns of 64
// bytes, column j holding code j of rows 0..63 of the block. The last
// block is padded with zero rows, past count, which are never read as
// rows. Dimension-major blocks let a search read only the columns where
// the quantized query is not zero: the hash embedder's queries are
// sparse (a few words set 15 to 110 of 256 dimensions), so a scan reads
// 5 to 45% of the codes' cache lines (searchCodes). Format version 1
// (rows one after another) is stale: not used, and rewritten by the next
// reindex or doctor (WriteCodes).
const (
	CodesMagic         = "RFLVQ801"
	CodesFormatVersion = 2
	codesHeader        = 64
	codesRowFloats     = 3
	// codesBlockRows is the rows of a block: a column of it is one 64-byte
	// cache line, and the AVX2 kernel keeps the block's 64 sums in eight
	// registers (dot8_amd64.s).
	codesBlockRows = 64
)

// identity names one version of a vector file (identityOf).
type identity struct {
	size  int64
	mtime int64
	ino   uint64
}

// CodesPath returns where the codes of the vector file at path live:
// vectors.f32 → vectors.i8.
func CodesPath(path string) string {
	return strings.TrimSuffix(path, ".f32") + ".i8"
}

// codesBlockBytes is the bytes of one block of codesBlockRows rows: their
// scales and bounds, then their dim columns of codes.
func codesBlockBytes(dim int) int { return codesBlockRows * (4*codesRowFloats + dim) }

// codesBlocks is the blocks that hold count rows.
func codesBlocks(count int) int { return (count + codesBlockRows - 1) / codesBlockRows }

// codesSize is the size of the codes file of count rows of dim.
func codesSize(dim, count int) int64 {
	return codesHeader + int64(codesBlocks(count))*int64(codesBlockBytes(dim))
}

// codesBlockOff is where block b starts in the file.
func codesBlockOff(b, dim int) int64 { return codesHeader + int64(b)*int64(codesBlockBytes(dim)) }

// quantize writes v's int8 codes into c (len(c) == len(v)) and returns the
// scale d, with v ≈ d·c; e, an upper bound of ‖v − d·c‖; and m, an upper
// bound of ‖d·c‖. The largest component maps to ±127, so each component
// is off by at most d/2. The bounds are rounded up to float32, so they
// stay bounds. A zero vector gives zero codes and zeros.
func quantize(v []float32, c []int8) (d, e, m float32) {
	var top float64
	for _, x := range v {
		top = max(top, math.Abs(float64(x)))
	}
	if top == 0 {
		clear(c)
		return 0, 0, 0
	}
	d = float32(top / 127)
	s := 1 / float64(d)
	var ee, mm float64
	for j, x := range v {
		r := max(-127, min(127, math.Round(float64(x)*s)))
		c[j] = int8(r)
		y := float64(d) * r
		ee += (float64(x) - y) * (float64(x) - y)
		mm += y * y
	}
	return d, roundUp(math.Sqrt(ee)), roundUp(math.Sqrt(mm))
}

// roundUp converts x to the nearest float32 not below it.
func roundUp(x float64) float32 {
	f := float32(x)
	if float64(f) < x {
		f = math.Nextafter32(f, float32(math.Inf(1)))
	}
	return f
}

// encodeCodesRow writes the codes of v as row r of the block b
// (codesBlockBytes(len(v)) bytes), using c (len(v)) for scratch.
func encodeCodesRow(b []byte, r int, v []float32, c []int8) {
	d, e, m := quantize(v, c)
	le := binary.LittleEndian
	fl := b[r*4*codesRowFloats:]
	le.PutUint32(fl[0:], math.Float32bits(d))
	le.PutUint32(fl[4:], math.Float32bits(e))
	le.PutUint32(fl[8:], math.Float32bits(m))
	cols := b[codesBlockRows*4*codesRowFloats+r:]
	for j, x := range c {
		cols[j*codesBlockRows] = byte(x)
	}
}

// zeroCodesRow makes row r of the block b (of rows of dim) a zero row.
func zeroCodesRow(b []byte, r, dim int) {
	clear(b[r*4*codesRowFloats : (r+1)*4*codesRowFloats])
	cols := b[codesBlockRows*4*codesRowFloats+r:]
	for j := range dim {
		cols[j*codesBlockRows] = 0
	}
}

// codesRowIs says whether row r of the block b holds the codes of v (c,
// len(v), is scratch).
func codesRowIs(b []byte, r int, v []float32, c []int8) bool {
	d, e, m := quantize(v, c)
	le := binary.LittleEndian
	fl := b[r*4*codesRowFloats:]
	if le.Uint32(fl[0:]) != math.Float32bits(d) || le.Uint32(fl[4:]) != math.Float32bits(e) || le.Uint32(fl[8:]) != math.Float32bits(m) {
		return false
	}
	cols := b[codesBlockRows*4*codesRowFloats+r:]
	for j, x := range c {
		if cols[j*codesBlockRows] != byte(x) {
			return false
		}
	}
	return true
}

func encodeCodesHeader(dim, count int, id identity) []byte {
	b := make([]byte, codesHeader)
	le := binary.LittleEndian
	copy(b, CodesMagic)
	le.PutUint32(b[8:], CodesFormatVersion)
	le.PutUint32(b[12:], uint32(dim))
	le.PutUint64(b[16:], uint64(count))
	le.PutUint64(b[24:], uint64(id.size))
	le.PutUint64(b[32:], uint64(id.mtime))
	le.PutUint64(b[40:], id.ino)
	return b
}

// codes is an open codes file, mapped read-only.
type codes struct {
	data    []byte // the whole mapping
	dim     int
	count   int // rows; the blocks hold padding past them
	release func() error
}

// block returns block b, in place in the mapping.
func (c *codes) block(b int) []byte {
	off := codesBlockOff(b, c.dim)
	return c.data[off : off+int64(codesBlockBytes(c.dim))]
}

// openCodes maps the codes file at path and checks that it was made from
// the vector file version id, of count rows of dim. It returns an error
// saying what is wrong otherwise (fs.ErrNotExist when there is none).
func openCodes(path string, id identity, count, dim int) (*codes, error) {
	fd, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	defer fd.Close()
	st, err := fd.Stat()
	if err != nil {
		return nil, err
	}
	want := codesSize(dim, count)
	if !st.Mode().IsRegular() || st.Size() != want {
		return nil, fmt.Errorf("codes %s: %d bytes, want %d for %d rows of %d", path, st.Size(), want, count, dim)
	}
	hdr := make([]byte, codesHeader)
	if _, err := fd.ReadAt(hdr, 0); err != nil {
		return nil, fmt.Errorf("codes %s: %w", path, err)
	}
	if got := encodeCodesHeader(dim, count, id); string(hdr) != string(got) {
		return nil, fmt.Errorf("codes %s: made from another version of the vector file", path)
	}
	if count == 0 {
		return &codes{dim: dim, release: func() error { return nil }}, nil
	}
	data, release, err := mapFile(fd, int(want))
	if err != nil {
		return nil, fmt.Errorf("codes %s: %w", path, err)
	}
	if uintptr(unsafe.Pointer(&data[0]))%4 != 0 {
		_ = release()
		return nil, fmt.Errorf("codes %s: not aligned in memory", path)
	}
	return &codes{data: data, dim: dim, count: count, release: release}, nil
}

// codesWriter writes a codes file beside a vector file being written:
// rows to a temp file, then commit installs it by rename with the
// identity of the finished vector file. Errors are kept, not returned
// row by row: codes are an optimisation, and a vector file is installed
// whether or not its codes could be.
type codesWriter struct {
	path  string
	dim   int
	tmp   *os.File
	w     *bufio.Writer
	block []byte // the block being filled
	c     []int8 // scratch for quantize
	n     int
	err   error
}

func newCodesWriter(path string, dim int) *codesWriter {
	cw := &codesWriter{path: path, dim: dim, block: make([]byte, codesBlockBytes(dim)), c: make([]int8, dim)}
	tmp, err := os.CreateTemp(filepath.Dir(path), fsutil.TempPattern(path))
	if err != nil {
		cw.err = err
		return cw
	}
	cw.tmp, cw.w = tmp, bufio.NewWriterSize(tmp, 1<<18)
	_, cw.err = cw.w.Write(make([]byte, codesHeader)) // written by commit
	return cw
}

// add encodes v as the next row, and writes its block once full.
func (cw *codesWriter) add(v []float32) {
	if cw.err != nil {
		return
	}
	encodeCodesRow(cw.block, cw.n%codesBlockRows, v, cw.c)
	cw.n++
	if cw.n%codesBlockRows == 0 {
		_, cw.err = cw.w.Write(cw.block)
	}
}

// commit installs the codes for the vector file version id, or, when
// anything failed, removes both the temp file and any codes file at path
// (which belong to the vector file being replaced).
func (cw *codesWriter) commit(id identity) error {
	if cw.err == nil && cw.n%codesBlockRows != 0 { // the last block, padded
		for r := cw.n % codesBlockRows; r < codesBlockRows; r++ {
			zeroCodesRow(cw.block, r, cw.dim)
		}
		_, cw.err = cw.w.Write(cw.block)
	}
	if cw.err == nil {
		cw.err = cw.w.Flush()
	}
	if cw.err == nil {
		_, cw.err = cw.tmp.WriteAt(encodeCodesHeader(cw.dim, cw.n, id), 0)
	}
	if cw.err == nil {
		cw.err = cw.tmp.Sync()
	}
	if cw.err == nil {
		cw.err = cw.tmp.Close()
		if cw.err == nil {
			cw.err = os.Rename(cw.tmp.Name(), cw.path)
		}
		cw.tmp = nil
	}
	if cw.err != nil {
		cw.abort()
		_ = os.Remove(cw.path)
		return fmt.Errorf("write codes %s: %w", cw.path, cw.err)
	}
	return nil
}

// abort removes the temp file.
func (cw *codesWriter) abort() {
	if cw.tmp != nil {
		_ = cw.tmp.Close()
		_ = os.Remove(cw.tmp.Name())
		cw.tmp = nil
	}
	if cw.err == nil {
		cw.err = errors.New("aborted")
	}
}

// WriteCodes makes the codes file of the vector file at path from its
// rows, replacing any: what reindex and doctor run when the codes are
// missing or stale. The vector file is read under its shared lock, so a
// patch cannot change it meanwhile; a rewrite may replace it, and then
// these codes name the old version and are not used.
func WriteCodes(path string) error {
	f, err := Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	fd, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("write codes: %w", err)
	}
	defer fd.Close()
	unlock, err := lockFile(fd, false)
	if err != nil {
		return fmt.Errorf("write codes: %w", err)
	}
	defer unlock()
	st, err := fd.Stat()
	if err != nil {
		return fmt.Errorf("write codes: %w", err)
	}
	if identityOf(st) != f.id {
		return fmt.Errorf("write codes: %s changed while opening it", path)
	}
	cw := newCodesWriter(CodesPath(path), f.Dim())
	f.inBlocks(0, f.count, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			cw.add(f.Vector(i))
		}
	})
	return cw.commit(f.id)
}

// CodesProblem says why Search scans the floats instead of the codes: ""
// when the codes file matches this vector file, else what is wrong with
// it (missing, made from another version, damaged). It does not read the
// rows; CodesMismatch does.
func (f *File) CodesProblem() string {
	if f.q != nil {
		return ""
	}
	if f.qErr == nil {
		return "no codes file"
	}
	return f.qErr.Error()
}

// CodesMismatch counts the rows whose codes are not the quantization of
// their vector, reading both files (doctor pays it, searches do not); -1
// when there are no usable codes (CodesProblem).
func (f *File) CodesMismatch() int {
	if f.q == nil {
		return -1
	}
	bad := 0
	c := make([]int8, f.hdr.Dim)
	f.inBlocks(0, f.count, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			if !codesRowIs(f.q.block(i/codesBlockRows), i%codesBlockRows, f.Vector(i), c) {
				bad++
			}
		}
		f.q.drop(lo, hi)
	})
	return bad
}

// drop hands back the whole pages of the blocks of rows [lo, hi): up to
// the block of row hi, which the next rows need, or the end of the file
// after the last row.
func (c *codes) drop(lo, hi int) {
	end := len(c.data)
	if hi < c.count {
		end = int(codesBlockOff(hi/codesBlockRows, c.dim))
	}
	c.dropBytes(int(codesBlockOff(lo/codesBlockRows, c.dim)), end)
}

// dropBytes hands back the whole pages of bytes [start, end) of the file
// (end at most its size).
func (c *codes) dropBytes(start, end int) {
	start = (start + pageSize - 1) &^ (pageSize - 1)
	end &^= pageSize - 1
	if end > start {
		dropPages(c.data[start:end])
	}
}

// codesPatch follows Patch on the codes, under Patch's exclusive lock on
// the vector file: codes that matched the file before get the same patch
// (the rows of dead zeroed, rows appended), their rows synced together
// with the file's, then a header naming the patched file. The header is
// not synced: lost to a crash, it leaves codes that name the file before
// the patch, which are not used, so a patch costs no more waits on the
// disk than before codes existed. Codes that did not match, or a step
// that fails, are removed, and searches scan the floats until an update
// makes them anew (WriteCodes). A crash can leave rows appended to the
// codes without their header (a length Open rejects, or rows in the
// padding of the last block, past the count the header names), or rows
// zeroed in
// the codes that the file still holds: those are rows the caller is
// removing (a learning already gone from the catalog), so the codes then
// hide only what the removal would have hidden.
type codesPatch struct {
	path       string
	fd         *os.File
	dim, count int
}

// beginCodesPatch opens the codes of the vector file at path, which holds
// count rows of dim as version before; nil when there are none to patch.
func beginCodesPatch(path string, dim, count int, before identity) *codesPatch {
	cp := &codesPatch{path: CodesPath(path), dim: dim, count: count}
	fd, err := os.OpenFile(cp.path, os.O_RDWR|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			_ = os.Remove(cp.path)
		}
		return nil
	}
	cp.fd = fd
	size := codesSize(dim, count)
	st, err := fd.Stat()
	hdr := make([]byte, codesHeader)
	if err != nil || !st.Mode().IsRegular() || st.Size() != size {
		return cp.drop()
	}
	if _, err := fd.ReadAt(hdr, 0); err != nil || string(hdr) != string(encodeCodesHeader(dim, count, before)) {
		return cp.drop()
	}
	return cp
}

// drop removes the codes and ends the patch; it returns nil, so that a
// method of a nil *codesPatch does nothing.
func (cp *codesPatch) drop() *codesPatch {
	_ = cp.fd.Close()
	_ = os.Remove(cp.path)
	return nil
}

// write zeroes the rows of dead and appends rows, and starts syncing them;
// the returned function waits for the sync. Rows live in blocks, so each
// block they touch is read, changed and written back whole; the rows it
// holds besides are written as they were.
func (cp *codesPatch) write(dead []int, rows []Row) (wait func() bool) {
	if cp == nil {
		return func() bool { return false }
	}
	fail := func() bool { return false }
	bb := codesBlockBytes(cp.dim)
	buf := make([]byte, bb)
	ds := slices.Sorted(slices.Values(dead))
	for k := 0; k < len(ds); {
		b := ds[k] / codesBlockRows
		if _, err := cp.fd.ReadAt(buf, codesBlockOff(b, cp.dim)); err != nil {
			return fail
		}
		for ; k < len(ds) && ds[k]/codesBlockRows == b; k++ {
			zeroCodesRow(buf, ds[k]%codesBlockRows, cp.dim)
		}
		if _, err := cp.fd.WriteAt(buf, codesBlockOff(b, cp.dim)); err != nil {
			return fail
		}
	}
	if len(rows) > 0 {
		first := cp.count / codesBlockRows
		n := cp.count + len(rows)
		out := make([]byte, (codesBlocks(n)-first)*bb)
		if cp.count%codesBlockRows != 0 { // a partial last block: its rows stay
			if _, err := cp.fd.ReadAt(out[:bb], codesBlockOff(first, cp.dim)); err != nil {
				return fail
			}
		}
		c := make([]int8, cp.dim)
		for j, r := range rows {
			i := cp.count + j
			encodeCodesRow(out[(i/codesBlockRows-first)*bb:], i%codesBlockRows, r.Vec, c)
		}
		for i := n; i%codesBlockRows != 0; i++ { // padding, whatever a crash left there
			zeroCodesRow(out[(i/codesBlockRows-first)*bb:], i%codesBlockRows, cp.dim)
		}
		if _, err := cp.fd.WriteAt(out, codesBlockOff(first, cp.dim)); err != nil {
			return fail
		}
	}
	cp.count += len(rows)
	done := make(chan bool, 1)
	go func() { done <- cp.fd.Sync() == nil }()
	return func() bool { return <-done }
}

// finish writes the header naming the patched vector file, version after,
// when the rows were written and synced (ok), and otherwise removes the
// codes.
func (cp *codesPatch) finish(ok bool, after identity) {
	if cp == nil {
		return
	}
	if ok {
		_, err := cp.fd.WriteAt(encodeCodesHeader(cp.dim, cp.count, after), 0)
		ok = err == nil
	}
	if !ok {
		cp.drop()
		return
	}
	_ = cp.fd.Close()
}
