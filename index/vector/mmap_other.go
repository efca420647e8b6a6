//go:build !unix

package vector

import (
	"io"
	"os"
	"unsafe"
)

// mapFile reads the file into memory where mmap is not available. The
// buffer is allocated as uint64s so that the float32 view of the rows is
// aligned, as it is in a real mapping.
func mapFile(fd *os.File, size int) ([]byte, func() error, error) {
	words := make([]uint64, (size+7)/8)
	data := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(words))), len(words)*8)[:size]
	if _, err := io.ReadFull(fd, data); err != nil {
		return nil, nil, err
	}
	return data, func() error { return nil }, nil
}

// pageSize is the unit dropPages works in.
var pageSize = os.Getpagesize()

// dropPages is a no-op where the file was read into memory.
func dropPages([]byte) {}

// lockFile is a no-op where flock is not available.
func lockFile(fd *os.File, exclusive bool) (func(), error) { return func() {}, nil }

// identityOf names one version of a vector file for its codes file to
// match (codes.go); without an inode number, by size and time alone.
func identityOf(fi os.FileInfo) identity {
	return identity{size: fi.Size(), mtime: fi.ModTime().UnixNano()}
}
