package index

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/reflectkb/reflect/store"
)

const (
	helperEnv     = "REFLECT_INDEX_TEST_HELPER" // "put" or "search"
	helperDocs    = "REFLECT_INDEX_TEST_DOCS"
	helperIdx     = "REFLECT_INDEX_TEST_IDX"
	helperWorker  = "REFLECT_INDEX_TEST_WORKER"
	helperStop    = "REFLECT_INDEX_TEST_STOP"
	helperMarker  = "REFLECT_INDEX_TEST_MARKER" // "put-slow": created when its export stalls
	putsPerWorker = 25
	putWorkers    = 4
	// helperDim is the hash embedder's dimension in every process, so each
	// Put also embeds and exports vectors.f32.
	helperDim = 32
)

func helperTitle(worker, i int) string {
	return fmt.Sprintf("Concurrent learning %d from worker %d", i, worker)
}

// TestHelperProcess is not a test: TestConcurrentProcesses runs the test
// binary again with this test selected to get real reflect-like processes.
func TestHelperProcess(t *testing.T) {
	mode := os.Getenv(helperEnv)
	if mode == "" {
		t.Skip("helper process for TestConcurrentProcesses")
	}
	ctx := context.Background()
	ix, err := Open(ctx, os.Getenv(helperDocs), os.Getenv(helperIdx), WithEmbedder(hashEmbedder(t, helperDim)))
	if err != nil {
		fmt.Fprintf(os.Stderr, "helper %s: Open: %v\n", mode, err)
		os.Exit(2)
	}
	defer ix.Close()
	switch mode {
	case "put-slow":
		// One Put whose vector export stalls between reading the table
		// and writing the file, long enough for another process to commit
		// and export meanwhile.
		beforeVectorWrite = func() {
			writeRaw(t, os.Getenv(helperMarker), "")
			time.Sleep(1500 * time.Millisecond)
		}
		title := "Slow export learning"
		l := &store.Learning{ID: store.NewID(title, ""), Title: title, Confidence: "high", Created: t0,
			Body: "## Problem\nthe slow exporter commits first.\n"}
		if _, err := put(ctx, ix, l, nil, t0); err != nil {
			fmt.Fprintf(os.Stderr, "helper put-slow: %v\n", err)
			os.Exit(3)
		}
	case "put":
		worker, _ := strconv.Atoi(os.Getenv(helperWorker))
		lost := 0
		for i := 0; i < putsPerWorker; i++ {
			title := helperTitle(worker, i)
			l := &store.Learning{
				ID:         store.NewID(title, ""),
				Title:      title,
				Confidence: "high",
				Created:    t0,
				Body:       fmt.Sprintf("## Problem\nconcurrency worker%d item%d shares the catalog.\n", worker, i),
			}
			res, err := put(ctx, ix, l, nil, t0)
			if err != nil {
				fmt.Fprintf(os.Stderr, "helper put %d/%d: %v\n", worker, i, err)
				os.Exit(3)
			}
			// What this process just put is searchable at once.
			r, err := ix.Search(ctx, Query{Text: fmt.Sprintf("worker%d item%d", worker, i), Limit: 3})
			if err != nil {
				fmt.Fprintf(os.Stderr, "helper put %d/%d: search: %v\n", worker, i, err)
				os.Exit(3)
			}
			if len(r) == 0 || r[0].ID != res.ID {
				// Keep going: the parent counts what ends up indexed.
				fmt.Fprintf(os.Stderr, "helper put %d/%d: just-put %s not found first: %v\n", worker, i, res.ID, ids(r))
				lost++
			}
		}
		if lost > 0 {
			os.Exit(4)
		}
	case "search":
		stop := os.Getenv(helperStop)
		n, gaveUp := 0, 0
		deadline := time.Now().Add(2 * time.Minute)
		for time.Now().Before(deadline) {
			if _, err := ix.Search(ctx, Query{Text: "concurrent learning worker shares catalog", Limit: 20}); err != nil {
				fmt.Fprintf(os.Stderr, "helper search %d: %v\n", n, err)
				os.Exit(3)
			}
			if _, err := ix.Count(ctx); err != nil {
				fmt.Fprintf(os.Stderr, "helper count %d: %v\n", n, err)
				os.Exit(3)
			}
			// Refresh gives up after refreshLockWait while another process
			// updates, and the caller searches the index as it stands: the
			// documented contract, and what a loaded machine makes happen.
			// Anything else is a failure.
			if _, _, err := ix.Refresh(ctx); errors.Is(err, ErrBusy) {
				gaveUp++
			} else if err != nil {
				fmt.Fprintf(os.Stderr, "helper refresh %d: %v\n", n, err)
				os.Exit(3)
			}
			n++
			if _, err := os.Stat(stop); err == nil {
				break
			}
		}
		// Once the writers are done nothing holds the lock: this refresh
		// must succeed and catch up with everything they wrote.
		if _, _, err := ix.Refresh(ctx); err != nil {
			fmt.Fprintf(os.Stderr, "helper final refresh: %v\n", err)
			os.Exit(3)
		}
		fmt.Printf("searches: %d (refresh deferred to a running update %d times)\n", n, gaveUp)
	}
	os.Exit(0)
}

// Four processes each Put 25 learnings into one KB while a fifth searches
// (and refreshes) in a loop. Every process must succeed ("database is
// locked" would be a bug) and afterwards all 100 learnings are indexed.
func TestConcurrentProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("starts 5 processes")
	}
	for _, fresh := range []bool{false, true} {
		name := "existing catalog"
		if fresh {
			name = "no catalog yet"
		}
		t.Run(name, func(t *testing.T) { runConcurrent(t, fresh) })
	}
}

