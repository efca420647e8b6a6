package fsutil

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"
)

// A free lock is taken at once, without onBusy, with the lock file
// private; once released, it can be taken again.
func TestWaitLockAcquires(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "x.lock")
	unlock, err := WaitLock(context.Background(), path, time.Second, func() { t.Error("onBusy called for a free lock") })
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != FilePerm {
		t.Errorf("lock file: %v, mode %v; want %v", err, fi.Mode().Perm(), FilePerm)
	}
	unlock()
	unlock, err = WaitLock(context.Background(), path, time.Second, nil)
	if err != nil {
		t.Fatalf("after unlock: %v", err)
	}
	unlock()
}

// A second caller waits while the first holds the lock, calls onBusy once,
// and gets the lock when the first releases it, before its wait is out.
func TestWaitLockWaitsForHolder(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "x.lock")
	unlock, err := WaitLock(context.Background(), path, time.Second, nil)
	if err != nil {
		t.Fatal(err)
	}
	var busy atomic.Int32
	var released atomic.Bool
	got := make(chan error, 1)
	go func() {
		second, err := WaitLock(context.Background(), path, time.Minute, func() { busy.Add(1) })
		if err == nil {
			if !released.Load() {
				err = errors.New("took the lock while the first holder held it")
			}
			second()
		}
		got <- err
	}()
	// The second caller is waiting once it has called onBusy.
	for deadline := time.Now().Add(time.Minute); busy.Load() == 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the second caller never reported the lock busy")
		}
	}
	released.Store(true)
	unlock()
	if err := <-got; err != nil {
		t.Fatal(err)
	}
	if n := busy.Load(); n != 1 {
		t.Errorf("onBusy called %d times, want once", n)
	}
}

// A holder that outlasts the wait gives ErrLockTimeout, after onBusy, and
// the lock is still the holder's.
func TestWaitLockTimesOut(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "x.lock")
	unlock, err := WaitLock(context.Background(), path, time.Second, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	busy := 0
	const wait = 50 * time.Millisecond
	start := time.Now()
	second, err := WaitLock(context.Background(), path, wait, func() { busy++ })
	if !errors.Is(err, ErrLockTimeout) || second != nil {
		t.Fatalf("err = %v, want ErrLockTimeout and no unlock", err)
	}
	if elapsed := time.Since(start); elapsed < wait {
		t.Errorf("gave up after %s, before the wait of %s", elapsed, wait)
	}
	if busy != 1 {
		t.Errorf("onBusy called %d times, want once", busy)
	}
}

// Cancelling ctx ends the wait with ctx's error (not ErrLockTimeout), and
// a ctx already done takes nothing, not even a free lock.
func TestWaitLockCancels(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "x.lock")
	unlock, err := WaitLock(context.Background(), path, time.Second, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	second, err := WaitLock(ctx, path, time.Minute, cancel)
	if !errors.Is(err, context.Canceled) || errors.Is(err, ErrLockTimeout) || second != nil {
		t.Fatalf("cancelled wait: err = %v, want context.Canceled", err)
	}
	unlock()

	// The lock is free now; a done ctx still takes nothing.
	second, err = WaitLock(ctx, path, time.Minute, func() { t.Error("onBusy called for a done ctx") })
	if !errors.Is(err, context.Canceled) || second != nil {
		t.Fatalf("done ctx: err = %v, want context.Canceled", err)
	}
	third, err := WaitLock(context.Background(), path, 0, nil)
	if err != nil {
		t.Fatalf("the lock is held after a done ctx's call: %v", err)
	}
	third()
}

// A ctx whose deadline comes before the wait's ends it with the ctx's
// DeadlineExceeded, not ErrLockTimeout: the caller's deadline, not the
// lock's, ran out.
func TestWaitLockCallerDeadline(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "x.lock")
	unlock, err := WaitLock(context.Background(), path, time.Second, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := WaitLock(ctx, path, time.Minute, nil); !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrLockTimeout) {
		t.Fatalf("err = %v, want the ctx's DeadlineExceeded", err)
	}
}

// A lock file that cannot be created is an error of its own, neither a
// timeout nor a cancellation, so the caller can choose to go ahead.
func TestWaitLockOtherError(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "missing", "x.lock")
	unlock, err := WaitLock(context.Background(), path, time.Second, nil)
	if err == nil || unlock != nil || errors.Is(err, ErrLockTimeout) || errors.Is(err, context.Canceled) {
		t.Fatalf("unlock %v, err = %v; want the file's error", unlock != nil, err)
	}
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("err = %v, want it to wrap ErrNotExist", err)
	}
}
