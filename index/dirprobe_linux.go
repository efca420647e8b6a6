package index

import (
	"encoding/binary"
	"os"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// listDigest reads dir's entries with getdents64, which carries each
// entry's inode number, so a file replaced by a rename (a new inode under
// the same name) changes the digest while no entry is ever stat'ed. It
// returns the order-independent sum of entryHash over the entries not in
// mine, their count, and the inode of each entry in mine that exists.
func listDigest(dir string, mine map[string]bool) (sum uint64, count int, inos map[string]uint64, err error) {
	f, err := os.Open(dir)
	if err != nil {
		return 0, 0, nil, err
	}
	defer f.Close()
	inos = map[string]uint64{}
	buf := make([]byte, 64<<10)
	fd := int(f.Fd())
	for {
		n, err := unix.Getdents(fd, buf)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return 0, 0, nil, err
		}
		if n <= 0 {
			return sum, count, inos, nil
		}
		for b := buf[:n]; len(b) >= 19; {
			// struct linux_dirent64: ino u64, off s64, reclen u16, type u8, name
			ino := binary.NativeEndian.Uint64(b[0:])
			reclen := int(binary.NativeEndian.Uint16(b[16:]))
			if reclen < 19 || reclen > len(b) {
				return 0, 0, nil, errNoInodes
			}
			name := b[19:reclen]
			for i, c := range name {
				if c == 0 {
					name = name[:i]
					break
				}
			}
			b = b[reclen:]
			switch {
			case string(name) == "." || string(name) == "..":
			case mine != nil && mine[string(name)]: // no allocation for the lookup
				inos[string(name)] = ino
			default:
				sum += entryHash(name, ino)
				count++
			}
		}
	}
}

var tick = sync.OnceValue(func() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGetres(unix.CLOCK_REALTIME_COARSE, &ts); err != nil || ts.Nano() <= 0 {
		return 10 * time.Millisecond
	}
	return time.Duration(ts.Nano())
})

// stampTick is how far behind the time of a change the directory's mtime
// may be: the filesystem stamps with the kernel's coarse clock, one tick
// (1 to 10 ms) behind the real one at most; a millisecond more for safety.
func stampTick() time.Duration { return tick() + time.Millisecond }

// inodeOf is fi's inode number (0 when unknown).
func inodeOf(fi os.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Ino
	}
	return 0
}
