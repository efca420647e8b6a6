package index

import (
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/gofrs/flock"
)

// holdUpdateLock takes index/update.lock as another process's update would
// (flock conflicts between open files even within one process) and returns
// its release.
func holdUpdateLock(t *testing.T, k kb) func() {
	t.Helper()
	fl := flock.New(filepath.Join(k.idx, "update.lock"))
	if ok, err := fl.TryLock(); err != nil || !ok {
		t.Fatalf("take update.lock: ok=%v err=%v", ok, err)
	}
	// Once: a test may release from another goroutine (time.AfterFunc)
	// while Cleanup releases too.
	release := sync.OnceFunc(func() { _ = fl.Unlock() })
	t.Cleanup(release)
	return release
}

// busyWithNewDoc indexes lrn-existing ("ansible"), then holds the update
// lock as another process would while lrn-new ("vagrant") appears on disk.
// It returns the open index and the lock's release.
func busyWithNewDoc(t *testing.T, opts ...OpenOption) (*Index, func()) {
	t.Helper()
	k := newKB(t)
	k.write(t, simple("lrn-existing", "existing ansible"))
	ix, err := Open(context.Background(), k.docs, k.idx, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	release := holdUpdateLock(t, k)
	k.write(t, simple("lrn-new", "new vagrant"))
	return ix, release
}

// While another process updates the index, Refresh gives up with ErrBusy
// and the index answers as it stands; once that update ends, the next
// Refresh picks up the new document.
func TestRefreshWhileAnotherUpdates(t *testing.T) {
	ctx := context.Background()
	ix, release := busyWithNewDoc(t)

	start := time.Now()
	_, ran, err := ix.Refresh(ctx)
	if !errors.Is(err, ErrBusy) || ran {
		t.Fatalf("Refresh while update.lock is held: ran=%v err=%v; want ErrBusy", ran, err)
	}
	if waited := time.Since(start); waited < refreshLockWait {
		t.Errorf("Refresh gave up after %s, before its %s wait", waited, refreshLockWait)
	}
	if got := ids(search(t, ix, Query{Text: "ansible"})); !reflect.DeepEqual(got, []string{"lrn-existing"}) {
		t.Errorf("search while busy = %v, want [lrn-existing]", got)
	}
	if got := ids(search(t, ix, Query{Text: "vagrant"})); len(got) != 0 {
		t.Errorf("search while busy found %v: the new document was indexed without the lock", got)
	}

	release()
	if _, ran, err := ix.Refresh(ctx); err != nil || !ran {
		t.Fatalf("Refresh after the lock is released: ran=%v err=%v", ran, err)
	}
	if got := ids(search(t, ix, Query{Text: "vagrant"})); !reflect.DeepEqual(got, []string{"lrn-new"}) {
		t.Errorf("search after refresh = %v, want [lrn-new]", got)
	}
}

// An explicit update (reindex, add, forget) waits for another process's
// update to end instead of failing.
func TestUpdateWaitsForAnother(t *testing.T) {
	ctx := context.Background()
	ix, release := busyWithNewDoc(t)

	const held = 300 * time.Millisecond
	go func() {
		time.Sleep(held)
		release()
	}()
	start := time.Now()
	st, err := ix.Update(ctx, UpdateOptions{})
	if err != nil {
		t.Fatalf("Update: %v", err)
	}
	if waited := time.Since(start); waited < held {
		t.Errorf("Update finished after %s, while the lock was held for %s", waited, held)
	}
	if st.Added != 1 {
		t.Errorf("Update added %d, want 1", st.Added)
	}
}

// When an update's wait (here the Index's BusyWait, as hooks set it) runs
// out it fails with ErrBusy and changes nothing.
func TestUpdateBusyAfterWait(t *testing.T) {
	ctx := context.Background()
	ix, _ := busyWithNewDoc(t, BusyWait(50*time.Millisecond))

	start := time.Now()
	_, err := ix.Update(ctx, UpdateOptions{})
	if !errors.Is(err, ErrBusy) {
		t.Fatalf("Update with the lock held past its wait: %v, want ErrBusy", err)
	}
	if waited := time.Since(start); waited >= updateLockWait/6 {
		t.Errorf("Update waited %s: BusyWait (50ms) did not replace the default %s", waited, updateLockWait)
	}
	if got := ids(search(t, ix, Query{Text: "vagrant"})); len(got) != 0 {
		t.Errorf("a busy update indexed %v", got)
	}
}
