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
	"strconv"
	"strings"
	"time"

	"github.com/reflectkb/reflect/index/graph"
	"github.com/reflectkb/reflect/index/vector"
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
	// given are the documents a Change's writer handed over (written.go).
	given givenDocs
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
		if err := beginBulk(ctx, tx, opts.Full); err != nil {
			return st, err
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
	defer vc.abort() // until the export commits it
	if err != nil {
		return st, err
	}
	if err := saveDigest(ctx, tx, dirStamp, dirDigest); err != nil {
		return st, err
	}
	w.close()
	if opts.Full {
		if err := ix.removeVectorFiles(); err != nil {
			return st, err
		}
	}
	if err := tx.Commit(); err != nil {
		return st, fmt.Errorf("reindex: commit: %w", err)
	}
	if err := ix.afterCommit(ctx, vc, opts, &st); err != nil {
		return st, err
	}
	st.Duration = time.Since(start)
	return st, nil
}

// removeVectorFiles removes vectors.f32 and its codes before a full
// reindex commits. A rebuild numbers rows from 1 again, so the old file's
// row numbers would name other learnings; should the export never happen,
// no file is better than that one (the next update writes it).
func (ix *Index) removeVectorFiles() error {
	for _, p := range []string{ix.vectorsPath(), vector.CodesPath(ix.vectorsPath())} {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("reindex: %w", err)
		}
	}
	return nil
}

// beginBulk readies the update's transaction for loading every learning
// anew: after a full reindex's clearAll, or into a catalog that has no
// learnings (Open's rebuild, the first update), whose graph and postings
// are emptied here instead.
func beginBulk(ctx context.Context, tx *sql.Tx, full bool) error {
	if !full {
		if err := graph.Reset(ctx, tx); err != nil {
			return fmt.Errorf("reindex: %w", err)
		}
		// No learning has postings, so none may be left: the
		// writer below then starts fresh, as after clearAll.
		if _, err := tx.ExecContext(ctx, `DELETE FROM postings`); err != nil {
			return fmt.Errorf("reindex: %w", err)
		}
	}
	if err := graph.BeginBulk(ctx, tx); err != nil {
		return err
	}
	// Built once at the end (applyPlan), sorted: the chunks are
	// written one after another, each into every term's range of
	// postings_term, which would otherwise take its inserts at random.
	if _, err := tx.ExecContext(ctx, `DROP INDEX IF EXISTS postings_term`); err != nil {
		return fmt.Errorf("reindex: %w", err)
	}
	return nil
}

// afterCommit is what an update does once its transaction is committed:
// the vector export, the retired tables' drop when asked, the WAL
// checkpoint and the last progress call.
func (ix *Index) afterCommit(ctx context.Context, vc vectorChanges, opts UpdateOptions, st *Stats) error {
	// A full export streams the table into the file (a few MB of heap at
	// 100,000 learnings); a patch holds the added vectors and a row header
	// per old row. Either way little is live, so the lower GOGC costs few
	// cycles here; it is kept for a patch of many rows.
	restore := tightenGC()
	err := ix.exportVectors(ctx, vc)
	restore()
	if err != nil {
		return err
	}
	if opts.DropRetired {
		if err := ix.dropRetired(ctx); err != nil {
			return err
		}
	}
	ix.checkpoint(ctx)
	if opts.Progress != nil {
		opts.Progress(st.Documents, st.Documents)
	}
	return nil
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
			return prepareStep(s, w.store, stems, opts.given)
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
	if vc.added, vc.respaced, vc.file, err = ix.embedMissing(ctx, tx, opts.EmbedProgress, w.texts); err != nil {
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
	for _, t := range []string{"docs", "tri", "stats", "postings", "norms", "vectors", "problems", "commands"} {
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

// readDocument reads a document file for indexing, with the reader every
// surface shares (store.ReadDocument). Anything that is not a regular file
// of at most store.MaxDocumentSize (a symbolic link, a FIFO, /dev/zero
// behind a link, a 50 MB log) is a problem to report (doctor lists it),
// not a reason to block, allocate, stop the reindex or index what a link
// points to; it is never read.
func readDocument(f store.FileInfo) (data []byte, problem string, err error) {
	data, err = store.ReadDocument(f.Path)
	var de *store.DocError
	switch {
	case err == nil:
		return data, "", nil
	case errors.Is(err, os.ErrNotExist):
		return nil, "", err
	case errors.As(err, &de):
		return nil, de.Reason, nil
	}
	return nil, err.Error(), nil
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
	insCmd, delCmd                 *sql.Stmt
	stems                          map[string]string
	post                           *postingsWriter
	tx                             *sql.Tx
	store                          *store.Store
	removed                        []int64 // rows removed, for exportVectors
	// texts are the embedding texts of inserted rows whose learning the
	// writer of a Change handed over (derivedRows.text), by row.
	texts map[int64]string
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
		{&w.insCmd, `INSERT OR IGNORE INTO commands(key,n) VALUES(?,?)`},
		{&w.delCmd, `DELETE FROM commands WHERE n=?`},
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
	for _, s := range []*sql.Stmt{w.insDoc, w.insTri, w.delDoc, w.delTri, w.insStats, w.delStats, w.delVec, w.insCmd, w.delCmd} {
		if s != nil {
			s.Close()
		}
	}
}

func (w *writer) remove(n int64) error {
	w.post.remove(n)
	for _, s := range []*sql.Stmt{w.delDoc, w.delTri, w.delStats, w.delVec, w.delCmd} {
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
	if r.text != "" {
		if w.texts == nil {
			w.texts = map[int64]string{}
		}
		w.texts[n] = r.text
	}
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
	for _, k := range r.commands {
		if _, err := w.insCmd.ExecContext(w.ctx, k, n); err != nil {
			return fmt.Errorf("index %s: %w", l.ID, err)
		}
	}
	return nil
}

// helpfulCount is what speaks for a learning in ranking: the user's
// helpful marks and the sessions that confirmed it, net of those that
// refuted it (docs/ranking.md).
func helpfulCount(l *store.Learning) int {
	if l.Feedback == nil {
		return 0
	}
	f := l.Feedback
	return f.Helpful + max(0, f.Confirmed-f.Refuted)
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
