//go:build unix

package vector

import (
	"os"
	"syscall"
)

// mapFile maps size bytes of fd read-only. MAP_SHARED with PROT_READ costs
// no copy and lets every process searching the same file share its pages;
// the file is only ever replaced by rename, never written in place, so the
// mapping cannot change or shrink under a reader.
func mapFile(fd *os.File, size int) ([]byte, func() error, error) {
	data, err := syscall.Mmap(int(fd.Fd()), 0, size, syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, nil, err
	}
	return data, func() error { return syscall.Munmap(data) }, nil
}
