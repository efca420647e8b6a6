package index

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/reflectkb/reflect/internal/testfs"
	"github.com/reflectkb/reflect/store"
)

// counters is the part of Stats a step asserts.
type counters struct {
	Documents, Indexed, Added, Updated, Removed, Unchanged int
}

func countersOf(st Stats) counters {
	return counters{st.Documents, st.Indexed, st.Added, st.Updated, st.Removed, st.Unchanged}
}

func TestUpdateIncremental(t *testing.T) {
	k := newKB(t)
	ix := k.open(t)
	ctx := context.Background()

	a := simple("lrn-alpha", "alpha zookeeper session")
	b := simple("lrn-bravo", "bravo kafka consumer")
	c := simple("lrn-charlie", "charlie terraform state")

	var before map[string]int64
	steps := []struct {
		name  string
		do    func(t *testing.T)
		want  counters
		check func(t *testing.T)
	}{
		{
			name: "add three",
			do: func(t *testing.T) {
				k.write(t, a)
				k.write(t, b)
				k.write(t, c)
			},
			want: counters{Documents: 3, Indexed: 3, Added: 3},
			check: func(t *testing.T) {
				for _, q := range []struct{ text, id string }{{"zookeeper", a.ID}, {"kafka", b.ID}, {"terraform", c.ID}} {
					if got := ids(search(t, ix, Query{Text: q.text})); !reflect.DeepEqual(got, []string{q.id}) {
						t.Errorf("search %q = %v, want [%s]", q.text, got, q.id)
					}
				}
			},
		},
		{
			name: "again: nothing changed",
			do:   func(t *testing.T) { before = docRows(t, ix) },
			want: counters{Documents: 3, Indexed: 3, Unchanged: 3},
			check: func(t *testing.T) {
				if after := docRows(t, ix); !reflect.DeepEqual(after, before) {
					t.Errorf("documents were rewritten: rows %v, before %v", after, before)
				}
			},
		},
		{
			name: "modify one",
			do: func(t *testing.T) {
				before = docRows(t, ix)
				b2 := b
				b2.Body = "## Problem\nbravo rabbitmq consumer prefetch was far too high for the workers.\n"
				k.write(t, b2)
			},
			want: counters{Documents: 3, Indexed: 3, Updated: 1, Unchanged: 2},
			check: func(t *testing.T) {
				if got := ids(search(t, ix, Query{Text: "rabbitmq prefetch"})); !reflect.DeepEqual(got, []string{b.ID}) {
					t.Errorf("new content: search = %v, want [%s]", got, b.ID)
				}
				if got := ids(search(t, ix, Query{Text: "kafka"})); !contains(got, b.ID) {
					// the title still says kafka: it must still be found by it
					t.Errorf("title word: search = %v, want %s", got, b.ID)
				}
				if got := search(t, ix, Query{Text: "went wrong fixed"}); contains(ids(got), b.ID) {
					t.Errorf("old body still searchable: %v", ids(got))
				}
				after := docRows(t, ix)
				if after[a.ID] != before[a.ID] || after[c.ID] != before[c.ID] {
					t.Errorf("unchanged documents were rewritten: %v -> %v", before, after)
				}
			},
		},
		{
			name: "touch one: same bytes, new mtime",
			do: func(t *testing.T) {
				before = docRows(t, ix)
				data, err := os.ReadFile(k.docPath(a.ID))
				if err != nil {
					t.Fatal(err)
				}
				writeRaw(t, k.docPath(a.ID), string(data))
				future := time.Now().Add(time.Hour)
				if err := os.Chtimes(k.docPath(a.ID), future, future); err != nil {
					t.Fatal(err)
				}
			},
			want: counters{Documents: 3, Indexed: 3, Unchanged: 3},
			check: func(t *testing.T) {
				if after := docRows(t, ix); !reflect.DeepEqual(after, before) {
					t.Errorf("touched document was rewritten: rows %v, before %v", after, before)
				}
			},
		},
		{
			name: "again after touch",
			do:   func(t *testing.T) { before = docRows(t, ix) },
			want: counters{Documents: 3, Indexed: 3, Unchanged: 3},
			check: func(t *testing.T) {
				if after := docRows(t, ix); !reflect.DeepEqual(after, before) {
					t.Errorf("documents were rewritten: rows %v, before %v", after, before)
				}
			},
		},
		{
			name: "delete one",
			do: func(t *testing.T) {
				if err := os.Remove(k.docPath(c.ID)); err != nil {
					t.Fatal(err)
				}
			},
			want: counters{Documents: 2, Indexed: 2, Removed: 1, Unchanged: 2},
			check: func(t *testing.T) {
				if got := search(t, ix, Query{Text: "charlie terraform"}); len(got) != 0 {
					t.Errorf("deleted document still found: %v", ids(got))
				}
				if got := counts(t, ix).Learnings; got != 2 {
					t.Errorf("Count = %d, want 2", got)
				}
			},
		},
		{
			name: "again after delete",
			do:   func(t *testing.T) {},
			want: counters{Documents: 2, Indexed: 2, Unchanged: 2},
		},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			s.do(t)
			st, err := ix.Update(ctx, UpdateOptions{})
			if err != nil {
				t.Fatalf("Update: %v", err)
			}
			if got := countersOf(st); got != s.want {
				t.Errorf("stats = %+v, want %+v", got, s.want)
			}
			if len(st.Problems) != 0 {
				t.Errorf("problems = %v", st.Problems)
			}
			if s.check != nil {
				s.check(t)
			}
		})
	}
	if res, err := ix.Check(ctx); err != nil || res != "ok" {
		t.Errorf("Check = %q, %v", res, err)
	}
}

