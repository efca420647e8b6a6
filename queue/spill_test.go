package queue

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gofrs/flock"

	"github.com/reflectkb/reflect/internal/testfs"
)

// helperHold takes queue.lock for 5 ms at a time, with 1 ms gaps, until
// stop appears: a drainer rewriting a long queue, as seen by the hooks.
func helperHold(t *testing.T, q *Queue, stop string) {
	if err := os.MkdirAll(q.dir, 0o700); err != nil {
		t.Fatal(err)
	}
	fl := flock.New(q.lockPath)
	for !stopped(stop) {
		if err := fl.Lock(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(5 * time.Millisecond)
		if err := fl.Unlock(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestEnqueueNeverDropsUnderLoad runs 8 processes enqueueing 200 sessions
// each against a queue that a 9th process keeps locked most of the time,
// with a LockWait short enough that many enqueues time out. On main those
// captures were dropped ("queue.lock still held"); now every one is queued
// (spilled and folded in later), exactly once and in each process's order.
func TestEnqueueNeverDropsUnderLoad(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("spawns 9 processes")
	}
	const workers, each = 8, 200
	q := newTestQueue(t)
	transDir := t.TempDir()
	stop := filepath.Join(t.TempDir(), "stop")
	start := time.Now().Add(time.Second).UnixNano()
	holder := startHelper(t, "hold", q.dir, helperStop+"="+stop)
	var children []*helperChild
	for w := range workers {
		children = append(children, startHelper(t, "append", q.dir,
			helperTransDir+"="+transDir,
			helperWorker+"="+strconv.Itoa(w),
			helperCount+"="+strconv.Itoa(each),
			helperStart+"="+strconv.FormatInt(start, 10),
			helperLockWait+"=1ms",
		))
	}
	for _, c := range children {
		c.wait(t)
	}
	if err := os.WriteFile(stop, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	holder.wait(t)
	if t.Failed() {
		return
	}
	spilled := 0
	for _, c := range children {
		spilled += c.count("spilled")
	}
	t.Logf("%d of %d enqueues found the queue locked and spilled", spilled, workers*each)
	if spilled == 0 {
		t.Fatal("no enqueue spilled: the test did not exercise a busy queue")
	}
	// The drainer's Claim folds what no later enqueue did.
	q.lockWait = time.Minute
	recs, err := q.Claim(time.Now(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != workers*each {
		t.Errorf("Claim returned %d records, want %d", len(recs), workers*each)
	}
	if left := q.spilled(); len(left) != 0 {
		t.Errorf("%d spill files left after Claim", len(left))
	}
	if others := checkAppended(t, q, transDir, workers, each); len(others) != 0 {
		t.Errorf("%d records no appender wrote", len(others))
	}
}

// A spill file that does not hold a record is set aside in malformed.jsonl
// instead of blocking the fold or being dropped silently.
func TestFoldSetsAsideBadSpill(t *testing.T) {
	t.Parallel()
	q := newTestQueue(t)
	dir := filepath.Join(q.dir, spillDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "0000000000000000001.s.q-x.json"), []byte("not json\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tr := writeTranscript(t, t.TempDir(), "t.jsonl", "x\n")
	mustEnqueue(t, q, testRecord(tr, "s1"))
	if recs, _ := mustList(t, q); len(recs) != 1 {
		t.Errorf("%d records, want 1", len(recs))
	}
	mal, err := q.ListMalformed()
	if err != nil || len(mal) != 1 || mal[0].Text != "not json" {
		t.Errorf("ListMalformed = %+v, %v; want the spill file's text", mal, err)
	}
	if left := q.spilled(); len(left) != 0 {
		t.Errorf("spill files left: %v", left)
	}
}

// A FIFO planted at the queue or the ledger is refused at once: on main
// Enqueue and Depth (the status line) blocked opening it forever.
func TestQueueFilesRefuseFIFOs(t *testing.T) {
	t.Parallel()
	for _, name := range []string{pendingFile, processedFile} {
		t.Run(name, func(t *testing.T) {
			q := newTestQueue(t)
			if err := os.MkdirAll(q.dir, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := testfs.Mkfifo(filepath.Join(q.dir, name)); err != nil {
				t.Skip("mkfifo:", err)
			}
			tr := writeTranscript(t, t.TempDir(), "t.jsonl", "x\n")
			done := make(chan error, 1)
			go func() {
				_, _, err := q.Enqueue(testRecord(tr, "s1"))
				_ = q.Depth()
				done <- err
			}()
			select {
			case err := <-done:
				if err == nil || !strings.Contains(err.Error(), "not a regular file") {
					t.Errorf("Enqueue with a FIFO at %s: err = %v, want a refusal", name, err)
				}
			case <-time.After(time.Minute):
				t.Fatalf("Enqueue or Depth hung on a FIFO at %s", name)
			}
		})
	}
}

// TestSettledListingLeavesTheLastListingsNames: while hooks keep spilling
// past the bound, the names only the last listing saw are left for the next
// fold, since a hook's older spill renamed in during that listing may be
// missing from it; with the bound not reached, every name is kept.
func TestSettledListingLeavesTheLastListingsNames(t *testing.T) {
	// Listing k sees spills 1..k of a busy hook, except that the last one
	// misses spill 3's older sibling, "3a", renamed in while it ran.
	listings := 0
	busy := func() []string {
		listings++
		var out []string
		for i := 1; i <= listings; i++ {
			out = append(out, fmt.Sprintf("%d", i))
		}
		if listings == 4 {
			out = append(out, "4b") // 4a, older, was being renamed in
		}
		return out
	}
	got := settledListing(busy, 4)
	if want := []string{"1", "2", "3"}; !slices.Equal(got, want) {
		t.Errorf("busy: got %v, want %v (what listing 4 added is left for the next fold)", got, want)
	}
	if listings != 4 {
		t.Errorf("busy: %d listings, want the bound, 4", listings)
	}
	quiet := func() []string { return []string{"2", "1"} }
	if got := settledListing(quiet, 4); !slices.Equal(got, []string{"1", "2"}) {
		t.Errorf("quiet: got %v, want [1 2]", got)
	}
	if got := settledListing(func() []string { return nil }, 4); len(got) != 0 {
		t.Errorf("empty: got %v", got)
	}
}

// A process's spills are stamped in the order it made them even when the
// wall clock steps back between them, so folding in name order keeps it.
func TestSpillStampNeverGoesBack(t *testing.T) {
	t0 := time.Now()
	a := spillStamp(t0)
	b := spillStamp(t0.Add(-time.Second)) // the clock stepped back
	c := spillStamp(t0)
	if !(a < b && b < c) {
		t.Errorf("stamps %d, %d, %d: want strictly increasing", a, b, c)
	}
	if d, ahead := spillStamp(t0.Add(time.Second)), t0.Add(time.Second).UnixNano(); d < ahead {
		t.Errorf("a clock ahead of the last stamp gives %d, want at least the clock's %d", d, ahead)
	}
}
