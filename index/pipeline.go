package index

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"runtime"
	"strings"
	"sync"

	"github.com/reflectkb/reflect/index/graph"
	"github.com/reflectkb/reflect/store"
)

// A reindex reads, hashes, parses, tokenizes and extracts every new or
// changed document, then writes it in the update's transaction. Only the
// writing needs the transaction, and SQLite has one writer, so the rest
// runs on a pool of workers (pipeline) while one goroutine, the caller's,
// writes their results in the plan's order: row numbers are handed out
// in that order, exactly as by a sequential loop, so the same listing
// gives the same catalog whatever the number of workers.

// pipelineDepth is how many results per worker may wait for the writer:
// enough to keep the workers busy while the writer runs a slow statement,
// few enough that memory does not grow with the KB (a result holds at most
// one document of store.MaxDocumentSize and what was derived from it).
const pipelineDepth = 8

// stemCacheBudget bounds each worker's stemming cache (entries): it is
// emptied when full, so a KB's growing vocabulary (ids, hashes, names)
// cannot grow the reindex's memory with it, while the common words are
// cached again within a few documents.
const stemCacheBudget = 1 << 15

// pipelineWorkers is the default size of the pool: one per CPU the Go
// runtime may use, and at least two, so reading and parsing overlap the
// writer even on one core (a read waits on the disk, not the CPU).
func pipelineWorkers() int {
	return max(2, runtime.GOMAXPROCS(0))
}

// pipeline runs work on n items, item(i) each, with workers goroutines and
// hands the results to apply, in the items' order, on the calling
// goroutine. Items are made as the workers need them and at most
// pipelineDepth×workers results are computed ahead of apply, so memory is
// bounded whatever n is. Each worker calls newWork once for its
// own work function, which may keep state no other goroutine touches (a
// cache). The first error from apply, or ctx's end, stops the workers;
// pipeline returns only once every goroutine it started has returned.
// With workers ≤ 1 everything runs in turn on the calling goroutine.
func pipeline[T, R any](ctx context.Context, workers, n int, item func(i int) T, newWork func() func(T) R, apply func(i int, r R) error) error {
	if workers <= 1 {
		work := newWork()
		for i := range n {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := apply(i, work(item(i))); err != nil {
				return err
			}
		}
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer func() {
		cancel()
		wg.Wait()
	}()
	type job struct {
		item T
		out  chan R // buffered: a worker never waits for the writer
	}
	jobs := make(chan job)
	// pending holds each item's result slot in the items' order; its
	// capacity is what bounds the work done ahead of the writer.
	pending := make(chan chan R, pipelineDepth*workers)
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(pending)
		defer close(jobs)
		for i := range n {
			out := make(chan R, 1)
			select {
			case pending <- out:
			case <-ctx.Done():
				return
			}
			select {
			case jobs <- job{item(i), out}:
			case <-ctx.Done():
				return
			}
		}
	}()
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			work := newWork()
			for j := range jobs {
				if ctx.Err() != nil {
					continue // drain: the writer has stopped
				}
				j.out <- work(j.item)
			}
		}()
	}
	i := 0
	for out := range pending {
		var r R
		select {
		case r = <-out:
		case <-ctx.Done():
			return ctx.Err()
		}
		if err := apply(i, r); err != nil {
			return err
		}
		i++
	}
	if i < n {
		return ctx.Err() // the feeder stopped early: ctx ended
	}
	return nil
}

// prepared is one file's step after everything that does not need the
// transaction: the file read and hashed, its step settled by its content
// (judgeContent, judgeParsed), and for a learning to insert, the rows
// derived from it.
type prepared struct {
	step fileStep // kind settled: never stepExamine or stepParse
	hash string
	l    *store.Learning
	bad  *store.DocError
	rows *derivedRows // for stepAdd and stepUpdate
	err  error        // a read or parse failure that stops the update
}

// derivedRows is what the writer inserts for one learning besides its docs
// row, computed from its text alone.
type derivedRows struct {
	stats  fieldStats     // BM25F field lengths and term frequencies
	sc     *store.Sidecar // its sidecar, or the entities extracted from it
	idents []string       // identifiers for the trigram table
	// commands are the keys of the shell commands it records as failing
	// (recordedCommands), for the commands table.
	commands []string
	fields   [numFields]string // the indexed fields
	// text is what the learning is embedded from, kept only for a
	// document its writer handed over (bounded by what it holds).
	text string
}

