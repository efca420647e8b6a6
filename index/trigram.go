package index

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"strings"
)

// trigramRerank lists the candidates whose identifiers contain one of
// idents (case-insensitively, as the trigram table matches), with the
// share of idents each contains, most first, then best lexical score: the
// trigram list of a Rerank search. The identifiers are read from the
// table's content store (FTS5's documented %_content shadow table) by row
// number: through the virtual table, a lookup of a few hundred rows took
// most of a millisecond.
func (ix *Index) trigramRerank(ctx context.Context, idents []string, cands map[int64]*Why) ([]hit, error) {
	args := make([]any, 0, len(cands))
	for n := range cands {
		args = append(args, n)
	}
	rows, err := ix.db.QueryContext(ctx,
		`SELECT id, c0 FROM tri_content WHERE id IN (?`+strings.Repeat(",?", len(args)-1)+`)`, args...)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	hits, err := identifierHits(rows, idents)
	if err != nil {
		return nil, err
	}
	sort.Slice(hits, func(i, j int) bool {
		a, b := hits[i], hits[j]
		if a.score != b.score {
			return a.score > b.score
		}
		if ca, cb := cands[a.n].BM25, cands[b.n].BM25; ca != cb {
			return ca > cb
		}
		return a.n < b.n
	})
	return hits, nil
}

// trigram matches identifiers, paths and error codes as substrings: the
// learnings that contain the most of idents, in FTS5's order among equals.
func (ix *Index) trigram(ctx context.Context, idents []string, limit int) ([]hit, error) {
	var quoted []string
	for _, id := range idents {
		quoted = append(quoted, `"`+strings.ReplaceAll(id, `"`, `""`)+`"`)
	}
	rows, err := ix.db.QueryContext(ctx,
		`SELECT rowid, ident FROM tri WHERE tri MATCH ? ORDER BY rank LIMIT ?`, strings.Join(quoted, " OR "), limit)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	hits, err := identifierHits(rows, idents)
	if err != nil {
		return nil, err
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].score > hits[j].score })
	return hits, nil
}

// identifierHits reads rows of (row number, identifiers text) and scores
// each by the share of idents its text contains, case-insensitively;
// rows containing none are left out. It closes rows.
func identifierHits(rows *sql.Rows, idents []string) ([]hit, error) {
	defer rows.Close()
	lower := make([]string, len(idents))
	for i, id := range idents {
		lower[i] = strings.ToLower(id)
	}
	var hits []hit
	for rows.Next() {
		var n int64
		var text string
		if err := rows.Scan(&n, &text); err != nil {
			return nil, err
		}
		text = strings.ToLower(text)
		found := 0
		for _, id := range lower {
			if strings.Contains(text, id) {
				found++
			}
		}
		if found > 0 {
			hits = append(hits, hit{n: n, score: float64(found) / float64(len(lower)), matched: found})
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	return hits, nil
}
