package index

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gofrs/flock"
	"github.com/reflectkb/reflect/index/graph"
	"github.com/reflectkb/reflect/index/vector"
	"github.com/reflectkb/reflect/internal/fsutil"
	"github.com/reflectkb/reflect/store"
)

// UpdateOptions tunes a reindex.
type UpdateOptions struct {
	// Full drops everything and indexes every document again.
	Full bool
	// Progress, when set, is called as documents are examined.
	Progress func(done, total int)
	// EmbedProgress, when set, is called as learnings are embedded (all of
	// them after a full reindex or a change of embedder).
	EmbedProgress func(done, total int)
	// Communities recomputes the entity graph's communities (Louvain), a
	// pass over the whole graph that 'reflect reindex' asks for and a
	// single added learning does not wait for. It runs when the graph has
	// never been grouped, on a full reindex, or once a tenth of the
	// learnings changed since the last grouping (staleCommunities); until
	// then new entities show community 0.
	Communities bool
	// DropRetired removes what an earlier version kept in index/ and this
	// one no longer reads (the HNSW graph): 'reflect reindex' asks for it.
	DropRetired bool
	// lockWait bounds the wait for another process's update (zero:
	// updateLockWait, or the Index's BusyWait when shorter); Refresh waits
	// only refreshLockWait.
	lockWait time.Duration
	// workers is the number of goroutines that read and parse documents
	// (zero: pipelineWorkers; one: in turn, on the writer's goroutine, as
	// the tests' reference).
	workers int
}

// Stats reports what a reindex did.
type Stats struct {
	Documents int               `json:"documents"` // .md files seen
	Indexed   int               `json:"indexed"`   // valid documents now in the index
	Added     int               `json:"added"`
	Updated   int               `json:"updated"`
	Removed   int               `json:"removed"`
	Unchanged int               `json:"unchanged"`
	Embedded  bool              `json:"embedded"` // vectors were (re)computed
	Graph     *graph.Stats      `json:"graph,omitempty"`
	Problems  []*store.DocError `json:"-"`
	Duration  time.Duration     `json:"-"`
}

type known struct {
	n     int64
	size  int64
	mtime int64
	hash  string
}

// Update brings the index in line with documents/: new and changed files are
// (re)indexed, deleted ones removed, unchanged ones (same size and mtime, or
// same content hash) cost a stat and nothing more. Malformed documents are
// reported in Stats.Problems and skipped; they never stop the reindex.
func (ix *Index) Update(ctx context.Context, opts UpdateOptions) (Stats, error) {
	// An update reads without the memory map: every catalog page read
	// through it stays in the process's resident set until exit, and a
	// full reindex (the communities, the vector export) or an add's scan
	// of the docs table reads most of the catalog, so peak RSS grew with
	// the KB, past a gigabyte at 100,000 learnings (docs/benchmarks.md).
	// Read with pread, pages go through SQLite's bounded page cache.
	// Searches after it in the same process get the map back.
	var st Stats
	err := ix.unmapped(ctx, func() error {
		// update may shrink the cache for its plan (planCache); the
		// connection goes back to the full cache after it either way.
		defer ix.db.ExecContext(context.WithoutCancel(ctx), fmt.Sprintf(`PRAGMA cache_size = %d`, -cacheKB))
		var err error
		st, err = ix.update(ctx, opts)
		if rerr := ix.recoverCorrupt(ctx, err); rerr != nil || err == nil {
			return rerr
		}
		st, err = ix.update(ctx, opts)
		return err
	})
	return st, err
}

// planCacheKB is the page cache an incremental update plans and starts
// writing with, and bigWriteDocs how many learnings it writes before it
// grows the cache back to cacheKB. Planning reads every docs row once, in
// id order (updatePlan.matchRows): through the full cache those pages all
// stayed resident, so a search that refreshed after a pull of one file at
// 100,000 learnings peaked at over 100 MB, of which 55 were cache; a
// cache the size of a few leaves reads them as fast (docs/benchmarks.md
// "Scale"). Writing many learnings inserts into the postings' and the
// graph's B-trees at random, which is what the full cache is for.
const planCacheKB = 8 << 10

var bigWriteDocs = 256 // a variable for tests

// planCache sets the update's page cache to planCacheKB.
func planCache(ctx context.Context, tx *sql.Tx) error {
	_, err := tx.ExecContext(ctx, fmt.Sprintf(`PRAGMA cache_size = %d`, -planCacheKB))
	return err
}

