package index

import (
	"context"
	"fmt"

	"github.com/reflectkb/reflect/store"
)

// PendingFilter says what a search or a listing does with the drafts that
// await review (status: pending, held as store.StatusPending): they are
// not the user's knowledge yet, so they are found only when asked for.
type PendingFilter uint8

const (
	// PendingHidden leaves pending drafts out (the default).
	PendingHidden PendingFilter = iota
	// PendingShown lists them with the rest, marked by their Held.
	PendingShown
	// PendingOnly lists nothing else (the review inbox).
	PendingOnly
)

// keeps reports whether a learning held as held passes the filter.
func (f PendingFilter) keeps(held string) bool {
	switch f {
	case PendingShown:
		return true
	case PendingOnly:
		return held == store.StatusPending
	}
	return held != store.StatusPending
}

// sql is the WHERE condition on the docs table's hold column.
func (f PendingFilter) sql() string {
	switch f {
	case PendingShown:
		return "1"
	case PendingOnly:
		return "hold = '" + store.StatusPending + "'"
	}
	return "hold <> '" + store.StatusPending + "'"
}

// PendingIDs returns the ids of the drafts awaiting review, oldest first
// (the order a reviewer reads them in).
func (ix *Index) PendingIDs(ctx context.Context) ([]string, error) {
	rows, err := ix.db.QueryContext(ctx, `SELECT id FROM docs WHERE `+PendingOnly.sql()+` ORDER BY updated, id`)
	if err != nil {
		return nil, fmt.Errorf("pending learnings: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("pending learnings: %w", err)
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

// PendingCount is how many drafts await review.
func (ix *Index) PendingCount(ctx context.Context) (int, error) {
	var n int
	err := ix.db.QueryRowContext(ctx, `SELECT count(*) FROM docs WHERE `+PendingOnly.sql()).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("pending learnings: %w", err)
	}
	return n, nil
}
