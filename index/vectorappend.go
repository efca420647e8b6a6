package index

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/reflectkb/reflect/index/vector"
)

// exportTargeted brings vectors.f32 in line with a targeted update: rows
// only added (an add, a hook's mini-learning) are appended to the file in
// place (appendVectors); removals go through exportVectors, which patches
// the file and renames it into place.
func (ix *Index) exportTargeted(ctx context.Context, added []vector.Row, gone []int64) error {
	if ix.opts.embedder == nil || (len(added) == 0 && len(gone) == 0) {
		return nil
	}
	if len(gone) == 0 {
		if ok, err := ix.appendVectors(ctx, added); ok || err != nil {
			return err
		}
	}
	ns := make([]int64, len(added))
	for i, r := range added {
		ns[i] = int64(r.Key)
	}
	return ix.exportVectors(ctx, vectorChanges{gone: gone, added: ns})
}

// appendVectors appends rows (sorted, all above the file's last key) to
// vectors.f32 when the file is the table's up to them: same embedder, and
// its last row the table's last below the new ones. Row numbers only grow
// (docs is AUTOINCREMENT; a full reindex removes the file), so the file
// stays sorted by key. It reports false, having written nothing, when the
// file is missing or out of step; the caller then rewrites it. Appending
// in place is safe for readers: one that mapped the file before keeps its
// count and length, and vector.Open takes a shared lock that Append's
// exclusive one excludes while the rows and then the header's count are
// written (vector.Append).
func (ix *Index) appendVectors(ctx context.Context, rows []vector.Row) (bool, error) {
	var stored string
	if err := ix.db.QueryRowContext(ctx, `SELECT value FROM meta WHERE key='embedder'`).Scan(&stored); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return false, nil
		}
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
	f.Close()
	if fileEmbedderID(h) != stored || h.Dim != len(rows[0].Vec) || rows[0].Key <= last {
		return false, nil
	}
	var below sql.NullInt64
	if err := ix.db.QueryRowContext(ctx, `SELECT max(n) FROM vectors WHERE n < ?`, int64(rows[0].Key)).Scan(&below); err != nil {
		return false, fmt.Errorf("vectors: %w", err)
	}
	if uint64(below.Int64) != last {
		return false, nil // an export was lost (a crash): rewrite from the table
	}
	beforeVectorWrite()
	switch err := vector.Append(path, h, count, rows); {
	case errors.Is(err, vector.ErrInvalid):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("vectors: %w", err)
	}
	ix.closeVectors()
	exported(true)
	return true, nil
}
