package index

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/reflectkb/reflect/index/vector"
	"github.com/reflectkb/reflect/store"
)

// A targeted update indexes (or removes) exactly the documents a Change
// covers (knowledge's Put wrote them, or its Forget deleted them), in one transaction under the update lock, through the
// same writer as Update (planUpdate and applyPlan over those files only),
// so an add or a forget costs what it changes, not what the KB holds: no
// listing of documents/ with a stat per file, no read of every docs row,
// no rewrite of vectors.f32 for an addition (it is appended to), corpus
// totals adjusted by the rows' lengths instead of summed again.
// Whatever it cannot do that way (an index never built, vectors of another
// embedder to redo) falls back to the full incremental Update.

// ownNames are the directory entries of ids' documents and sidecars.
func (ix *Index) ownNames(ids []string) map[string]bool {
	m := make(map[string]bool, 2*len(ids))
	for _, id := range ids {
		m[filepath.Base(ix.store.Path(id))] = true
		m[filepath.Base(ix.store.SidecarPath(id))] = true
	}
	return m
}

// updateDocs brings the index in line with the documents of ids, which the
// caller just wrote or deleted after taking pre (probeDocs).
func (ix *Index) updateDocs(ctx context.Context, ids []string, pre dirProbe, given givenDocs) error {
	done, err := ix.targeted(ctx, ids, pre, given)
	switch {
	case done:
		return err
	case errors.Is(err, ErrBusy), ctx.Err() != nil:
		return err
	}
	// Not possible here, or it failed (a damaged catalog, say): the full
	// incremental update, which also recovers a corrupt catalog.
	_, err = ix.Update(ctx, UpdateOptions{given: given})
	return err
}

// targeted is updateDocs' transaction; done is false (and nothing
// written) when the full update must do it instead.
func (ix *Index) targeted(ctx context.Context, ids []string, pre dirProbe, given givenDocs) (done bool, err error) {
	start := time.Now()
	unlock, err := ix.lockUpdates(ctx, ix.opts.busyWait)
	if err != nil {
		return false, err
	}
	defer unlock()
	tx, err := ix.db.BeginTx(ctx, nil)
	if err != nil {
		return false, fmt.Errorf("index: %w", err)
	}
	defer tx.Rollback()
	stored, err := metaValue(ctx, tx, "docs_stamp")
	if err != nil || stored == "" {
		return false, err // never indexed: the first update lists everything
	}
	if ok, err := ix.sameEmbedder(ctx, tx); err != nil || !ok {
		return false, err
	}
	names := ix.ownNames(ids)
	files, have, bad, inos, err := ix.targetRows(ctx, tx, ids)
	if err != nil {
		return false, err
	}
	lens, err := rowLens(ctx, tx, have)
	if err != nil {
		return false, err
	}
	w, err := newWriter(ctx, tx, false, ix.store)
	if err != nil {
		return false, err
	}
	defer w.close()
	var st Stats
	if err := w.applyPlan(ctx, planUpdate(files, have, bad), bad, false, UpdateOptions{given: given}, start, &st); err != nil {
		return false, err
	}
	added, err := newRows(ctx, tx, ids, have)
	if err != nil {
		return false, err
	}
	if err := adjustCorpusTotals(ctx, tx, lens, w.removed, added); err != nil {
		return false, err
	}
	vecs, err := ix.embedRows(ctx, tx, added, w.texts)
	if err != nil {
		return false, err
	}
	// What maybeRebuildCommunities does when not asked to regroup, without
	// counting the learnings: the changes since the last grouping, once
	// there was one.
	if changed := st.Added + st.Updated + st.Removed; changed > 0 {
		if _, err := tx.ExecContext(ctx, `UPDATE meta SET value = CAST(CAST(value AS INTEGER) + ? AS TEXT) WHERE key='graph_changes'`, changed); err != nil {
			return false, fmt.Errorf("index: %w", err)
		}
	}
	if s, d := ix.confirmDocs(pre, stored, names, inos); s != "" {
		if _, err := tx.ExecContext(ctx, `UPDATE meta SET value=?1 WHERE key='docs_stamp' AND value<>?1`, s); err != nil {
			return false, err
		}
		if err := saveDigest(ctx, tx, s, d); err != nil {
			return false, err
		}
	}
	w.close()
	if err := tx.Commit(); err != nil {
		return false, fmt.Errorf("index: commit: %w", err)
	}
	err = ix.exportTargeted(ctx, vecs, w.removed)
	ix.checkpoint(ctx)
	return true, err
}