// malformedCase is a document that cannot be indexed, with what the reason
// must say, and how to make it well-formed again.
type malformedCase struct {
	name   string
	id     string
	make   func(t *testing.T, path string)
	reason string // substring of the reported reason ("" = any)
}

func malformedCases() []malformedCase {
	write := func(content string) func(t *testing.T, path string) {
		return func(t *testing.T, path string) { writeRaw(t, path, content) }
	}
	return []malformedCase{
		{"bad YAML", "lrn-bad-yaml", write("---\nid: lrn-bad-yaml\ntitle: [unclosed\nconfidence: high\n---\nbody\n"), "not valid YAML"},
		{"missing title", "lrn-no-title", write("---\nid: lrn-no-title\nconfidence: high\ncreated: 2026-11-22T11:05:00Z\n---\nbody\n"), "missing title"},
		{"NUL bytes", "lrn-nul", write("---\nid: lrn-nul\ntitle: nul\nconfidence: high\ncreated: 2026-11-22T11:05:00Z\n---\nbinary\x00\x01\x02junk\n"), "not a UTF-8 text file"},
		{"invalid UTF-8", "lrn-latin1", write("---\nid: lrn-latin1\ntitle: caf\xe9\nconfidence: high\ncreated: 2026-11-22T11:05:00Z\n---\n"), "not a UTF-8 text file"},
		{"no frontmatter", "lrn-plain", write("# just markdown\n\nno fields here\n"), "no frontmatter"},
		{"empty file", "lrn-empty", write(""), "no frontmatter"},
		{"id differs from file name", "lrn-misnamed", write(simple("lrn-other-name", "misnamed").render()), "does not match the file name"},
		{"bad confidence", "lrn-certain", write(strings.Replace(simple("lrn-certain", "certain").render(), "confidence: high", "confidence: certain", 1)), "confidence"},
		{"sparse 50 MB file", "lrn-huge", func(t *testing.T, path string) {
			f, err := os.Create(path)
			if err != nil {
				t.Fatal(err)
			}
			f.Close()
			if err := os.Truncate(path, 50<<20); err != nil {
				t.Fatal(err)
			}
		}, "more than"},
		// A teammate's push of documents/<id>.md -> ~/.ssh/id_rsa: the
		// target parses as a learning, and must still not be indexed.
		{"symlink to a learning-shaped file outside documents/", "lrn-keylink", func(t *testing.T, path string) {
			target := filepath.Join(filepath.Dir(filepath.Dir(path)), "id_rsa")
			writeRaw(t, target, simple("lrn-keylink", "private key").render())
			if err := os.Symlink(target, path); err != nil {
				t.Fatal(err)
			}
		}, "symbolic link"},
		{"symlink to /dev/zero", "lrn-zerolink", func(t *testing.T, path string) {
			if err := os.Symlink("/dev/zero", path); err != nil {
				t.Fatal(err)
			}
		}, "symbolic link"},
		{"symlink to a directory", "lrn-dirlink", func(t *testing.T, path string) {
			dir := filepath.Join(filepath.Dir(filepath.Dir(path)), "somedir")
			if err := os.MkdirAll(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(dir, path); err != nil {
				t.Fatal(err)
			}
		}, ""},
	}
}

func findProblem(list []*store.DocError, path string) *store.DocError {
	for _, p := range list {
		if p.Path == path {
			return p
		}
	}
	return nil
}

func TestUpdateMalformedDocuments(t *testing.T) {
	for _, tc := range malformedCases() {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			k := newKB(t)
			ix := k.open(t) // empty: nothing to rebuild
			good1 := simple("lrn-good-one", "grafana dashboard")
			good2 := simple("lrn-good-two", "prometheus scrape")
			k.write(t, good1)
			path := k.docPath(tc.id)
			tc.make(t, path)
			k.write(t, good2)

			checkReported := func(t *testing.T, st Stats) {
				t.Helper()
				p := findProblem(st.Problems, path)
				if p == nil {
					t.Fatalf("Stats.Problems = %v, want an entry for %s", st.Problems, path)
				}
				if p.Reason == "" || !strings.Contains(p.Reason, tc.reason) {
					t.Errorf("reason %q, want it to mention %q", p.Reason, tc.reason)
				}
				if !strings.Contains(p.Error(), path) {
					t.Errorf("error %q does not name the path", p.Error())
				}
				if len(st.Problems) != 1 {
					t.Errorf("Stats.Problems = %v, want only %s", st.Problems, path)
				}
				probs, err := ix.Problems(ctx)
				if err != nil {
					t.Fatalf("Problems: %v", err)
				}
				if len(probs) != 1 || probs[0].Path != path || probs[0].Reason != p.Reason {
					t.Errorf("Problems() = %v, want [%s: %s]", probs, path, p.Reason)
				}
				if c := counts(t, ix); c.Learnings != 2 || c.Problems != 1 {
					t.Errorf("Count = %+v, want 2 learnings and 1 problem", c)
				}
				for _, q := range []string{"grafana", "prometheus"} {
					if got := search(t, ix, Query{Text: q}); len(got) != 1 {
						t.Errorf("search %q = %v, want the valid document", q, ids(got))
					}
				}
			}

			st, err := ix.Update(ctx, UpdateOptions{})
			if err != nil {
				t.Fatalf("Update stopped on the malformed document: %v", err)
			}
			if st.Added != 2 || st.Indexed != 2 || st.Documents != 3 {
				t.Errorf("stats = %+v, want 2 added, 2 indexed of 3 documents", countersOf(st))
			}
			checkReported(t, st)

			// Unchanged, it is reported again (without being parsed again).
			st = update(t, ix, UpdateOptions{})
			if st.Unchanged != 2 || st.Added+st.Updated+st.Removed != 0 {
				t.Errorf("second update stats = %+v", countersOf(st))
			}
			checkReported(t, st)

			// Fixing it indexes it and clears the problem.
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
			fixed := simple(tc.id, "fixedword repaired")
			k.write(t, fixed)
			st = update(t, ix, UpdateOptions{})
			if st.Added != 1 || st.Indexed != 3 || len(st.Problems) != 0 {
				t.Errorf("after fix: stats = %+v, problems %v", countersOf(st), st.Problems)
			}
			if probs, err := ix.Problems(ctx); err != nil || len(probs) != 0 {
				t.Errorf("after fix: Problems() = %v, %v", probs, err)
			}
			if got := ids(search(t, ix, Query{Text: "fixedword"})); !reflect.DeepEqual(got, []string{tc.id}) {
				t.Errorf("after fix: search = %v, want [%s]", got, tc.id)
			}
		})
	}
}

