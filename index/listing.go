package index

import (
	"context"
	"fmt"

	"github.com/reflectkb/reflect/store"
)

// ListOptions filters List.
type ListOptions struct {
	Limit   int
	Project string
	// Pending says whether drafts awaiting review are listed.
	Pending PendingFilter
}

// List returns indexed learnings, most recently updated first.
func (ix *Index) List(ctx context.Context, opts ListOptions) ([]Result, error) {
	if opts.Limit <= 0 {
		opts.Limit = 50
	}
	query := `SELECT ` + metaColumns + ` FROM docs WHERE ` + opts.Pending.sql()
	var args []any
	if opts.Project != "" {
		query += ` AND project = ? COLLATE NOCASE`
		args = append(args, opts.Project)
	}
	query += ` ORDER BY updated DESC, id LIMIT ?`
	args = append(args, opts.Limit)
	rows, err := ix.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("list: %w", err)
	}
	defer rows.Close()
	var out []Result
	for rows.Next() {
		_, r, err := scanMeta(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// Counts summarises the catalog for doctor and status.
type Counts struct {
	Learnings int `json:"learnings"`
	Mini      int `json:"mini"`
	Problems  int `json:"problems"`
	// Pending is how many drafts await review ('reflect review').
	Pending int `json:"pending"`
}

// Count returns how many learnings are indexed and how many documents were
// found malformed at the last reindex.
func (ix *Index) Count(ctx context.Context) (Counts, error) {
	var c Counts
	err := ix.db.QueryRowContext(ctx, `SELECT count(*), count(*) FILTER (WHERE type='mini'), count(*) FILTER (WHERE `+PendingOnly.sql()+`) FROM docs`).Scan(&c.Learnings, &c.Mini, &c.Pending)
	if err != nil {
		return c, err
	}
	err = ix.db.QueryRowContext(ctx, `SELECT count(*) FROM problems`).Scan(&c.Problems)
	return c, err
}

// Holds reports whether the catalog has a learning with this id. The
// surfaces that hand a learning to a model or a browser (the MCP server,
// the web view) serve only what the index accepted: a file the indexer
// refused (a symbolic link, a FIFO, an oversize file) is not served even
// when its name looks like a learning's.
func (ix *Index) Holds(ctx context.Context, id string) (bool, error) {
	var n int
	err := ix.db.QueryRowContext(ctx, `SELECT count(*) FROM docs WHERE id = ?`, id).Scan(&n)
	return n > 0, err
}

// DocCount is the number of indexed learnings as of the last reindex, read
// from one stored row: cheaper than Count on every hook.
func (ix *Index) DocCount(ctx context.Context) (int, error) {
	cs, err := loadCorpusStats(ctx, ix.db)
	return cs.docs, err
}

// Problems lists the malformed documents recorded by the last reindex.
func (ix *Index) Problems(ctx context.Context) ([]*store.DocError, error) {
	rows, err := ix.db.QueryContext(ctx, `SELECT path, reason FROM problems ORDER BY path`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*store.DocError
	for rows.Next() {
		var e store.DocError
		if err := rows.Scan(&e.Path, &e.Reason); err != nil {
			return nil, err
		}
		out = append(out, &e)
	}
	return out, rows.Err()
}

// Check runs SQLite's integrity check; "ok" means healthy. The error
// wraps ErrBusy when another process's update kept it from checking.
func (ix *Index) Check(ctx context.Context) (string, error) {
	var res string
	err := ix.db.QueryRowContext(ctx, `PRAGMA quick_check`).Scan(&res)
	if err != nil {
		return "", err
	}
	var tri string
	if _, err := ix.db.ExecContext(ctx, `INSERT INTO tri(tri, rank) VALUES('integrity-check', 1)`); isLocked(err) {
		// The check is a write, and another process's update (a rebuild
		// holds its transaction for as long as it runs) has the lock: the
		// index is being made, not damaged.
		return res, fmt.Errorf("trigram index not checked: %w", ErrBusy)
	} else if err != nil {
		tri = "; trigram index: " + err.Error()
	}
	return res + tri, nil
}
