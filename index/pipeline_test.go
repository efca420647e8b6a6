package index

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"
)

// dumpCatalog renders every table of ix's catalog but meta (which holds
// the directory stamp) as text, rows in rowid order, so that two catalogs
// built from the same documents can be compared whole: the docs rows and
// their numbers, FTS5's and the trigram table's shadow tables, the stats,
// the postings, the graph and the problems.
func dumpCatalog(t *testing.T, ix *Index) map[string][]string {
	t.Helper()
	rows, err := ix.db.Query(`SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%' AND name<>'meta' AND sql NOT LIKE 'CREATE VIRTUAL%'`)
	if err != nil {
		t.Fatal(err)
	}
	var tables []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			t.Fatal(err)
		}
		tables = append(tables, name)
	}
	rows.Close()
	if len(tables) < 8 {
		t.Fatalf("only %d tables in the catalog: %v", len(tables), tables)
	}
	out := map[string][]string{}
	for _, name := range tables {
		q := `SELECT * FROM "` + name + `" ORDER BY 1, 2`
		if name == "docs" {
			// mtime is 0 or the file's, by how close to the update's start
			// the file was written (stableMtime): not the pipeline's doing.
			q = `SELECT n, id, path, size, hash, title, key_insight, type, confidence, scope, project, tags, updated, cites FROM docs ORDER BY n`
		}
		r, err := ix.db.Query(q)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		cols, _ := r.Columns()
		for r.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := r.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			out[name] = append(out[name], fmt.Sprintf("%q", vals))
		}
		if err := r.Err(); err != nil {
			t.Fatal(err)
		}
		r.Close()
	}
	return out
}

// The same documents give the same catalog whether they are read and
// parsed in turn or on a pool of workers: same rows and row numbers, same
// postings, graph and problems, same search results. The documents
// include malformed files, learnings with the same text under two ids,
// and then, on a second update, changed, unchanged, touched (same
// content, new mtime), deleted, newly malformed and new files.
func TestPipelineSameCatalogAsSequential(t *testing.T) {
	k := newKB(t)
	ctx := context.Background()
	seqIx, err := Open(ctx, k.docs, filepath.Join(k.root, "index-seq"))
	if err != nil {
		t.Fatal(err)
	}
	defer seqIx.Close()
	parIx, err := Open(ctx, k.docs, filepath.Join(k.root, "index-par"))
	if err != nil {
		t.Fatal(err)
	}
	defer parIx.Close()

	old := time.Now().Add(-time.Hour)
	setTime := func(path string, at time.Time) {
		t.Helper()
		if err := os.Chtimes(path, at, at); err != nil {
			t.Fatal(err)
		}
	}
	words := []string{"zookeeper session", "kafka consumer lag", "terraform state lock", "postgres vacuum", "redis eviction", "nginx upstream timeout", "docker layer cache", "go module proxy"}
	for i := range 120 {
		d := simple(fmt.Sprintf("lrn-p%03d", i), words[i%len(words)]+fmt.Sprintf(" case%d", i))
		d.Tags = []string{"ops", words[(i+3)%len(words)][:4]}
		d.Body += fmt.Sprintf("\nRun `make fix%d` and check `config.yaml`; see FooBar%d in pkg/x%d.go.\n", i%7, i%5, i)
		setTime(k.write(t, d), old)
	}
	// The same learning under two ids.
	for _, id := range []string{"lrn-dup-a", "lrn-dup-b"} {
		d := simple(id, "identical duplicated text")
		setTime(k.write(t, d), old)
	}
	for _, tc := range malformedCases() {
		if tc.name == "sparse 50 MB file" || tc.name == "symlink to a directory" {
			continue // covered by the update tests; no content to compare
		}
		tc.make(t, k.docPath(tc.id))
		setTime(k.docPath(tc.id), old)
	}

	both := func(opts UpdateOptions) (Stats, Stats) {
		t.Helper()
		seqOpts, parOpts := opts, opts
		seqOpts.workers, parOpts.workers = 1, 4
		return update(t, seqIx, seqOpts), update(t, parIx, parOpts)
	}
	compare := func(step string, seq, par Stats) {
		t.Helper()
		if countersOf(seq) != countersOf(par) {
			t.Errorf("%s: sequential %+v, parallel %+v", step, countersOf(seq), countersOf(par))
		}
		if len(seq.Problems) != len(par.Problems) {
			t.Errorf("%s: %d problems in turn, %d in parallel", step, len(seq.Problems), len(par.Problems))
		}
		for i := range min(len(seq.Problems), len(par.Problems)) {
			if *seq.Problems[i] != *par.Problems[i] {
				t.Errorf("%s: problem %d: %+v in turn, %+v in parallel", step, i, seq.Problems[i], par.Problems[i])
			}
		}
		a, b := dumpCatalog(t, seqIx), dumpCatalog(t, parIx)
		for name := range a {
			if !reflect.DeepEqual(a[name], b[name]) {
				t.Errorf("%s: table %s differs: %d rows in turn, %d in parallel", step, name, len(a[name]), len(b[name]))
			}
		}
		if len(a["docs"]) == 0 || len(a["postings"]) == 0 || len(a["mentions"]) == 0 {
			t.Fatalf("%s: nothing indexed: docs %d, postings %d, mentions %d", step, len(a["docs"]), len(a["postings"]), len(a["mentions"]))
		}
		for _, q := range []string{"kafka consumer", "identical duplicated", "terraform lock case7", "FooBar3", "config.yaml"} {
			if s, p := ids(search(t, seqIx, Query{Text: q, Limit: 20})), ids(search(t, parIx, Query{Text: q, Limit: 20})); !reflect.DeepEqual(s, p) || len(s) == 0 {
				t.Errorf("%s: search %q: %v in turn, %v in parallel", step, q, s, p)
			}
		}
	}

	seq, par := both(UpdateOptions{})
	if seq.Added != 122 {
		t.Fatalf("first update added %d, want 122", seq.Added)
	}
	compare("first update", seq, par)

	// Change some, touch one, delete some, break one, add some.
	newer := old.Add(time.Minute)
	for i := 0; i < 120; i += 9 {
		d := simple(fmt.Sprintf("lrn-p%03d", i), "changed rabbitmq prefetch "+words[i%len(words)])
		setTime(k.write(t, d), newer)
	}
	setTime(k.docPath("lrn-p001"), newer) // same content: a touch
	for i := 2; i < 120; i += 17 {
		if err := os.Remove(k.docPath(fmt.Sprintf("lrn-p%03d", i))); err != nil {
			t.Fatal(err)
		}
	}
	writeRaw(t, k.docPath("lrn-p004"), "---\nid: lrn-p004\ntitle: [broken\n---\n")
	setTime(k.docPath("lrn-p004"), newer)
	for i := range 15 {
		d := simple(fmt.Sprintf("lrn-q%03d", i), "fresh elasticsearch shard "+words[i%len(words)])
		setTime(k.write(t, d), newer)
	}
	seq, par = both(UpdateOptions{})
	if seq.Updated == 0 || seq.Removed == 0 || seq.Added != 15 || seq.Unchanged == 0 {
		t.Fatalf("second update did not exercise every step: %+v", countersOf(seq))
	}
	compare("second update", seq, par)

	seq, par = both(UpdateOptions{Full: true, Communities: true})
	compare("full reindex", seq, par)
}

