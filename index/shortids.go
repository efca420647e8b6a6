package index

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/reflectkb/reflect/internal/shortid"
	"github.com/reflectkb/reflect/store"
)

// tailExpr is an id's part after its last '-' in SQL: rtrim with every
// character of the id but '-' strips back to the last '-'. docs_tail
// indexes it, and a query uses that index only when it spells the
// expression the same way, so both are built from this constant.
const tailExpr = `substr(id, length(rtrim(id, replace(id, '-', ''))) + 1)`

// docsTailIndex lets ShortIDs find the learnings whose own tail starts
// with a given tail without reading every id (schema 13).
const docsTailIndex = `CREATE INDEX IF NOT EXISTS docs_tail ON docs(` + tailExpr + `)`

// rivalsQuery finds the ids a tail could name as shortid.Resolve reads a
// reference: ids that start with it (?1..?2), with the kind and it
// (?3..?4), or whose own tail starts with it (?1..?2 on docs_tail). Each
// arm is a range on an index, so the cost does not grow with the KB;
// UNION drops an id two arms both find.
const rivalsQuery = `SELECT id FROM docs WHERE id >= ?1 AND id < ?2
	UNION SELECT id FROM docs WHERE id >= ?3 AND id < ?4
	UNION SELECT id FROM docs WHERE ` + tailExpr + ` >= ?1 AND ` + tailExpr + ` < ?2`

// ShortIDs returns the short form of each of ids (shortid.Short) among the
// learnings of the catalog and the malformed documents it recorded, which
// are the documents on disk once the catalog is fresh. Unlike Short over
// store.IDs it lists no directory and reads no id but the few that share
// each id's tail, so printing the short ids of a search's results costs
// the same at 100,000 learnings as at 100.
func (ix *Index) ShortIDs(ctx context.Context, ids []string) (map[string]string, error) {
	out := make(map[string]string, len(ids))
	var malformed []string
	loaded := false
	for _, id := range ids {
		tail, ok := shortid.Tail(id)
		if !ok {
			out[id] = id
			continue
		}
		if !loaded {
			var err error
			if malformed, err = ix.malformedIDs(ctx); err != nil {
				return nil, err
			}
			loaded = true
		}
		rivals, err := ix.rivals(ctx, tail)
		if err != nil {
			return nil, err
		}
		rivals = append(rivals, shortid.Rivals(tail, malformed, store.IDKind)...)
		out[id] = shortid.Short(id, rivals, store.IDKind)
	}
	return out, nil
}

// rivals returns the catalog's ids that could match tail as a reference
// (a superset is fine: shortid.Short checks each one again).
func (ix *Index) rivals(ctx context.Context, tail string) ([]string, error) {
	kinded := store.IDKind + tail
	rows, err := ix.db.QueryContext(ctx, rivalsQuery, tail, prefixEnd(tail), kinded, prefixEnd(kinded))
	if err != nil {
		return nil, fmt.Errorf("short ids: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

// malformedIDs returns the ids of the documents recorded as malformed:
// they are on disk, and a reference may name them (to forget them), so
// their ids count when deciding whether a tail is unique.
func (ix *Index) malformedIDs(ctx context.Context) ([]string, error) {
	rows, err := ix.db.QueryContext(ctx, `SELECT path FROM problems`)
	if err != nil {
		return nil, fmt.Errorf("short ids: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var path sql.NullString
		if err := rows.Scan(&path); err != nil {
			return nil, err
		}
		name := filepath.Base(path.String)
		if id, ok := strings.CutSuffix(name, ".md"); ok && !strings.HasPrefix(name, ".") {
			out = append(out, id)
		}
	}
	return out, rows.Err()
}

// prefixEnd returns the least string greater than every string that
// starts with p (SQLite compares text bytewise), or "\xff…" past them all
// when p is all 0xff bytes, which no hex tail is.
func prefixEnd(p string) string {
	b := []byte(p)
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] < 0xff {
			b[i]++
			return string(b[:i+1])
		}
	}
	return p + "\xff"
}