// thenUnmap runs fn reading through the memory map, then drops the map
// (SQLite maps the catalog again on its next read), so that the pages fn
// touched leave the resident set: fn's reads cost page faults instead of
// a pread and a copy each, and its pages do not add to those read after
// it. Within an update, which reads unmapped, it only runs fn.
func (ix *Index) thenUnmap(ctx context.Context, fn func() error) error {
	err := fn()
	if ix.unmapping.Load() == 0 {
		ix.db.ExecContext(context.WithoutCancel(ctx), `PRAGMA mmap_size = 0`)
		ix.db.ExecContext(context.WithoutCancel(ctx), fmt.Sprintf(`PRAGMA mmap_size = %d`, mmapSize))
	}
	return err
}

// unmapped runs fn with the catalog read through SQLite's page cache (pread)
// instead of the memory map, and maps it again afterwards unless an outer
// caller is still reading unmapped. Every page read through the map stays
// resident until exit, together with the pages the kernel maps around it
// (fault-around, 64 KB), so reads that touch many scattered pages cost less
// memory this way: one cached copy of each page, up to the cache's bound.
func (ix *Index) unmapped(ctx context.Context, fn func() error) error {
	if ix.unmapping.Add(1) == 1 {
		if _, err := ix.db.ExecContext(ctx, `PRAGMA mmap_size = 0`); err != nil {
			ix.unmapping.Add(-1)
			return fmt.Errorf("read unmapped: %w", err)
		}
	}
	defer func() {
		if ix.unmapping.Add(-1) == 0 {
			ix.db.ExecContext(context.WithoutCancel(ctx), fmt.Sprintf(`PRAGMA mmap_size = %d`, mmapSize))
		}
	}()
	return fn()
}

