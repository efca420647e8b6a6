package index

import (
	"encoding/binary"
	"errors"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// dirWatch is an inotify watch on documents/, made before a targeted
// update's probe: the kernel queues an event for every entry created,
// removed, renamed or written there from then on, so the update can show
// that nothing but its own files changed without listing the directory
// (dirprobe.go, part 3). At 100,000 learnings that listing was over half
// of an add.
type dirWatch struct {
	fd  int
	dir string
}

// watchMask is every change to the directory's entries (created,
// removed, renamed) and to the directory itself: what the listing it
// replaces sees (names and inode numbers). A file written in place is
// not among them, as no listing or directory stamp sees it (dirprobe.go).
// Nor may it be: a watch on events of the entries themselves (modify,
// attrib, close-write) makes the kernel flag every cached entry of the
// directory when it is added, a walk of 100,000 dentries that was a fifth
// of a forget at 100,000 learnings (docs/benchmarks.md).
const watchMask = unix.IN_CREATE | unix.IN_DELETE | unix.IN_MOVED_FROM | unix.IN_MOVED_TO |
	unix.IN_DELETE_SELF | unix.IN_MOVE_SELF | unix.IN_ONLYDIR

// watchDir starts watching dir. It fails where inotify is unavailable
// (a container without it, the per-user instance limit reached); the
// caller then proves by listing instead.
func watchDir(dir string) (*dirWatch, error) {
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		return nil, err
	}
	if _, err := unix.InotifyAddWatch(fd, dir, watchMask); err != nil {
		unix.Close(fd)
		return nil, err
	}
	return &dirWatch{fd: fd, dir: dir}, nil
}

// close releases the watch; nil is fine.
func (w *dirWatch) close() {
	if w != nil && w.fd >= 0 {
		unix.Close(w.fd)
		w.fd = -1
	}
}

// changed returns the names of the entries changed since the watch began,
// or ok=false when it cannot tell them all (the queue overflowed, the
// directory itself was moved or removed, a subdirectory changed).
//
// An entry is changed under the directory's inode lock, and the kernel
// queues its event before it lets the lock go; reading one entry of the
// directory takes that lock (shared) first. So after barrier, every change
// whose effect a stat of the directory could already see has its event in
// the queue.
func (w *dirWatch) changed() (names []string, ok bool) {
	if w == nil || w.fd < 0 || !barrier(w.dir) {
		return nil, false
	}
	buf := make([]byte, 16<<10)
	for {
		n, err := unix.Read(w.fd, buf)
		if err == syscall.EINTR {
			continue
		}
		if errors.Is(err, unix.EAGAIN) {
			return names, true
		}
		if err != nil || n <= 0 {
			return nil, false
		}
		for b := buf[:n]; len(b) >= unix.SizeofInotifyEvent; {
			// struct inotify_event: wd s32, mask u32, cookie u32, len u32, name
			mask := binary.NativeEndian.Uint32(b[4:])
			size := int(binary.NativeEndian.Uint32(b[12:]))
			if unix.SizeofInotifyEvent+size > len(b) {
				return nil, false
			}
			name := b[unix.SizeofInotifyEvent : unix.SizeofInotifyEvent+size]
			b = b[unix.SizeofInotifyEvent+size:]
			if mask&(unix.IN_Q_OVERFLOW|unix.IN_IGNORED|unix.IN_DELETE_SELF|unix.IN_MOVE_SELF|unix.IN_UNMOUNT|unix.IN_ISDIR) != 0 {
				return nil, false
			}
			for i, c := range name {
				if c == 0 {
					name = name[:i]
					break
				}
			}
			if len(name) == 0 {
				return nil, false
			}
			names = append(names, string(name))
		}
	}
}

// barrier reads one directory entry of dir, which waits for any change in
// progress there to finish, its event queued (see changed).
func barrier(dir string) bool {
	f, err := os.Open(dir)
	if err != nil {
		return false
	}
	defer f.Close()
	var buf [512]byte
	for {
		_, err := unix.Getdents(int(f.Fd()), buf[:])
		if err != syscall.EINTR {
			return err == nil
		}
	}
}
