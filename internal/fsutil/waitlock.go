package fsutil

import (
	"context"
	"errors"
	"time"

	"github.com/gofrs/flock"
)

// ErrLockTimeout is returned by WaitLock when another holder kept the lock
// for longer than the wait.
var ErrLockTimeout = errors.New("lock held by another process")

// lockPoll is how often WaitLock tries again while another process holds
// the lock: flock has no wait with a timeout, and the holders hold it for
// milliseconds (a hook's dedupe update, one draft's write) to seconds (an
// index update).
const lockPoll = 5 * time.Millisecond

// WaitLock takes an exclusive flock on the lock file path (created with
// FilePerm), waiting up to wait while another process holds it, and
// returns the function that releases it. The kernel releases it when the
// process dies, so a crashed holder never leaves it taken.
//
// A ctx already done takes nothing and returns ctx.Err(). The lock is
// tried at once; when another holds it, onBusy (if set) is called once,
// so a caller can say what it waits for, and the lock is polled until it
// is free, wait runs out (ErrLockTimeout), or ctx ends (ctx.Err()). Any
// other error (a file system without flock, a lock file that cannot be
// created) is returned as it is: whether to go ahead unlocked is the
// caller's to decide.
func WaitLock(ctx context.Context, path string, wait time.Duration, onBusy func()) (unlock func(), err error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	fl := flock.New(path, flock.SetPermissions(FilePerm))
	ok, err := fl.TryLock()
	if err == nil && !ok {
		if onBusy != nil {
			onBusy()
		}
		wctx, cancel := context.WithTimeout(ctx, wait)
		ok, err = fl.TryLockContext(wctx, lockPoll)
		cancel()
	}
	switch {
	case ok:
		return func() { _ = fl.Unlock() }, nil
	case ctx.Err() != nil:
		_ = fl.Close()
		return nil, ctx.Err()
	case errors.Is(err, context.DeadlineExceeded):
		_ = fl.Close()
		return nil, ErrLockTimeout
	default:
		_ = fl.Close()
		return nil, err
	}
}