func (ix *Index) update(ctx context.Context, opts UpdateOptions) (Stats, error) {
	start := time.Now()
	var st Stats
	wait := opts.lockWait
	if wait <= 0 || (ix.opts.busyWait > 0 && ix.opts.busyWait < wait) {
		wait = ix.opts.busyWait
	}
	unlock, err := ix.lockUpdates(ctx, wait)
	if err != nil {
		return st, err
	}
	defer unlock()
	// The directory is listed only once the write lock is held (BEGIN
	// IMMEDIATE): a listing taken before could miss a document another
	// process indexed meanwhile, and this update would then remove it.
	tx, err := ix.db.BeginTx(ctx, nil)
	if err != nil {
		return st, fmt.Errorf("reindex: %w", err)
	}
	defer tx.Rollback()
	dirStamp := ix.settledStamp() // see dirprobe.go
	dirDigest := ix.docsDigest()
	if opts.Full {
		if err := clearAll(ctx, tx); err != nil {
			return st, err
		}
	}
	var indexed int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM docs`).Scan(&indexed); err != nil {
		return st, fmt.Errorf("reindex: %w", err)
	}
	// Every learning is new to the index (a full reindex, or the first
	// one, as Open's rebuild of a missing catalog): the graph is loaded in
	// bulk. Any entity left without learnings goes first.
	bulk := indexed == 0
	if !bulk {
		if err := planCache(ctx, tx); err != nil {
			return st, fmt.Errorf("reindex: %w", err)
		}
	}
	// The plan lists names only; each file is stat'ed on a worker when its
	// turn comes (prepareStep), and compared there with its row.
	ids, err := ix.store.IDs()
	if err != nil {
		return st, err
	}
	st.Documents = len(ids)
	if bulk {
		if !opts.Full {
			if err := graph.Reset(ctx, tx); err != nil {
				return st, fmt.Errorf("reindex: %w", err)
			}
			// No learning has postings, so none may be left: the
			// writer below then starts fresh, as after clearAll.
			if _, err := tx.ExecContext(ctx, `DELETE FROM postings`); err != nil {
				return st, fmt.Errorf("reindex: %w", err)
			}
		}
		if err := graph.BeginBulk(ctx, tx); err != nil {
			return st, err
		}
		// Built once at the end (applyPlan), sorted: the chunks are
		// written one after another, each into every term's range of
		// postings_term, which would otherwise take its inserts at random.
		if _, err := tx.ExecContext(ctx, `DROP INDEX IF EXISTS postings_term`); err != nil {
			return st, fmt.Errorf("reindex: %w", err)
		}
	}
	bad, err := loadProblems(ctx, tx)
	if err != nil {
		return st, err
	}
	// A fresh writer flushes each postings chunk once the row numbers
	// pass it. Open's rebuild of a missing catalog is not opts.Full but
	// is as fresh; holding all its chunks to the end was the largest part
	// of its heap, growing with the KB (3.3 KB a learning).
	w, err := newWriter(ctx, tx, bulk, ix.store)
	if err != nil {
		return st, err
	}
	defer w.close()

	plan := planListed(ids, bad, ix.store)
	if !bulk {
		if err := plan.matchRows(ctx, tx); err != nil {
			return st, err
		}
	}
	ids = nil // the plan's now; applyPlan lets each id go once written
	if err := w.applyPlan(ctx, plan, bad, bulk, opts, start, &st); err != nil {
		return st, err
	}
	vc, err := ix.refreshDerived(ctx, tx, w, dirStamp, opts, &st)
	if err != nil {
		return st, err
	}
	if err := saveDigest(ctx, tx, dirStamp, dirDigest); err != nil {
		return st, err
	}
	w.close()
	if opts.Full {
		// A rebuild numbers rows from 1 again, so the old file's row numbers
		// would name other learnings; should the export below never happen,
		// no file is better than that one (the next update writes it).
		for _, p := range []string{ix.vectorsPath(), vector.CodesPath(ix.vectorsPath())} {
			if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return st, fmt.Errorf("reindex: %w", err)
			}
		}
	}
	if err := tx.Commit(); err != nil {
		return st, fmt.Errorf("reindex: commit: %w", err)
	}
	// A full export streams the table into the file (a few MB of heap at
	// 100,000 learnings); a patch holds the added vectors and a row header
	// per old row. Either way little is live, so the lower GOGC costs few
	// cycles here; it is kept for a patch of many rows.
	restore := tightenGC()
	err = ix.exportVectors(ctx, vc)
	restore()
	if err != nil {
		return st, err
	}
	if opts.DropRetired {
		if err := ix.dropRetired(ctx); err != nil {
			return st, err
		}
	}
	ix.checkpoint(ctx)
	if opts.Progress != nil {
		opts.Progress(st.Documents, st.Documents)
	}
	st.Duration = time.Since(start)
	return st, nil
}

// applyPlan writes each step of plan in the update's transaction: the
// changed and new files, the removals, the problems of files now gone,
// then the postings and (bulk) the graph's indexes.
func (w *writer) applyPlan(ctx context.Context, plan updatePlan, bad map[string]problem, bulk bool, opts UpdateOptions, start time.Time, st *Stats) error {
	workers := opts.workers
	if workers == 0 {
		workers = pipelineWorkers()
	}
	// Reading and parsing run on a pool of workers; this goroutine writes
	// their results in the plan's order (pipeline.go).
	prepare := func() func(fileStep) prepared {
		stems := map[string]string{} // each worker's own cache
		return func(s fileStep) prepared {
			if len(stems) >= stemCacheBudget {
				clear(stems)
			}
			return prepareStep(s, w.store, stems)
		}
	}
	if err := pipeline(ctx, workers, plan.len(), plan.step, prepare, func(i int, p prepared) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if opts.Progress != nil {
			opts.Progress(i, plan.len())
		}
		err := w.apply(p, start, st)
		plan.done(i) // free its strings
		return err
	}); err != nil {
		return err
	}
	for _, k := range plan.gone {
		if err := w.remove(k.n); err != nil {
			return err
		}
		st.Removed++
	}
	for path := range bad {
		// A row naming a file outside documents/ came with a catalog
		// copied from another KB (cp -a, a restored backup): no step of
		// this one will ever clear it, and doctor would count it.
		_, err := os.Stat(path)
		if errors.Is(err, os.ErrNotExist) || filepath.Dir(path) != filepath.Clean(w.store.Dir) {
			if _, err := w.tx.ExecContext(ctx, `DELETE FROM problems WHERE path=?`, path); err != nil {
				return err
			}
		}
	}
	if err := w.post.flush(ctx, w.tx); err != nil {
		return err
	}
	if bulk {
		if _, err := w.tx.ExecContext(ctx, postingsTermIndex); err != nil {
			return fmt.Errorf("reindex: %w", err)
		}
		if err := graph.EndBulk(ctx, w.tx); err != nil {
			return err
		}
	}
	return nil
}

// refreshDerived brings what is derived from the documents up to date in
// the update's transaction: missing vectors, the communities, the corpus
// totals, the directory stamp and the count of indexed learnings. It
// returns the vector changes to export once the transaction commits.
func (ix *Index) refreshDerived(ctx context.Context, tx *sql.Tx, w *writer, dirStamp string, opts UpdateOptions, st *Stats) (vc vectorChanges, err error) {
	vc = vectorChanges{full: opts.Full, gone: w.removed}
	if vc.added, vc.respaced, err = ix.embedMissing(ctx, tx, opts.EmbedProgress); err != nil {
		return vc, err
	}
	st.Embedded = len(vc.added) > 0 || vc.respaced
	if st.Graph, err = ix.maybeRebuildCommunities(ctx, tx, opts, st.Added+st.Updated+st.Removed); err != nil {
		return vc, err
	}
	if st.Added+st.Updated+st.Removed > 0 || opts.Full {
		if err := saveCorpusTotals(ctx, tx); err != nil {
			return vc, err
		}
	}
	// Written only when it moved: a transaction that writes nothing leaves
	// nothing in the WAL for readers to checkpoint (see checkpoint).
	if _, err := tx.ExecContext(ctx, `INSERT INTO meta(key,value) VALUES('docs_stamp',?1)
		ON CONFLICT(key) DO UPDATE SET value=?1 WHERE value<>?1`, dirStamp); err != nil {
		return vc, err
	}
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM docs`).Scan(&st.Indexed); err != nil {
		return vc, err
	}
	return vc, nil
}