// prepareStep does the read-only part of a plan's step: a file to examine
// is read, hashed and, when its content changed, parsed; a learning to
// insert gets its rows (deriveRows). stems is the calling worker's own
// stemming cache. Steps that need no reading pass through unchanged.
func prepareStep(s fileStep, st *store.Store, stems map[string]string, given givenDocs) prepared {
	if s.unstated {
		// A fresh plan's step: the stat Scan would have taken (lstat, as
		// its directory entries do), here on a worker.
		s.unstated = false
		if fi, err := os.Lstat(s.file.Path); err == nil {
			s.file.Size, s.file.ModTime = fi.Size(), fi.ModTime()
			s.kind = s.byStat()
		}
	}
	p := prepared{step: s}
	f := s.file
	if s.kind == stepExamine {
		data, problem, err := readDocument(f)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			p.err = fmt.Errorf("read %s: %w", f.Path, err)
			return p
		}
		if err == nil && problem == "" {
			p.hash = hashOf(data)
		}
		if problem != "" {
			p.bad = &store.DocError{Path: f.Path, Reason: problem}
		}
		p.step.kind = judgeContent(s, err, problem, p.hash)
		if p.step.kind == stepParse {
			if l := given.learning(f.Path, data); l != nil {
				p.l = l
				p.step.kind = judgeParsed(s, nil)
				p.rows = deriveRows(p.l, st, stems, given)
				// Kept for the embedder, which would otherwise read and
				// parse the file once more (loadTexts).
				p.rows.text = embedText(p.rows.fields[0], p.rows.fields[1], p.rows.fields[2], p.rows.fields[3])
				return p
			}
			l, err := store.ParseFile(f.Path, data)
			if err != nil && !errors.As(err, &p.bad) {
				p.err = err
				return p
			}
			p.l = l
			p.step.kind = judgeParsed(s, err)
		}
	}
	if p.step.kind == stepAdd || p.step.kind == stepUpdate {
		p.rows = deriveRows(p.l, st, stems, given)
	}
	return p
}

// deriveRows computes a learning's term statistics, entities and
// identifiers: everything insert writes that depends on the learning
// alone.
func deriveRows(l *store.Learning, st *store.Store, stems map[string]string, given givenDocs) *derivedRows {
	// What reflect writes is redacted before it reaches documents/, but a
	// learning edited by hand (or pulled by sync from someone's editor)
	// may hold a secret: the catalog keeps only the redacted form, so no
	// secret is copied out of the file the user wrote. l is the index's
	// own parse of the file; the file is left as it is. The id stays the
	// file's: it names the file (Redact would derive a new one from a
	// redacted title).
	id := l.ID
	l.Redact()
	l.ID = id
	fields := indexedFields(l)
	r := &derivedRows{stats: computeStats(fields, stems), fields: fields}
	// A sidecar the writer of the learning provided names its entities;
	// an imported rule without one has those its import would have
	// written there; any other learning without one (or with a broken
	// one) has those graph.Extract finds in the text.
	sc, err := readSidecar(st, l, given)
	switch {
	case err == nil && sc != nil:
		sc.Redact()
	case errors.Is(err, fs.ErrNotExist) && l.ImportedRule():
		sc = store.ExtractedSidecar(l)
		sc.Redact()
	default:
		sc = graph.Extract(l)
	}
	r.sc = sc
	r.idents = Identifiers(strings.Join(fields[:], "\n"))
	r.commands = recordedCommands(l)
	return r
}

// readSidecar is st.ReadSidecar, or the sidecar its writer handed over
// when the file holds the bytes written.
func readSidecar(st *store.Store, l *store.Learning, given givenDocs) (*store.Sidecar, error) {
	if given[l.Path] == nil {
		return st.ReadSidecar(l.ID)
	}
	data, err := store.ReadDocument(st.SidecarPath(l.ID))
	if err != nil {
		return nil, err
	}
	if sc := given.sidecar(l.Path, data); sc != nil {
		return sc, nil
	}
	return store.ParseSidecar(data)
}
