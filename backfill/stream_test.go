package backfill

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestPlanStreamsALargeSession plans a Claude session several times the
// size of the heap the plan may use, while a sampler watches the heap: a
// plan that read the file whole (to condense, to hash it for the ledger,
// or to find its session id) would hold all of it at once.
func TestPlanStreamsALargeSession(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 24 MB file")
	}
	const fileBytes = 24 << 20
	const maxHeap = 16 << 20
	w := newWorld(t)
	path := filepath.Join(filepath.Dir(w.paths["claude"]), "large.jsonl")
	writeLargeClaudeSession(t, path, fileBytes)
	old := clock.Add(-time.Hour)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	var peak atomic.Uint64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapAlloc > peak.Load() {
				peak.Store(ms.HeapAlloc)
			}
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	st, _ := LoadState(w.dirs.StateDir)
	known, err := w.queue(t).Known()
	if err != nil {
		t.Fatal(err)
	}
	p, err := MakePlan(context.Background(), Options{Dirs: w.dirs, Agents: []string{"claude"}, Now: func() time.Time { return clock }}, st, known)
	close(stop)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	s := byPath(p)[path]
	if s.Status != StatusNew || s.Size < fileBytes || s.Condensed == 0 {
		t.Fatalf("large session: %+v", s)
	}
	t.Logf("peak heap %.1f MB planning a %d MB session", float64(peak.Load())/(1<<20), fileBytes>>20)
	if peak.Load() > maxHeap {
		t.Errorf("planning a %d MB session took the heap to %d MB (bound %d MB): it was not streamed", fileBytes>>20, peak.Load()>>20, maxHeap>>20)
	}
}

// writeLargeClaudeSession writes a Claude Code session of at least size
// bytes: turns of a prompt, a failing command and its fix.
func writeLargeClaudeSession(t *testing.T, path string, size int64) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	bw := bufio.NewWriterSize(f, 1<<20)
	pad := make([]byte, 2000)
	for i := range pad {
		pad[i] = 'a' + byte(i%26)
	}
	var n int64
	for i := 0; n < size; i++ {
		k, err := fmt.Fprintf(bw, `{"type":"user","sessionId":"large","cwd":"/home/dev/big","uuid":"u%d","message":{"role":"user","content":"turn %d: run the tests %s"}}`+"\n", i, i, pad)
		if err != nil {
			t.Fatal(err)
		}
		n += int64(k)
	}
	if err := bw.Flush(); err != nil {
		t.Fatal(err)
	}
}