// clearAll empties every table a full reindex rebuilds, in its
// transaction.
func clearAll(ctx context.Context, tx *sql.Tx) error {
	for _, t := range []string{"docs", "tri", "stats", "postings", "norms", "vectors", "problems"} {
		if _, err := tx.ExecContext(ctx, "DELETE FROM "+t); err != nil {
			return fmt.Errorf("reindex: clear %s: %w", t, err)
		}
	}
	if err := graph.Reset(ctx, tx); err != nil {
		return fmt.Errorf("reindex: %w", err)
	}
	// Number from 1 again: row numbers index the postings' chunks and
	// the search's score arrays, which a rebuild should leave dense.
	if _, err := tx.ExecContext(ctx, `DELETE FROM sqlite_sequence WHERE name='docs'`); err != nil {
		return fmt.Errorf("reindex: %w", err)
	}
	return nil
}

// stepKind is what an update does with one document file.
type stepKind int

const (
	// stepUnchanged: same size and mtime as indexed; costs a stat.
	stepUnchanged stepKind = iota
	// stepStillMalformed: same size and mtime as when it was found
	// malformed; reported again, never read, and any stale indexed copy
	// is removed.
	stepStillMalformed
	// stepExamine: new or changed by its stat; its content decides
	// (judgeContent), so planUpdate never returns it as a final step.
	stepExamine
	// stepGone: deleted between the listing and the read.
	stepGone
	// stepMalformed: not a valid learning (unreadable, too large, not a
	// regular file, or failing to parse); recorded in problems.
	stepMalformed
	// stepTouch: same content under a new mtime; only the mtime is
	// recorded.
	stepTouch
	// stepParse: content differs from the indexed copy (or there is none);
	// a parse error makes it stepMalformed, success stepUpdate or stepAdd.
	stepParse
	// stepUpdate: changed content of an indexed learning.
	stepUpdate
	// stepAdd: a learning the index has not seen.
	stepAdd
)

// fileStep is one file of an update's plan, with what the index recorded
// about it.
type fileStep struct {
	file    store.FileInfo
	kind    stepKind
	indexed bool    // the index holds a row for this learning
	row     known   // that row, when indexed
	wasBad  bool    // the problems table holds this path
	prior   problem // that problem, when wasBad
	// unstated: file has its path and id but no stat yet (planFresh);
	// prepareStep takes it and classifies the step then.
	unstated bool
}

// updatePlan is what an update does, decided from the listing and what
// the index recorded, before any document is read.
type updatePlan struct {
	files []fileStep // in listing order
	gone  []known    // indexed rows whose file is no longer listed, by row
	// ids replaces files in Update: the documents listed, sorted, whose
	// steps step makes one at a time, with rows[i] what the index holds
	// for ids[i] (matchRows; nil for an index with no rows). An id and its
	// row cost about 130 bytes where a stat'ed step with its map entry
	// cost about 500, most of a reindex's memory at 1,000,000 learnings
	// (docs/benchmarks.md).
	ids   []string
	rows  []planRow
	bad   map[string]problem // for ids' steps
	store *store.Store       // for ids' paths
}

// planRow is what a plan keeps of an indexed row: no id (its position
// names it), the content hash as bytes.
type planRow struct {
	n, size, mtime int64
	hash           [sha256.Size]byte
	indexed        bool
	hashOK         bool // hash held a hex SHA-256 (else it matches nothing)
}

// len is the number of steps.
func (p updatePlan) len() int {
	if p.ids != nil {
		return len(p.ids)
	}
	return len(p.files)
}

