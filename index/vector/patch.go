package vector

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"slices"
	"syscall"
	"unsafe"
)

// Patch changes the vector file at path in place, for an index that
// removed a few rows and added some: it zeroes the vectors of the rows at
// the indexes in dead (tombstones: a zero vector scores 0 against any
// query, below every hit, so a removed row is never found again) and
// appends rows after the last one. The file must hold h's header and count
// rows, and rows must be sorted, unique and above its last key, so the
// file stays sorted by key; the count then covers the tombstones too. The
// zeroes and the rows are written and synced, then the header's count,
// synced again, all under an exclusive lock on the file, which Open's
// shared lock excludes: a reader opening the file sees the rows before or
// after the patch, never the rows without the count (a length Open would
// reject). A reader that opened the file before keeps its mapping and
// count, since the file only grows; a search it runs meanwhile may score
// a row being zeroed as anything between its old score and 0, which is
// harmless: the row's learning has left the catalog. A crash between the
// writes leaves rows past the count, which Open reports as trailing
// garbage, the same remedy as any damage: the index rewrites the file on
// its next update. A file that does not match h and count gives an error
// wrapping ErrInvalid, and is left as it was.
func Patch(path string, h Header, count int, dead []int, rows []Row) error {
	if err := validate(h, rows); err != nil {
		return fmt.Errorf("patch vectors %s: %w", path, err)
	}
	fd, err := os.OpenFile(path, os.O_RDWR|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("patch vectors: %w", err)
	}
	defer fd.Close()
	unlock, err := lockFile(fd, true)
	if err != nil {
		return fmt.Errorf("patch vectors %s: %w", path, err)
	}
	defer unlock()
	st, err := fd.Stat()
	if err != nil {
		return fmt.Errorf("patch vectors: %w", err)
	}
	hdr := encodeHeader(h, count)
	rowBytes := int64(8 + 4*h.Dim)
	size := int64(len(hdr)) + int64(count)*rowBytes
	got := make([]byte, len(hdr))
	if !st.Mode().IsRegular() || st.Size() != size {
		return invalid(path, "%d bytes, want %d for %d rows", st.Size(), size, count)
	}
	if _, err := fd.ReadAt(got, 0); err != nil || !bytes.Equal(got, hdr) {
		return invalid(path, "header changed before the patch")
	}
	if count > 0 && len(rows) > 0 {
		var k [8]byte
		if _, err := fd.ReadAt(k[:], size-rowBytes); err != nil {
			return fmt.Errorf("patch vectors: %w", err)
		}
		if binary.LittleEndian.Uint64(k[:]) >= rows[0].Key {
			return invalid(path, "rows to append are not above its last key")
		}
	}
	for i := 1; i < len(rows); i++ {
		if rows[i].Key <= rows[i-1].Key {
			return fmt.Errorf("patch vectors %s: rows not sorted by key", path)
		}
	}
	for _, i := range dead {
		if i < 0 || i >= count {
			return fmt.Errorf("patch vectors %s: no row %d of %d", path, i, count)
		}
	}
	// The codes are patched alongside (codesPatch); failing, they are
	// dropped, which costs searches speed, not results.
	codes := beginCodesPatch(path, h.Dim, count, identityOf(st))
	codesSynced := codes.write(dead, rows)
	finished := false
	defer func() {
		if !finished { // a failed patch leaves the codes stale: drop them
			codesSynced()
			codes.finish(false, identity{})
		}
	}()
	zero := make([]byte, 4*h.Dim)
	for _, i := range dead {
		if _, err := fd.WriteAt(zero, int64(len(hdr))+int64(i)*rowBytes+8); err != nil {
			return fmt.Errorf("patch vectors %s: %w", path, err)
		}
	}
	if len(rows) > 0 {
		buf := make([]byte, 0, int(rowBytes)*len(rows))
		for _, r := range rows {
			buf = binary.LittleEndian.AppendUint64(buf, r.Key)
			if littleEndian {
				buf = append(buf, unsafe.Slice((*byte)(unsafe.Pointer(&r.Vec[0])), 4*len(r.Vec))...)
			} else {
				for _, x := range r.Vec {
					buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(x))
				}
			}
		}
		if _, err := fd.WriteAt(buf, size); err != nil {
			_ = fd.Truncate(size)
			return fmt.Errorf("patch vectors %s: %w", path, err)
		}
	}
	if err := fd.Sync(); err != nil {
		_ = fd.Truncate(size)
		return fmt.Errorf("patch vectors %s: %w", path, err)
	}
	if len(rows) > 0 {
		var c [8]byte
		binary.LittleEndian.PutUint64(c[:], uint64(count+len(rows)))
		if _, err := fd.WriteAt(c[:], 16); err != nil {
			return fmt.Errorf("patch vectors %s: %w", path, err)
		}
		if err := fd.Sync(); err != nil {
			return fmt.Errorf("patch vectors %s: %w", path, err)
		}
	}
	finished = true
	now, err := fd.Stat()
	codes.finish(codesSynced() && err == nil, identityOf(now))
	return nil
}

// Find returns the row holding key, in a file sorted by key.
func (f *File) Find(key uint64) (int, bool) { return f.find(key) }

// Tombstones counts the rows whose vector is all zeros: the rows Patch
// removed. Like NonFinite it reads every float; doctor pays it.
func (f *File) Tombstones() int {
	n := 0
	f.inBlocks(0, f.count, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			if slices.IndexFunc(f.Vector(i), func(x float32) bool { return x != 0 }) < 0 {
				n++
			}
		}
	})
	return n
}