// All malformed documents at once, among valid ones, reported one by one.
func TestUpdateManyMalformedDocuments(t *testing.T) {
	ctx := context.Background()
	k := newKB(t)
	cases := malformedCases()
	for i, tc := range cases {
		k.write(t, simple("lrn-valid-"+string(rune('a'+i)), "validword"))
		tc.make(t, k.docPath(tc.id))
	}
	ix := k.open(t)
	if ix.Rebuilt == "" {
		t.Errorf("Open with a missing catalog did not say it rebuilt it")
	}
	st, err := ix.Update(ctx, UpdateOptions{Full: true})
	if err != nil {
		t.Fatalf("Update: %v", err)
	}
	if st.Indexed != len(cases) || st.Documents != 2*len(cases) {
		t.Errorf("stats = %+v, want %d indexed of %d", countersOf(st), len(cases), 2*len(cases))
	}
	probs, err := ix.Problems(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range cases {
		p := findProblem(st.Problems, k.docPath(tc.id))
		if p == nil {
			t.Errorf("%s: not in Stats.Problems", tc.name)
		} else if !strings.Contains(p.Reason, tc.reason) {
			t.Errorf("%s: reason %q, want %q", tc.name, p.Reason, tc.reason)
		}
		if findProblem(probs, k.docPath(tc.id)) == nil {
			t.Errorf("%s: not in Problems()", tc.name)
		}
	}
	if got := search(t, ix, Query{Text: "validword", Limit: 100}); len(got) != len(cases) {
		t.Errorf("search found %d valid documents, want %d", len(got), len(cases))
	}
}

// A valid document that becomes malformed leaves the index (no stale copy
// stays searchable) and comes back when it is fixed.
func TestUpdateDocumentBecomesMalformed(t *testing.T) {
	ctx := context.Background()
	k := newKB(t)
	d := simple("lrn-flaky", "flakyword cassandra")
	k.write(t, d)
	k.write(t, simple("lrn-steady", "steady cassandra"))
	ix := k.open(t)

	writeRaw(t, k.docPath(d.ID), "---\nid: lrn-flaky\ntitle: [broken\n---\nflakyword\n")
	st := update(t, ix, UpdateOptions{})
	if st.Removed != 1 || st.Indexed != 1 || findProblem(st.Problems, k.docPath(d.ID)) == nil {
		t.Errorf("stats = %+v problems %v, want 1 removed and the problem reported", countersOf(st), st.Problems)
	}
	if got := search(t, ix, Query{Text: "flakyword"}); len(got) != 0 {
		t.Errorf("malformed document still searchable: %v", ids(got))
	}
	if got := search(t, ix, Query{Text: "cassandra"}); !reflect.DeepEqual(ids(got), []string{"lrn-steady"}) {
		t.Errorf("search = %v", ids(got))
	}

	k.write(t, d)
	st = update(t, ix, UpdateOptions{})
	if st.Added != 1 || st.Indexed != 2 || len(st.Problems) != 0 {
		t.Errorf("after fix: stats = %+v problems %v", countersOf(st), st.Problems)
	}
	if probs, _ := ix.Problems(ctx); len(probs) != 0 {
		t.Errorf("after fix: Problems() = %v", probs)
	}

	// A malformed document that is deleted is no longer reported.
	writeRaw(t, k.docPath("lrn-junk"), "junk")
	update(t, ix, UpdateOptions{})
	if probs, _ := ix.Problems(ctx); len(probs) != 1 {
		t.Fatalf("Problems() = %v, want the junk file", probs)
	}
	if err := os.Remove(k.docPath("lrn-junk")); err != nil {
		t.Fatal(err)
	}
	st = update(t, ix, UpdateOptions{})
	if probs, _ := ix.Problems(ctx); len(probs) != 0 || len(st.Problems) != 0 {
		t.Errorf("deleted junk still reported: %v / %v", probs, st.Problems)
	}
}

func TestUpdateFullRebuildGivesSameResults(t *testing.T) {
	ctx := context.Background()
	k := newKB(t)
	for _, d := range searchCorpus() {
		k.write(t, d)
	}
	writeRaw(t, k.docPath("lrn-junk"), "not a learning")
	ix := k.open(t)
	update(t, ix, UpdateOptions{})
	// Some churn first, so the incremental catalog has history.
	extra := simple("lrn-temporary", "postgres temporary")
	k.write(t, extra)
	update(t, ix, UpdateOptions{})
	if err := os.Remove(k.docPath(extra.ID)); err != nil {
		t.Fatal(err)
	}
	update(t, ix, UpdateOptions{})

	queries := []Query{
		{Text: "postgres connection pool"},
		{Text: "-fPIC"},
		{Text: "ERR_SSL_PROTOCOL_ERROR"},
		{Text: "callback/cookie.go"},
		{Text: "kafka rebalance", Project: "alpha"},
		{Text: "widget", Limit: 20},
	}
	before := map[string][]Result{}
	for _, q := range queries {
		before[q.Text] = search(t, ix, q)
	}
	var progressed [2]int
	st, err := ix.Update(ctx, UpdateOptions{Full: true, Progress: func(done, total int) { progressed = [2]int{done, total} }})
	if err != nil {
		t.Fatal(err)
	}
	n := len(searchCorpus())
	if st.Added != n || st.Indexed != n || st.Unchanged != 0 || len(st.Problems) != 1 {
		t.Errorf("full: stats = %+v problems %v, want %d added and the junk reported", countersOf(st), st.Problems, n)
	}
	if progressed != [2]int{n + 1, n + 1} {
		t.Errorf("last progress = %v, want %d of %d", progressed, n+1, n+1)
	}
	for _, q := range queries {
		after := search(t, ix, q)
		if len(after) == 0 {
			t.Errorf("%q: no results", q.Text)
		}
		if !reflect.DeepEqual(ids(after), ids(before[q.Text])) {
			t.Errorf("%q: after full rebuild %v, before %v", q.Text, ids(after), ids(before[q.Text]))
			continue
		}
		for i := range after {
			if d := after[i].Score - before[q.Text][i].Score; d > 1e-12 || d < -1e-12 {
				t.Errorf("%q: %s score %v, before %v", q.Text, after[i].ID, after[i].Score, before[q.Text][i].Score)
			}
		}
	}
}

// A named pipe called *.md must be reported, not block the indexer: opening
// a FIFO for reading waits for a writer that never comes.
func TestUpdateDoesNotBlockOnFIFO(t *testing.T) {
	k := newKB(t)
	ix := k.open(t) // empty: nothing to rebuild
	k.write(t, simple("lrn-normal", "normal haproxy"))
	fifo := k.docPath("lrn-pipe")
	if err := testfs.Mkfifo(fifo); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan struct{})
	var st Stats
	var err error
	go func() {
		defer close(done)
		st, err = ix.Update(context.Background(), UpdateOptions{})
	}()
	select {
	case <-done:
	case <-time.After(time.Minute): // a blocked read never returns; a loaded machine can be slow
		// Unblock the reader: a writer opens the FIFO and closes it.
		if w, oerr := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); oerr == nil {
			w.Close()
		}
		<-done
		t.Errorf("Update blocked on the FIFO %s for a minute (it reads the file before checking it is a regular file)", fifo)
	}
	if err != nil {
		t.Fatalf("Update: %v", err)
	}
	if p := findProblem(st.Problems, fifo); p == nil {
		t.Errorf("FIFO not reported: %v", st.Problems)
	}
	if st.Indexed != 1 {
		t.Errorf("indexed %d, want 1", st.Indexed)
	}
}