// step is step i. One made from ids is unstated: prepareStep stats its
// file and classifies it as planUpdate would (byStat).
func (p updatePlan) step(i int) fileStep {
	if p.ids == nil {
		return p.files[i]
	}
	path := p.store.Path(p.ids[i])
	prior, wasBad := p.bad[path]
	s := fileStep{file: store.FileInfo{ID: p.ids[i], Path: path}, kind: stepExamine, wasBad: wasBad, prior: prior, unstated: true}
	if p.rows != nil && p.rows[i].indexed {
		r := p.rows[i]
		s.indexed = true
		s.row = known{n: r.n, size: r.size, mtime: r.mtime}
		if r.hashOK {
			s.row.hash = hex.EncodeToString(r.hash[:])
		}
	}
	return s
}

// done lets step i's strings go once it is written.
func (p updatePlan) done(i int) {
	if p.ids != nil {
		p.ids[i] = ""
	} else {
		p.files[i] = fileStep{}
	}
}

// planListed is the plan of an update over the sorted ids listed in
// documents/: for an index with no rows, every file is to examine (or
// still malformed, as its stat will show); otherwise matchRows adds the
// rows.
func planListed(ids []string, bad map[string]problem, st *store.Store) updatePlan {
	if ids == nil {
		ids = []string{}
	}
	return updatePlan{ids: ids, bad: bad, store: st}
}

// matchRows reads the docs rows in id order beside the sorted ids: each
// listed id gets its row, and a row whose id is not listed is gone. The
// rows are read once and never held by id.
func (p *updatePlan) matchRows(ctx context.Context, tx *sql.Tx) error {
	rows, err := tx.QueryContext(ctx, `SELECT n, id, size, mtime, hash FROM docs ORDER BY id`)
	if err != nil {
		return fmt.Errorf("reindex: %w", err)
	}
	defer rows.Close()
	p.rows = make([]planRow, len(p.ids))
	i := 0
	var id, hash sql.RawBytes // no string per row
	for rows.Next() {
		var r planRow
		if err := rows.Scan(&r.n, &id, &r.size, &r.mtime, &hash); err != nil {
			return fmt.Errorf("reindex: %w", err)
		}
		for i < len(p.ids) && p.ids[i] < string(id) {
			i++
		}
		if i == len(p.ids) || p.ids[i] != string(id) {
			p.gone = append(p.gone, known{n: r.n})
			continue
		}
		r.indexed = true
		if len(hash) == 2*sha256.Size {
			_, err := hex.Decode(r.hash[:], hash)
			r.hashOK = err == nil
		}
		p.rows[i] = r
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("reindex: %w", err)
	}
	sort.Slice(p.gone, func(i, j int) bool { return p.gone[i].n < p.gone[j].n })
	return nil
}

// planUpdate classifies each listed file by its stat against the index's
// rows (have) and recorded problems (bad): unchanged, still malformed, or
// to examine; and finds the rows whose file is gone. It is pure: no
// reads, no writes.
func planUpdate(files []store.FileInfo, have map[string]known, bad map[string]problem) updatePlan {
	p := updatePlan{files: make([]fileStep, 0, len(files))}
	listed := make(map[string]bool, len(files))
	for _, f := range files {
		k, indexed := have[f.ID]
		listed[f.ID] = true
		prior, wasBad := bad[f.Path]
		s := fileStep{file: f, kind: stepExamine, indexed: indexed, row: k, wasBad: wasBad, prior: prior}
		s.kind = s.byStat()
		p.files = append(p.files, s)
	}
	for id, k := range have {
		if !listed[id] {
			p.gone = append(p.gone, k)
		}
	}
	sort.Slice(p.gone, func(i, j int) bool { return p.gone[i].n < p.gone[j].n })
	return p
}

// byStat is the step a file's stat decides: unchanged (the same size and
// mtime as its row), still malformed (as its recorded problem), or to
// examine.
func (s fileStep) byStat() stepKind {
	f := s.file
	mtime := f.ModTime.UnixNano()
	switch {
	case s.indexed && s.row.size == f.Size && s.row.mtime == mtime:
		return stepUnchanged
	case s.wasBad && s.prior.size == f.Size && s.prior.mtime == mtime:
		return stepStillMalformed
	}
	return stepExamine
}