func runConcurrent(t *testing.T, fresh bool) {
	ctx := context.Background()
	k := newKB(t)
	if !fresh {
		ix, err := Open(ctx, k.docs, k.idx, WithEmbedder(hashEmbedder(t, helperDim)))
		if err != nil {
			t.Fatal(err)
		}
		ix.Close()
	}
	stop := filepath.Join(k.root, "stop")
	start := func(mode string, worker int) (*exec.Cmd, *bytes.Buffer) {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$", "-test.count=1", "-test.timeout=5m")
		cmd.Env = append(os.Environ(),
			helperEnv+"="+mode, helperDocs+"="+k.docs, helperIdx+"="+k.idx,
			helperWorker+"="+strconv.Itoa(worker), helperStop+"="+stop)
		var out bytes.Buffer
		cmd.Stdout = &out
		cmd.Stderr = &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return cmd, &out
	}
	searcher, searchOut := start("search", -1)
	var puts []*exec.Cmd
	var putOuts []*bytes.Buffer
	for w := 0; w < putWorkers; w++ {
		c, o := start("put", w)
		puts = append(puts, c)
		putOuts = append(putOuts, o)
	}
	for w, c := range puts {
		if err := c.Wait(); err != nil {
			t.Errorf("put process %d: %v\n%s", w, err, putOuts[w])
		}
	}
	writeRaw(t, stop, "")
	if err := searcher.Wait(); err != nil {
		t.Errorf("search process: %v\n%s", err, searchOut)
	}
	for _, o := range append(putOuts, searchOut) {
		if strings.Contains(o.String(), "locked") || strings.Contains(o.String(), "busy") {
			t.Errorf("a process saw lock contention: %s", o)
		}
	}
	t.Logf("search process: %s", strings.TrimSpace(searchOut.String()))

	want := map[string]bool{}
	for w := 0; w < putWorkers; w++ {
		for i := 0; i < putsPerWorker; i++ {
			want[store.NewID(helperTitle(w, i), "")] = true
		}
	}
	ix := openWith(t, k, WithEmbedder(hashEmbedder(t, helperDim)))
	if ix.Rebuilt != "" {
		t.Errorf("Rebuilt = %q after the concurrent run", ix.Rebuilt)
	}
	// The processes exported vectors.f32 in turn; the last export standing
	// must be the last commit's, not an older one that renamed later.
	fileMatchesTable(t, ix, k)
	// Without any reindex: what the processes committed.
	if c := counts(t, ix); c.Learnings != len(want) || c.Problems != 0 {
		t.Errorf("Count = %+v, want %d learnings: some Put's document was dropped from the index", c, len(want))
	}
	list, err := ix.List(ctx, ListOptions{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	var missing []string
	got := map[string]bool{}
	for _, r := range list {
		got[r.ID] = true
	}
	for id := range want {
		if !got[id] {
			missing = append(missing, id)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("%d learnings not indexed: %v", len(missing), missing)
	}
	if scan, _ := ix.Store().Scan(); len(scan) != len(want) {
		t.Errorf("%d documents on disk, want %d", len(scan), len(want))
	}
	st := update(t, ix, UpdateOptions{})
	if st.Added+st.Updated+st.Removed != 0 || st.Unchanged != len(want) {
		t.Errorf("a final Update still had work to do: %+v", countersOf(st))
	}
	if res, err := ix.Check(ctx); err != nil || res != "ok" {
		t.Errorf("Check = %q, %v", res, err)
	}
	for w := 0; w < putWorkers; w++ {
		r := search(t, ix, Query{Text: fmt.Sprintf("worker%d item%d", w, putsPerWorker-1), Limit: 1})
		if len(r) != 1 || r[0].ID != store.NewID(helperTitle(w, putsPerWorker-1), "") {
			t.Errorf("worker %d's last learning not found first: %v", w, ids(r))
		}
	}
}

// Two processes' vector exports land in the order of their commits: one
// process stalls between reading the table and writing vectors.f32 while a
// second commits another learning and exports; the file left standing must
// hold both learnings' vectors, not the stalled export's older view.
func TestVectorExportOrder(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a process")
	}
	ctx := context.Background()
	k := newKB(t)
	for _, id := range []string{"lrn-a", "lrn-b", "lrn-c"} {
		k.write(t, simple(id, "words of "+id))
	}
	ix := openWith(t, k, WithEmbedder(hashEmbedder(t, helperDim)))
	marker := filepath.Join(k.root, "stalled")
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$", "-test.count=1", "-test.timeout=5m")
	cmd.Env = append(os.Environ(), helperEnv+"=put-slow", helperDocs+"="+k.docs, helperIdx+"="+k.idx, helperMarker+"="+marker)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	for {
		if _, err := os.Stat(marker); err == nil {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("the slow export never stalled:\n%s", &out)
		}
		time.Sleep(5 * time.Millisecond)
	}
	title := "Fast export learning"
	if _, err := put(ctx, ix, &store.Learning{ID: store.NewID(title, ""), Title: title, Confidence: "high", Created: t0,
		Body: "## Problem\nthe fast exporter commits second.\n"}, nil, t0); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("slow process: %v\n%s", err, &out)
	}
	fileMatchesTable(t, ix, k)
}
