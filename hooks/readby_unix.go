//go:build unix

package hooks

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// readFileBy reads f to EOF, or to limit bytes (limit < 0: discard
// everything), and gives up at deadline. The descriptor is switched to
// non-blocking for the read and polled, because stdin from an agent is a
// blocking pipe that Go's poller does not manage (no SetReadDeadline), and
// a blocked read(2) could not be abandoned.
func readFileBy(f *os.File, deadline time.Time, limit int) ([]byte, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return io.ReadAll(io.LimitReader(f, int64(max(limit, 0))))
	}
	var data []byte
	var rerr error
	cerr := rc.Control(func(fd uintptr) {
		if err := unix.SetNonblock(int(fd), true); err != nil {
			rerr = err
			return
		}
		defer unix.SetNonblock(int(fd), false)
		buf := make([]byte, 64<<10)
		for {
			n, err := unix.Read(int(fd), buf)
			switch {
			case n > 0:
				if limit >= 0 {
					data = append(data, buf[:n]...)
					if len(data) >= limit {
						return
					}
				}
			case err == nil: // n == 0: EOF
				return
			case errors.Is(err, unix.EINTR):
			case errors.Is(err, unix.EAGAIN):
				wait := time.Until(deadline)
				if wait <= 0 {
					rerr = errReadDeadline
					return
				}
				fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
				_, _ = unix.Poll(fds, int(wait.Milliseconds())+1)
			default:
				rerr = fmt.Errorf("read payload: %w", err)
				return
			}
		}
	})
	if cerr != nil {
		return nil, fmt.Errorf("read payload: %w", cerr)
	}
	return data, rerr
}