// judgeContent decides what to do with a file that was examined, from the
// outcome of readDocument: gone (readErr wraps os.ErrNotExist), malformed
// (a problem), unchanged content (same hash as the indexed row), or to
// parse. It is pure; any other read error is the caller's to return.
func judgeContent(s fileStep, readErr error, problem, hash string) stepKind {
	switch {
	case errors.Is(readErr, os.ErrNotExist):
		return stepGone
	case problem != "":
		return stepMalformed
	case s.indexed && s.row.hash == hash:
		return stepTouch
	}
	return stepParse
}

// judgeParsed is the step of a file whose content was parsed: malformed
// when parsing failed, otherwise an update of its indexed row or an add.
func judgeParsed(s fileStep, parseErr error) stepKind {
	switch {
	case parseErr != nil:
		return stepMalformed
	case s.indexed:
		return stepUpdate
	}
	return stepAdd
}

// apply carries out one file's step of the plan in the update's
// transaction, counting what it did in st. A file the plan left to
// examine was read by prepareStep, and its content settled the step
// (judgeContent, judgeParsed); start is the update's start, for
// stableMtime.
func (w *writer) apply(p prepared, start time.Time, st *Stats) error {
	if p.err != nil {
		return p.err
	}
	s, f, l, bad, hash := p.step, p.step.file, p.l, p.bad, p.hash
	mtime := f.ModTime.UnixNano()
	switch s.kind {
	case stepUnchanged:
		st.Unchanged++
	case stepStillMalformed:
		st.Problems = append(st.Problems, &store.DocError{Path: f.Path, Reason: s.prior.reason})
		if s.indexed {
			// still malformed: make sure no stale copy stays searchable
			return w.remove(s.row.n)
		}
	case stepGone: // deleted while we scanned
		if s.indexed {
			if err := w.remove(s.row.n); err != nil {
				return err
			}
			st.Removed++
		}
	case stepMalformed:
		st.Problems = append(st.Problems, bad)
		if _, err := w.tx.ExecContext(w.ctx, `INSERT OR REPLACE INTO problems(path,size,mtime,reason) VALUES(?,?,?,?)`, f.Path, f.Size, mtime, bad.Reason); err != nil {
			return err
		}
		if s.indexed {
			if err := w.remove(s.row.n); err != nil {
				return err
			}
			st.Removed++
		}
	case stepTouch:
		if _, err := w.tx.ExecContext(w.ctx, `UPDATE docs SET mtime=? WHERE n=?`, stableMtime(mtime, start), s.row.n); err != nil {
			return err
		}
		st.Unchanged++
	case stepUpdate, stepAdd:
		if s.wasBad {
			if _, err := w.tx.ExecContext(w.ctx, `DELETE FROM problems WHERE path=?`, f.Path); err != nil {
				return err
			}
		}
		if s.kind == stepUpdate {
			if err := w.remove(s.row.n); err != nil {
				return err
			}
			st.Updated++
		} else {
			st.Added++
		}
		if st.Added+st.Updated == bigWriteDocs {
			// Enough to write that the full cache pays (planCacheKB).
			if _, err := w.tx.ExecContext(w.ctx, fmt.Sprintf(`PRAGMA cache_size = %d`, -cacheKB)); err != nil {
				return err
			}
		}
		return w.insertRows(l, p.rows, f.Size, stableMtime(mtime, start), hash)
	default:
		return fmt.Errorf("reindex: %s: no step %d", f.Path, s.kind)
	}
	return nil
}

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
	lockPoll        = 5 * time.Millisecond
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
	fl := flock.New(filepath.Join(filepath.Dir(ix.path), "update.lock"), flock.SetPermissions(fsutil.FilePerm))
	ok, err := fl.TryLock()
	if err == nil && !ok {
		if ix.opts.onBusy != nil {
			ix.opts.onBusy(wait)
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
		return nil, fmt.Errorf("%w (index/update.lock held for over %s)", ErrBusy, wait)
	default:
		_ = fl.Close()
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

// racyWindow is how close to the reindex a file's mtime may be before the
// mtime is not trusted: a file written in the same tick as the last reindex
// could change again without changing size or mtime (git's "racily clean"
// problem).
const racyWindow = 2 * time.Second

// stableMtime is the mtime to record: 0 (never equal to a real mtime, so
// the next update compares hashes) when the file changed within racyWindow
// of this reindex.
func stableMtime(mtime int64, now time.Time) int64 {
	if now.UnixNano()-mtime < int64(racyWindow) {
		return 0
	}
	return mtime
}

// readDocument reads a document file for indexing. Anything that is not a
// regular file of at most store.MaxDocumentSize (a FIFO, a directory behind
// a symlink, a 50 MB log) is a problem to report, not a reason to block,
// allocate, or stop the reindex; it is never read.
func readDocument(f store.FileInfo) (data []byte, problem string, err error) {
	fi, err := os.Stat(f.Path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, "", err
		}
		return nil, err.Error(), nil
	}
	if !fi.Mode().IsRegular() {
		return nil, "not a regular file", nil
	}
	if fi.Size() > store.MaxDocumentSize {
		return nil, fmt.Sprintf("file is %d bytes, more than the %d a learning may have", fi.Size(), store.MaxDocumentSize), nil
	}
	data, err = os.ReadFile(f.Path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, "", err
		}
		return nil, err.Error(), nil
	}
	if len(data) > store.MaxDocumentSize {
		return nil, "file grew past the size limit while being read", nil
	}
	return data, "", nil
}