// Two indexers of the same catalog (two reflect processes, say two Puts):
// A lists documents/, then waits for the write lock while B indexes a
// document written after A's listing. When A gets the lock it must not
// remove B's document just because its own listing is older.
//
// The interleaving is forced with real Updates: B pauses inside its write
// transaction (Progress callback) while A lists documents/ with the new
// file hidden, then B indexes the file and commits, then A runs. B pauses
// at the new file's step, which its worker has already read (Progress
// comes with each prepared step), so hiding the file cannot race B's read.
func TestUpdateStaleListingDoesNotRemoveNewDocument(t *testing.T) {
	ctx := context.Background()
	k := newKB(t)
	k.write(t, simple("lrn-first", "first varnish"))
	ixA := k.open(t)
	ixB := k.open(t)
	late := simple("lrn-late", "late memcached")
	path := k.write(t, late)
	hidden := filepath.Join(k.docs, ".lrn-late.md.hidden") // Scan skips dot files

	type result struct {
		st  Stats
		err error
	}
	bLocked, bGo := make(chan struct{}), make(chan struct{})
	var once sync.Once
	resB := make(chan result, 1)
	go func() { // B lists both files, takes the lock and waits
		st, err := ixB.Update(ctx, UpdateOptions{Progress: func(done, total int) {
			if done == 1 { // lrn-late, after lrn-first
				once.Do(func() { close(bLocked); <-bGo })
			}
		}})
		resB <- result{st, err}
	}()
	<-bLocked
	if err := os.Rename(path, hidden); err != nil {
		t.Fatal(err)
	}
	resA := make(chan result, 1)
	go func() { // A lists documents/ without the new file, waits for the lock
		st, err := ixA.Update(ctx, UpdateOptions{})
		resA <- result{st, err}
	}()
	time.Sleep(300 * time.Millisecond)
	if err := os.Rename(hidden, path); err != nil { // same file, same size and mtime
		t.Fatal(err)
	}
	close(bGo)
	rb := <-resB
	if rb.err != nil || rb.st.Added != 1 {
		t.Fatalf("B: Update: %+v %v, want the new document added", countersOf(rb.st), rb.err)
	}
	ra := <-resA
	if ra.err != nil {
		t.Fatalf("A: Update: %v", ra.err)
	}
	if ra.st.Removed != 0 {
		t.Errorf("A removed %d document(s) whose file exists: stats %+v", ra.st.Removed, countersOf(ra.st))
	}
	if got := ids(search(t, ixA, Query{Text: "memcached"})); !reflect.DeepEqual(got, []string{late.ID}) {
		t.Errorf("search memcached = %v, want [%s]: the document B indexed was dropped", got, late.ID)
	}
	if c := counts(t, ixA); c.Learnings != 2 {
		t.Errorf("Count = %d, want 2", c.Learnings)
	}
}

