package index

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"

	"github.com/reflectkb/reflect/index/vector"
)

// maxTombstones is the share of vectors.f32's rows that may be tombstones
// (rows of removed learnings, zeroed in place) before a targeted update
// rewrites the file without them: they cost the exact scan their floats.
const maxTombstones = 0.25

// exportTargeted brings vectors.f32 in line with a targeted update by
// patching it in place (patchVectorsInPlace): new rows appended, removed
// ones zeroed. When that cannot be done, exportVectors writes a new file
// and renames it into place.
func (ix *Index) exportTargeted(ctx context.Context, added []vector.Row, gone []int64) error {
	if ix.opts.embedder == nil || (len(added) == 0 && len(gone) == 0) {
		return nil
	}
	if ok, err := ix.patchVectorsInPlace(ctx, added, gone); ok || err != nil {
		return err
	}
	// exportVectors tries in place again only after reading the rows
	// back, which is not worth avoiding on this rare path.
	ns := make([]int64, len(added))
	for i, r := range added {
		ns[i] = int64(r.Key)
	}
	return ix.exportVectors(ctx, vectorChanges{gone: gone, added: ns})
}

// patchVectorsInPlace appends rows (sorted, all above the file's last key)
// to vectors.f32 and zeroes the rows of gone (vector.Patch), when the file
// is the table's up to them: same embedder, and the table's last row below
// the new ones in the file (an export lost to a crash shows there). Row
// numbers only grow (docs is AUTOINCREMENT; a full reindex removes the
// file), so the file stays sorted by key. It reports false, having
// written nothing, when the file is missing or out of step, or would hold
// more than maxTombstones of tombstones; the caller then rewrites it.
// The number of tombstones is kept in meta.vector_tombstones, which a
// rewrite deletes.
func (ix *Index) patchVectorsInPlace(ctx context.Context, rows []vector.Row, gone []int64) (bool, error) {
	var stored string
	if err := ix.db.QueryRowContext(ctx, `SELECT value FROM meta WHERE key='embedder'`).Scan(&stored); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return false, nil
		}
		return false, fmt.Errorf("vectors: %w", err)
	}
	var dead int
	var v string
	if err := ix.db.QueryRowContext(ctx, `SELECT value FROM meta WHERE key='vector_tombstones'`).Scan(&v); err == nil {
		dead, _ = strconv.Atoi(v)
	} else if !errors.Is(err, sql.ErrNoRows) {
		return false, fmt.Errorf("vectors: %w", err)
	}
	path := ix.vectorsPath()
	f, err := vector.Open(path)
	if err != nil {
		return false, nil
	}
	h, count := f.Header(), f.Len()
	var last uint64
	if count > 0 {
		last = f.Key(count - 1)
	}
	var idx []int
	for _, n := range gone {
		if i, ok := f.Find(uint64(n)); ok {
			idx = append(idx, i)
		}
	}
	inFile := func(n int64) bool { _, ok := f.Find(uint64(n)); return ok }
	ok := fileEmbedderID(h) == stored && float64(dead+len(idx)) <= maxTombstones*float64(count+len(rows))
	if ok && len(rows) > 0 {
		var below sql.NullInt64
		if err := ix.db.QueryRowContext(ctx, `SELECT max(n) FROM vectors WHERE n < ?`, int64(rows[0].Key)).Scan(&below); err != nil {
			f.Close()
			return false, fmt.Errorf("vectors: %w", err)
		}
		ok = h.Dim == len(rows[0].Vec) && rows[0].Key > last && (!below.Valid || inFile(below.Int64))
	}
	f.Close()
	if !ok {
		return false, nil
	}
	beforeVectorWrite()
	switch err := vector.Patch(path, h, count, idx, rows); {
	case errors.Is(err, vector.ErrInvalid):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("vectors: %w", err)
	}
	ix.closeVectors()
	if len(idx) > 0 {
		if _, err := ix.db.ExecContext(ctx, `INSERT OR REPLACE INTO meta(key,value) VALUES('vector_tombstones',?)`, strconv.Itoa(dead+len(idx))); err != nil {
			return true, fmt.Errorf("vectors: %w", err)
		}
	}
	exported(true)
	return true, nil
}