func hashOf(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

type problem struct {
	size, mtime int64
	reason      string
}

func loadProblems(ctx context.Context, tx *sql.Tx) (map[string]problem, error) {
	rows, err := tx.QueryContext(ctx, `SELECT path, size, mtime, reason FROM problems`)
	if err != nil {
		return nil, fmt.Errorf("reindex: %w", err)
	}
	defer rows.Close()
	out := map[string]problem{}
	for rows.Next() {
		var path string
		var p problem
		if err := rows.Scan(&path, &p.size, &p.mtime, &p.reason); err != nil {
			return nil, err
		}
		out[path] = p
	}
	return out, rows.Err()
}

// writer holds the prepared statements of one reindex transaction.
type writer struct {
	ctx                            context.Context
	insDoc, insTri, delDoc, delTri *sql.Stmt
	insStats, delStats, delVec     *sql.Stmt
	stems                          map[string]string
	post                           *postingsWriter
	tx                             *sql.Tx
	store                          *store.Store
	removed                        []int64 // rows removed, for exportVectors
}

// newWriter prepares the statements; fresh says the tables were emptied
// by this transaction (a full reindex).
func newWriter(ctx context.Context, tx *sql.Tx, fresh bool, st *store.Store) (*writer, error) {
	w := &writer{ctx: ctx, stems: map[string]string{}, post: newPostingsWriter(fresh), tx: tx, store: st}
	for _, p := range []struct {
		dst **sql.Stmt
		sql string
	}{
		{&w.insDoc, `INSERT INTO docs(id,path,size,mtime,hash,title,key_insight,type,confidence,scope,project,tags,updated,cites,hold,helpful,feedback)
			VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`},
		{&w.insTri, `INSERT INTO tri(rowid,ident) VALUES(?,?)`},
		{&w.delDoc, `DELETE FROM docs WHERE n=?`},
		{&w.delTri, `DELETE FROM tri WHERE rowid=?`},
		{&w.insStats, `INSERT INTO stats(n,l0,l1,l2,l3) VALUES(?,?,?,?,?)`},
		{&w.delStats, `DELETE FROM stats WHERE n=?`},
		{&w.delVec, `DELETE FROM vectors WHERE n=?`},
	} {
		s, err := tx.PrepareContext(ctx, p.sql)
		if err != nil {
			w.close()
			return nil, fmt.Errorf("reindex: prepare: %w", err)
		}
		*p.dst = s
	}
	return w, nil
}

func (w *writer) close() {
	for _, s := range []*sql.Stmt{w.insDoc, w.insTri, w.delDoc, w.delTri, w.insStats, w.delStats, w.delVec} {
		if s != nil {
			s.Close()
		}
	}
}

func (w *writer) remove(n int64) error {
	w.post.remove(n)
	for _, s := range []*sql.Stmt{w.delDoc, w.delTri, w.delStats, w.delVec} {
		if _, err := s.ExecContext(w.ctx, n); err != nil {
			return fmt.Errorf("reindex: remove: %w", err)
		}
	}
	if err := graph.RemoveDocument(w.ctx, w.tx, n); err != nil {
		return fmt.Errorf("reindex: remove: %w", err)
	}
	w.removed = append(w.removed, n)
	return nil
}

// insertRows writes learning l as a new row, with r, its rows derived
// beforehand (deriveRows): its docs row, full text, term statistics,
// postings, entities and identifiers.
func (w *writer) insertRows(l *store.Learning, r *derivedRows, size, mtime int64, hash string) error {
	cites, _ := json.Marshal(l.Cites)
	if l.Cites == nil {
		cites = []byte("[]")
	}
	updated := l.Updated
	if updated.IsZero() {
		updated = l.Created
	}
	res, err := w.insDoc.ExecContext(w.ctx, l.ID, l.Path, size, mtime, hash, l.Title, l.KeyInsight,
		orDefault(l.Type, "learning"), l.Confidence, l.Scope, l.Project,
		strings.Join(l.Tags, ","), updated.UTC().Format(time.RFC3339), string(cites), l.Held(), helpfulCount(l), l.Feedback.String())
	if err != nil {
		return fmt.Errorf("index %s: %w", l.ID, err)
	}
	n, err := res.LastInsertId()
	if err != nil {
		return err
	}
	if _, err := w.insStats.ExecContext(w.ctx, n, r.stats.lens[0], r.stats.lens[1], r.stats.lens[2], r.stats.lens[3]); err != nil {
		return fmt.Errorf("index %s: %w", l.ID, err)
	}
	if err := w.post.startDoc(w.ctx, w.tx, n); err != nil {
		return err
	}
	w.post.add(n, r.stats)
	// n is a new row (an update removed the old one): it has no graph
	// rows to replace.
	if err := graph.AddNewDocument(w.ctx, w.tx, n, r.sc, l); err != nil {
		return fmt.Errorf("index %s: %w", l.ID, err)
	}
	if len(r.idents) > 0 {
		if _, err := w.insTri.ExecContext(w.ctx, n, strings.Join(r.idents, "\n")); err != nil {
			return fmt.Errorf("index %s: %w", l.ID, err)
		}
	}
	return nil
}

func helpfulCount(l *store.Learning) int {
	if l.Feedback == nil {
		return 0
	}
	return l.Feedback.Helpful
}

func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

// staleCommunities is the share of learnings that may change before
// 'reflect reindex' groups the entities again: Louvain over 10,000
// learnings takes a quarter of a second, which a reindex after one edit
// should not pay, while a tenth of new learnings can move communities.
const staleCommunities = 0.1

// maybeRebuildCommunities counts the learnings changed since the entities
// were last grouped and regroups them when opts asks and it is due.
func (ix *Index) maybeRebuildCommunities(ctx context.Context, tx *sql.Tx, opts UpdateOptions, changed int) (*graph.Stats, error) {
	var pending, docs int
	var never bool
	var v string
	switch err := tx.QueryRowContext(ctx, `SELECT value FROM meta WHERE key='graph_changes'`).Scan(&v); {
	case errors.Is(err, sql.ErrNoRows):
		never = true
	case err != nil:
		return nil, fmt.Errorf("reindex: %w", err)
	default:
		pending, _ = strconv.Atoi(v)
	}
	pending += changed
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM docs`).Scan(&docs); err != nil {
		return nil, fmt.Errorf("reindex: %w", err)
	}
	var gs *graph.Stats
	if opts.Communities && (never || opts.Full || float64(pending) > staleCommunities*float64(docs)) {
		s, err := graph.Rebuild(ctx, tx)
		if err != nil {
			return nil, fmt.Errorf("reindex: %w", err)
		}
		gs, pending = &s, 0
	} else if never {
		return nil, nil // nothing grouped yet: the first reindex will
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO meta(key,value) VALUES('graph_changes',?1)
		ON CONFLICT(key) DO UPDATE SET value=?1 WHERE value<>?1`, strconv.Itoa(pending)); err != nil {
		return nil, fmt.Errorf("reindex: %w", err)
	}
	return gs, nil
}

// exportGCPercent is the GOGC of the vector export: what a patch holds is
// live until it is done, and the default lets the heap reach twice that
// before collecting (docs/benchmarks.md). Collecting at a quarter more
// costs more GC cycles in that phase, and holds at any scale, where a
// fixed memory limit under the live heap would collect without end.
const exportGCPercent = 25

// tightenGC lowers GOGC to exportGCPercent until restore is called; a
// lower GOGC, or none (off), is left as it is.
func tightenGC() (restore func()) {
	old := debug.SetGCPercent(exportGCPercent)
	if old < 0 || old <= exportGCPercent {
		debug.SetGCPercent(old)
		return func() {}
	}
	return func() { debug.SetGCPercent(old) }
}

// checkpoint empties the WAL after a writer is done. The WAL file is kept
// between processes (see driverName), and SQLite checkpoints on closing
// the last connection whenever the WAL holds frames: without this, every
// hook that only read would copy pages and fsync three times on its way
// out (a millisecond, and tens when the disk is busy), and every reader
// would look pages up in the WAL until then. A reader holding the WAL
// back only makes this a partial checkpoint, which the next writer
// finishes: not an error.
func (ix *Index) checkpoint(ctx context.Context) {
	_, _ = ix.db.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`)
}
