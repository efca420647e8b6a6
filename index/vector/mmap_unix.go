//go:build unix

package vector

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// mapFile maps size bytes of fd read-only. MAP_SHARED with PROT_READ costs
// no copy and lets every process searching the same file share its pages;
// the file is replaced by rename or patched by Patch, which only grows it
// and zeroes removed rows, so the mapping stays valid under a reader.
func mapFile(fd *os.File, size int) ([]byte, func() error, error) {
	data, err := syscall.Mmap(int(fd.Fd()), 0, size, syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, nil, err
	}
	return data, func() error { return syscall.Munmap(data) }, nil
}

// pageSize is the unit dropPages works in.
var pageSize = os.Getpagesize()

// dropPages removes b, whole pages of a read-only shared mapping, from the
// process's resident set; the file's pages stay in the page cache. It is
// advice: an error changes nothing a reader sees, so none is returned.
// x/sys/unix has it on every unix (syscall only on Linux).
func dropPages(b []byte) { _ = unix.Madvise(b, unix.MADV_DONTNEED) }

// lockFile takes a flock on fd (exclusive for Patch, shared for Open) and
// returns its release. A filesystem without flock answers ENOLCK or
// EOPNOTSUPP: the file is then used unlocked, as before appends existed.
func lockFile(fd *os.File, exclusive bool) (func(), error) {
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	for {
		err := syscall.Flock(int(fd.Fd()), how)
		switch err {
		case nil:
			return func() { _ = syscall.Flock(int(fd.Fd()), syscall.LOCK_UN) }, nil
		case syscall.EINTR:
			continue
		case syscall.ENOLCK, syscall.EOPNOTSUPP, syscall.EINVAL:
			return func() {}, nil
		}
		return nil, err
	}
}

// identityOf names one version of a vector file for its codes file to
// match (codes.go): size, modification time and inode. A rewrite is a new
// inode, a patch a new size or time, so codes written for another
// version do not match it.
func identityOf(fi os.FileInfo) identity {
	id := identity{size: fi.Size(), mtime: fi.ModTime().UnixNano()}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		id.ino = uint64(st.Ino)
	}
	return id
}
