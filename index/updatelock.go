package index

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/reflectkb/reflect/internal/fsutil"
)

// ErrBusy means another process held the index's update lock for longer
// than this update was willing to wait. The index can still be searched as
// it stands: that process's commit is all or nothing.
var ErrBusy = errors.New("another process is updating the index")

const (
	// updateLockWait bounds the wait of reindex, add and forget for another
	// process's update, which a full reindex holds for as long as it runs
	// (tens of seconds at 10,000 learnings: docs/benchmarks.md).
	updateLockWait = time.Minute
	// refreshLockWait bounds Refresh's wait: long enough for another
	// process's incremental update (docs/benchmarks.md), short
	// enough that a hook still answers within its deadline, from the index
	// as it stands, while a full reindex runs.
	refreshLockWait = 500 * time.Millisecond
)

// lockUpdates serialises updates across processes, from before their
// transaction until their vector export is written. SQLite already orders
// the transactions; this also orders the exports that follow the commits,
// which otherwise race: an export that read the table before another
// process's commit could rename its file after that process's newer one,
// and leave vectors.f32 behind the table until the next change. The lock
// is taken before the transaction, never while holding SQLite's write
// lock, so the two locks cannot deadlock. It returns the unlock function,
// or ErrBusy when wait (zero: updateLockWait) runs out. On a filesystem
// without flock the update goes ahead unlocked: only the order of two
// exports is at stake.
func (ix *Index) lockUpdates(ctx context.Context, wait time.Duration) (unlock func(), err error) {
	if wait <= 0 {
		wait = updateLockWait
	}
	var onBusy func()
	if ix.opts.onBusy != nil {
		onBusy = func() { ix.opts.onBusy(wait) }
	}
	unlock, err = fsutil.WaitLock(ctx, filepath.Join(filepath.Dir(ix.path), "update.lock"), wait, onBusy)
	switch {
	case err == nil:
		return unlock, nil
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case errors.Is(err, fsutil.ErrLockTimeout):
		return nil, fmt.Errorf("%w (index/update.lock held for over %s)", ErrBusy, wait)
	default:
		return func() {}, nil
	}
}

// Refresh runs an incremental Update only when documents/ changed since the
// last one (its directory stamp moved: a file was added, removed or replaced
// by an atomic write). It is cheap enough for every search: one stat and
// one query when nothing changed. While another process updates the index
// it gives up after refreshLockWait with ErrBusy, and the caller searches
// the index as it stands.
func (ix *Index) Refresh(ctx context.Context) (Stats, bool, error) {
	var stored string
	err := ix.db.QueryRowContext(ctx, `SELECT value FROM meta WHERE key='docs_stamp'`).Scan(&stored)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return Stats{}, false, err
	}
	if stored == ix.docsStamp() {
		return Stats{}, false, nil
	}
	if stored == "" && ix.opts.noRebuild {
		// Never indexed: a first full index is a rebuild, not a refresh.
		if files, _ := ix.store.Scan(); len(files) > 0 {
			return Stats{}, false, fmt.Errorf("the index was never built: %w", ErrNeedsRebuild)
		}
	}
	st, err := ix.Update(ctx, UpdateOptions{lockWait: refreshLockWait})
	if errors.Is(err, ErrBusy) {
		return st, false, err
	}
	return st, true, err
}

// Behind reports whether documents/ changed since the index was last
// brought up to date with it (what makes Refresh run an Update).
func (ix *Index) Behind(ctx context.Context) (bool, error) {
	var stored string
	err := ix.db.QueryRowContext(ctx, `SELECT value FROM meta WHERE key='docs_stamp'`).Scan(&stored)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return false, err
	}
	return stored != ix.docsStamp(), nil
}

// docsStamp identifies the state of documents/ cheaply: the directory's
// mtime changes whenever an entry is created, removed or renamed onto.
func (ix *Index) docsStamp() string {
	fi, err := os.Stat(ix.store.Dir)
	if err != nil {
		return "none"
	}
	return fmt.Sprint(fi.ModTime().UnixNano())
}