// checkNoLeak fails when goroutines started during a test outlive it:
// pipeline must have waited for all of its own before returning.
func checkNoLeak(t *testing.T, before int) {
	t.Helper()
	// Goroutines of the runtime and of database/sql come and go; allow
	// them a moment to settle, but pipeline's own are gone on return.
	for range 100 {
		if runtime.NumGoroutine() <= before {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	buf := make([]byte, 1<<16)
	t.Errorf("%d goroutines before, %d after:\n%s", before, runtime.NumGoroutine(), buf[:runtime.Stack(buf, true)])
}

func TestPipelineKeepsOrder(t *testing.T) {
	items := make([]int, 2000)
	for i := range items {
		items[i] = i
	}
	next := 0
	err := pipeline(context.Background(), 4, len(items), func(i int) int { return items[i] }, func() func(int) int {
		return func(x int) int {
			if x%13 == 0 {
				time.Sleep(time.Millisecond) // finish out of order
			}
			return x * x
		}
	}, func(i, r int) error {
		if i != next || r != i*i {
			return fmt.Errorf("apply(%d, %d) after %d", i, r, next)
		}
		next++
		return nil
	})
	if err != nil || next != len(items) {
		t.Fatalf("err %v, applied %d of %d", err, next, len(items))
	}
}

// An error a worker meets is returned when the writer reaches that item,
// after every item before it and none after it, and stops the pool.
func TestPipelineWorkerErrorStops(t *testing.T) {
	before := runtime.NumGoroutine()
	items := make([]int, 5000)
	for i := range items {
		items[i] = i
	}
	boom := errors.New("boom")
	var applied []int
	type result struct {
		x   int
		err error
	}
	err := pipeline(context.Background(), 3, len(items), func(i int) int { return items[i] }, func() func(int) result {
		return func(x int) result {
			if x == 37 {
				return result{x, fmt.Errorf("item %d: %w", x, boom)}
			}
			return result{x: x}
		}
	}, func(i int, r result) error {
		if r.err != nil {
			return r.err
		}
		applied = append(applied, r.x)
		return nil
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want boom", err)
	}
	if len(applied) != 37 || applied[36] != 36 {
		t.Errorf("applied %d items before the error, want 37 in order", len(applied))
	}
	checkNoLeak(t, before)
}

// Cancelling the context while the pool is busy stops it: pipeline returns
// context.Canceled once its goroutines are gone, and applies nothing more.
func TestPipelineCancelled(t *testing.T) {
	before := runtime.NumGoroutine()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	items := make([]int, 100000)
	applied := 0
	err := pipeline(ctx, 4, len(items), func(i int) int { return items[i] }, func() func(int) int {
		return func(x int) int { return x }
	}, func(i, _ int) error {
		applied++
		if i == 100 {
			cancel()
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if applied > 101+pipelineDepth*4+4 {
		t.Errorf("applied %d items after the cancel at 100", applied)
	}
	checkNoLeak(t, before)
}

// A reindex cancelled while its workers parse stops, commits nothing and
// leaves no goroutine behind; the next update does all the work.
func TestUpdateCancelledWhileParsing(t *testing.T) {
	k := newKB(t)
	ix := k.open(t)
	for i := range 300 {
		k.write(t, simple(fmt.Sprintf("lrn-x%03d", i), "cancel parsing "+strings.Repeat("word ", i%50)))
	}
	before := runtime.NumGoroutine()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, err := ix.Update(ctx, UpdateOptions{workers: 4, Progress: func(done, total int) {
		if done == 50 {
			cancel()
		}
	}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled Update: err = %v, want context.Canceled", err)
	}
	checkNoLeak(t, before)
	if c := counts(t, ix); c.Learnings != 0 {
		t.Errorf("cancelled Update committed %d documents", c.Learnings)
	}
	if st := update(t, ix, UpdateOptions{workers: 4}); st.Added != 300 {
		t.Errorf("stats = %+v", countersOf(st))
	}
}

// Open's rebuild of a missing catalog is not a Full update, but every
// learning in it is new: it writes postings as a full reindex does
// (chunk by chunk) and gives the same catalog. So does an update after
// every learning was removed, when new ones come.
func TestRebuildWritesPostingsAsFull(t *testing.T) {
	k := newKB(t)
	ctx := context.Background()
	for i := range 40 {
		k.write(t, simple(fmt.Sprintf("lrn-r%02d", i), fmt.Sprintf("rebuild postings topic%d shared", i%6)))
	}
	rebuilt := k.open(t) // no catalog yet: Open rebuilds it
	full, err := Open(ctx, k.docs, filepath.Join(k.root, "index-full"))
	if err != nil {
		t.Fatal(err)
	}
	defer full.Close()
	update(t, full, UpdateOptions{Full: true})
	a, b := dumpCatalog(t, rebuilt), dumpCatalog(t, full)
	for _, name := range []string{"docs", "stats", "postings", "norms", "tri_content"} {
		if len(a[name]) == 0 || !reflect.DeepEqual(a[name], b[name]) {
			t.Errorf("table %s: %d rows rebuilt by Open, %d by a full reindex, or they differ", name, len(a[name]), len(b[name]))
		}
	}

	// Remove every learning, then add others: the update that adds them
	// starts from an empty docs table.
	for i := range 40 {
		if err := os.Remove(k.docPath(fmt.Sprintf("lrn-r%02d", i))); err != nil {
			t.Fatal(err)
		}
	}
	if st := update(t, rebuilt, UpdateOptions{}); st.Removed != 40 || st.Indexed != 0 {
		t.Fatalf("removing all: %+v", countersOf(st))
	}
	k.write(t, simple("lrn-after", "afterwards zeppelin"))
	update(t, rebuilt, UpdateOptions{})
	if got := ids(search(t, rebuilt, Query{Text: "zeppelin"})); !reflect.DeepEqual(got, []string{"lrn-after"}) {
		t.Errorf("search zeppelin = %v", got)
	}
	if got := ids(search(t, rebuilt, Query{Text: "rebuild postings shared"})); len(got) != 0 {
		t.Errorf("removed learnings still found: %v", got)
	}
}

// The vector export runs with a lower GOGC, and a lower one (or off) the user
// chose is kept; either way the setting before it comes back.
func TestTightenGC(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	for _, before := range []int{100, 10, -1} {
		debug.SetGCPercent(before)
		restore := tightenGC()
		want := min(before, exportGCPercent)
		if before < 0 {
			want = -1
		}
		if got := debug.SetGCPercent(want); got != want {
			t.Errorf("GOGC %d: %d while building, want %d", before, got, want)
		}
		restore()
		if got := debug.SetGCPercent(before); got != before {
			t.Errorf("GOGC %d: %d after, want it back", before, got)
		}
	}
}