func metaValue(ctx context.Context, tx *sql.Tx, key string) (string, error) {
	var v string
	err := tx.QueryRowContext(ctx, `SELECT value FROM meta WHERE key=?`, key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return v, err
}

// sameEmbedder reports whether the vectors table is of the configured
// embedder (or there is none), so only the new rows need embedding.
func (ix *Index) sameEmbedder(ctx context.Context, tx *sql.Tx) (bool, error) {
	e := ix.opts.embedder
	if e == nil {
		return true, nil
	}
	if e.Dim() <= 0 {
		return false, nil // a remote embedder that has not answered yet
	}
	stored, err := metaValue(ctx, tx, "embedder")
	return stored == embedderID(e), err
}

// targetRows is what the index and the directory know of ids: the files
// that exist (as Scan would list them), their docs rows and problems,
// and each document's inode (0: absent), for confirmDocs.
func (ix *Index) targetRows(ctx context.Context, tx *sql.Tx, ids []string) ([]store.FileInfo, map[string]known, map[string]problem, map[string]uint64, error) {
	var files []store.FileInfo
	have := map[string]known{}
	bad := map[string]problem{}
	inos := map[string]uint64{}
	for _, id := range ids {
		path := ix.store.Path(id)
		inos[filepath.Base(path)] = 0
		if fi, err := os.Lstat(path); err == nil && !fi.IsDir() {
			files = append(files, store.FileInfo{ID: id, Path: path, Size: fi.Size(), ModTime: fi.ModTime()})
			inos[filepath.Base(path)] = inodeOf(fi)
		}
		var k known
		switch err := tx.QueryRowContext(ctx, `SELECT n, size, mtime, hash FROM docs WHERE id=?`, id).Scan(&k.n, &k.size, &k.mtime, &k.hash); {
		case err == nil:
			have[id] = k
		case !errors.Is(err, sql.ErrNoRows):
			return nil, nil, nil, nil, fmt.Errorf("index: %w", err)
		}
		var p problem
		switch err := tx.QueryRowContext(ctx, `SELECT size, mtime, reason FROM problems WHERE path=?`, path).Scan(&p.size, &p.mtime, &p.reason); {
		case err == nil:
			bad[path] = p
		case !errors.Is(err, sql.ErrNoRows):
			return nil, nil, nil, nil, fmt.Errorf("index: %w", err)
		}
	}
	sort.Slice(files, func(i, j int) bool { return files[i].ID < files[j].ID })
	return files, have, bad, inos, nil
}

// newRows are the docs rows of ids the update inserted.
func newRows(ctx context.Context, tx *sql.Tx, ids []string, had map[string]known) ([]int64, error) {
	var out []int64
	for _, id := range ids {
		var n int64
		switch err := tx.QueryRowContext(ctx, `SELECT n FROM docs WHERE id=?`, id).Scan(&n); {
		case errors.Is(err, sql.ErrNoRows):
		case err != nil:
			return nil, fmt.Errorf("index: %w", err)
		default:
			if k, ok := had[id]; !ok || k.n != n {
				out = append(out, n)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out, nil
}

// rowLens reads the field lengths of the indexed rows, before the update
// may remove them.
func rowLens(ctx context.Context, tx *sql.Tx, have map[string]known) (map[int64][numFields]int64, error) {
	out := map[int64][numFields]int64{}
	for _, k := range have {
		l, ok, err := statsLens(ctx, tx, k.n)
		if err != nil {
			return nil, err
		}
		if ok {
			out[k.n] = l
		}
	}
	return out, nil
}

func statsLens(ctx context.Context, tx *sql.Tx, n int64) ([numFields]int64, bool, error) {
	var l [numFields]int64
	err := tx.QueryRowContext(ctx, `SELECT l0, l1, l2, l3 FROM stats WHERE n=?`, n).Scan(&l[0], &l[1], &l[2], &l[3])
	if errors.Is(err, sql.ErrNoRows) {
		return l, false, nil
	}
	if err != nil {
		return l, false, fmt.Errorf("index: totals: %w", err)
	}
	return l, true, nil
}

// adjustCorpusTotals updates meta.field_totals (saveCorpusTotals' count
// and per-field sums over the stats table) by the rows removed (their
// lengths read before, in lens) and added, instead of summing the table
// again. Without recorded totals it sums them.
func adjustCorpusTotals(ctx context.Context, tx *sql.Tx, lens map[int64][numFields]int64, removed, added []int64) error {
	if len(removed) == 0 && len(added) == 0 {
		return nil
	}
	v, err := metaValue(ctx, tx, "field_totals")
	if err != nil {
		return fmt.Errorf("index: totals: %w", err)
	}
	var n int64
	var sums [numFields]int64
	if _, err := fmt.Sscan(v, &n, &sums[0], &sums[1], &sums[2], &sums[3]); err != nil {
		return saveCorpusTotals(ctx, tx)
	}
	for _, r := range removed {
		if l, ok := lens[r]; ok {
			n--
			for i := range sums {
				sums[i] -= l[i]
			}
		}
	}
	for _, a := range added {
		l, ok, err := statsLens(ctx, tx, a)
		if err != nil {
			return err
		}
		if ok {
			n++
			for i := range sums {
				sums[i] += l[i]
			}
		}
	}
	totals := fmt.Sprintf("%d %d %d %d %d", n, sums[0], sums[1], sums[2], sums[3])
	_, err = tx.ExecContext(ctx, `INSERT OR REPLACE INTO meta(key,value) VALUES('field_totals',?)`, totals)
	return err
}

// embedRows embeds the rows ns (just inserted) in the update's
// transaction and returns their vectors for the export.
func (ix *Index) embedRows(ctx context.Context, tx *sql.Tx, ns []int64, known map[int64]string) ([]vector.Row, error) {
	e := ix.opts.embedder
	if e == nil || len(ns) == 0 {
		return nil, nil
	}
	ins, err := tx.PrepareContext(ctx, `INSERT OR REPLACE INTO vectors(n, v) VALUES(?,?)`)
	if err != nil {
		return nil, fmt.Errorf("index: vectors: %w", err)
	}
	defer ins.Close()
	var out []vector.Row
	for lo := 0; lo < len(ns); lo += embedBatch {
		part := ns[lo:min(lo+embedBatch, len(ns))]
		args := make([]any, len(part))
		for i, n := range part {
			args[i] = n
		}
		batch, texts, err := loadTexts(ctx, tx, known, `d.n IN (?`+strings.Repeat(",?", len(part)-1)+`)`, args...)
		if err != nil {
			return nil, err
		}
		vecs, err := e.Embed(ctx, texts)
		if err != nil {
			return nil, fmt.Errorf("index: embed with %s: %w", e.Name(), err)
		}
		if len(vecs) != len(batch) {
			return nil, fmt.Errorf("index: embed with %s: %d vectors for %d texts", e.Name(), len(vecs), len(batch))
		}
		for i, v := range vecs {
			if _, err := ins.ExecContext(ctx, batch[i], ix.storedVector(v)); err != nil {
				return nil, fmt.Errorf("index: vectors: %w", err)
			}
			out = append(out, vector.Row{Key: uint64(batch[i]), Vec: v})
		}
	}
	return out, nil
}