// A same-size edit inside the file system's timestamp granularity (coarse
// timestamps: HFS+ 1 s, FAT 2 s, NFS, Linux before multigrain timestamps
// ~4 ms) leaves size and mtime as they were. Chtimes simulates it. The
// content changed, so the index must change too.
func TestUpdateSameSizeSameMtimeEdit(t *testing.T) {
	k := newKB(t)
	d := simple("lrn-racy", "racy nginx upstream")
	path := k.write(t, d)
	ix := k.open(t)
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	d.Body = strings.Replace(d.Body, "nginx", "envoy", -1) // same length
	k.write(t, d)
	if err := os.Chtimes(path, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	if fi2, _ := os.Stat(path); fi2.Size() != fi.Size() {
		t.Fatalf("sizes differ: %d vs %d", fi2.Size(), fi.Size())
	}
	st := update(t, ix, UpdateOptions{})
	if st.Updated != 1 {
		t.Errorf("stats = %+v, want the edited document updated", countersOf(st))
	}
	if got := ids(search(t, ix, Query{Text: "envoy"})); !reflect.DeepEqual(got, []string{d.ID}) {
		t.Errorf("search envoy = %v, want [%s]: the index kept the old content", got, d.ID)
	}
}

func TestUpdateCancelled(t *testing.T) {
	k := newKB(t)
	ix := k.open(t)
	for i := 0; i < 5; i++ {
		k.write(t, simple("lrn-c"+string(rune('a'+i)), "cancel"))
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ix.Update(ctx, UpdateOptions{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled Update: err = %v, want context.Canceled", err)
	}
	// Nothing half-done was committed; a later Update does it all.
	if c := counts(t, ix); c.Learnings != 0 {
		t.Errorf("cancelled Update committed %d documents", c.Learnings)
	}
	if st := update(t, ix, UpdateOptions{}); st.Added != 5 {
		t.Errorf("stats = %+v", countersOf(st))
	}
}

// store.ReadFile refuses a file over store.MaxDocumentSize without reading
// it ("a stray 50 MB file costs nothing"); the indexer must not read it
// either, on the first Update or on any later one.
func TestUpdateDoesNotReadOversizedFile(t *testing.T) {
	k := newKB(t)
	ix := k.open(t)
	k.write(t, simple("lrn-small", "small"))
	huge := k.docPath("lrn-huge")
	if err := os.WriteFile(huge, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(huge, 50<<20); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	st := update(t, ix, UpdateOptions{})
	runtime.ReadMemStats(&after)
	if findProblem(st.Problems, huge) == nil || st.Indexed != 1 {
		t.Fatalf("stats %+v problems %v", countersOf(st), st.Problems)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 10<<20 {
		t.Errorf("Update allocated %d MB for a KB of one small document and one 50 MB file: it read the oversized file", alloc>>20)
	}
}

// Only <id>.md files are documents: sidecars, temp files of atomic writes,
// hidden files, directories and other files are not listed or reported.
func TestUpdateIgnoresNonDocuments(t *testing.T) {
	k := newKB(t)
	ix := k.open(t)
	k.write(t, simple("lrn-only", "only"))
	writeRaw(t, filepath.Join(k.docs, "lrn-only.entities.yaml"), "document_id: lrn-only\nentities: []\n")
	writeRaw(t, filepath.Join(k.docs, ".lrn-only.md.tmp-12345"), "partial")
	writeRaw(t, filepath.Join(k.docs, ".hidden.md"), "junk")
	writeRaw(t, filepath.Join(k.docs, "README.txt"), "notes")
	if err := os.Mkdir(filepath.Join(k.docs, "folder.md"), 0o700); err != nil {
		t.Fatal(err)
	}
	st := update(t, ix, UpdateOptions{})
	if st.Documents != 1 || st.Added != 1 || len(st.Problems) != 0 {
		t.Errorf("stats %+v problems %v, want one document and no problems", countersOf(st), st.Problems)
	}
}

// TestUpdatePageCache: an incremental update plans with the small cache
// and grows it once it has many learnings to write; either way the
// connection has the full cache again afterwards, for whatever it runs
// next.
func TestUpdatePageCache(t *testing.T) {
	defer func(n int) { bigWriteDocs = n }(bigWriteDocs)
	bigWriteDocs = 2
	k := newKB(t)
	ix := k.open(t)
	ctx := context.Background()
	cache := func() int {
		t.Helper()
		var kb int
		if err := ix.db.QueryRowContext(ctx, `PRAGMA cache_size`).Scan(&kb); err != nil {
			t.Fatal(err)
		}
		return kb
	}
	k.write(t, simple("lrn-first", "first learning about zookeeper"))
	update(t, ix, UpdateOptions{})      // bulk: the first one
	for round, n := range []int{1, 5} { // below, then past bigWriteDocs
		for i := range n {
			k.write(t, simple(fmt.Sprintf("lrn-round%d-%d", round, i), fmt.Sprintf("kafka consumer lag round %d number %d", round, i)))
		}
		st := update(t, ix, UpdateOptions{})
		if st.Added != n {
			t.Errorf("round %d: added %d, want %d", round, st.Added, n)
		}
		if got := cache(); got != -cacheKB {
			t.Errorf("round %d: cache_size after the update = %d, want %d", round, got, -cacheKB)
		}
	}
	if got := len(search(t, ix, Query{Text: "kafka consumer lag", Limit: 20})); got != 6 {
		t.Errorf("found %d of the 6 learnings written", got)
	}
}

// TestUpdateDropsForeignProblems: a catalog copied with another KB's
// directory (cp -a) names that KB's malformed files; they are not this
// KB's and must not stay counted, though the files still exist.
func TestUpdateDropsForeignProblems(t *testing.T) {
	ctx := context.Background()
	other := newKB(t)
	foreign := other.docPath("lrn-foreign")
	if err := os.WriteFile(foreign, []byte("no front matter\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	k := newKB(t)
	ix := k.open(t)
	k.write(t, simple("lrn-good", "grafana dashboard"))
	bad := k.docPath("lrn-bad")
	if err := os.WriteFile(bad, []byte("no front matter\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	update(t, ix, UpdateOptions{})
	if _, err := ix.db.ExecContext(ctx, `INSERT INTO problems(path,size,mtime,reason) VALUES(?,1,1,'copied')`, foreign); err != nil {
		t.Fatal(err)
	}
	k.write(t, simple("lrn-new", "prometheus scrape")) // something for the update to do
	update(t, ix, UpdateOptions{})
	probs, err := ix.Problems(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(probs) != 1 || probs[0].Path != bad {
		t.Errorf("Problems() = %v, want only %s", probs, bad)
	}
}
