package graph

import (
	"context"
	"fmt"
	"sort"
	"strings"
)

// EntityInfo describes an entity for 'reflect graph' and 'reflect show'.
type EntityInfo struct {
	Name        string `json:"name"`
	Type        string `json:"type"`
	Description string `json:"description,omitempty"`
	// Degree is the number of distinct entities it has a relation with.
	Degree int `json:"degree"`
	// Community is its Louvain community, numbered from 1 by size; 0 until
	// the next Rebuild for an entity added since the last one.
	Community int `json:"community"`
	// Documents is the number of learnings that mention it.
	Documents int `json:"documents"`
}

// Orders of List.
const (
	ByDocuments = "documents" // most mentioned first (the default)
	ByDegree    = "degree"    // most connected first
	ByName      = "name"
	ByCommunity = "community" // community by community, most mentioned first within each
)

// ListOptions filters and orders List.
type ListOptions struct {
	Type      string // only entities of this type
	Community int    // only this community (0: all)
	Sort      string // ByDocuments, ByDegree, ByName or ByCommunity
	Limit     int    // 0: all
}

var listOrder = map[string]string{
	"":          "docs DESC, e.norm",
	ByDocuments: "docs DESC, e.norm",
	ByDegree:    "degree DESC, docs DESC, e.norm",
	ByName:      "e.norm",
	ByCommunity: "community = 0, community, docs DESC, e.norm",
}

// infoColumns are the columns of an EntityInfo for the entity e; degree
// counts distinct neighbours over both directions of relations.
const infoColumns = `e.name, e.type, e.description,
	(SELECT count(*) FROM (SELECT dst FROM relations WHERE src = e.id UNION SELECT src FROM relations WHERE dst = e.id)) AS degree,
	coalesce((SELECT community FROM communities c WHERE c.entity = e.id), 0) AS community,
	e.df AS docs`

func scanInfo(scan func(...any) error, extra ...any) (EntityInfo, error) {
	var e EntityInfo
	err := scan(append([]any{&e.Name, &e.Type, &e.Description, &e.Degree, &e.Community, &e.Documents}, extra...)...)
	return e, err
}

// List returns the entities of the graph with their degree, community and
// number of learnings.
func List(ctx context.Context, db Conn, opts ListOptions) ([]EntityInfo, error) {
	order, ok := listOrder[opts.Sort]
	if !ok {
		return nil, fmt.Errorf("graph: unknown order %q; use %s, %s, %s or %s", opts.Sort, ByDocuments, ByDegree, ByName, ByCommunity)
	}
	limit := opts.Limit
	if limit <= 0 {
		limit = -1 // SQLite: no limit
	}
	rows, err := db.QueryContext(ctx, `SELECT `+infoColumns+` FROM entities e
		WHERE (?1 = '' OR e.type = ?1) AND (?2 = 0 OR community = ?2)
		ORDER BY `+order+` LIMIT ?3`, opts.Type, opts.Community, limit)
	if err != nil {
		return nil, fmt.Errorf("graph: list: %w", err)
	}
	defer rows.Close()
	var out []EntityInfo
	for rows.Next() {
		e, err := scanInfo(rows.Scan)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// RelatedDoc is a learning that shares entities with another.
type RelatedDoc struct {
	Doc    int64    `json:"doc"`    // rowid of the index's docs table
	Shared []string `json:"shared"` // the shared entities, rarest first
	Score  float64  `json:"score"`  // sum of the shared entities' damp weights
}

// Related returns the entities of the learning stored as docs row doc
// (by name) and up to limit other learnings that share entities with it,
// ranked by the summed damp weight of what they share, so sharing a rare
// error counts for more than sharing "git".
func Related(ctx context.Context, db Conn, doc int64, limit int) ([]EntityInfo, []RelatedDoc, error) {
	if limit <= 0 {
		limit = 10
	}
	rows, err := db.QueryContext(ctx, `SELECT `+infoColumns+`, e.id FROM entities e
		WHERE e.id IN (SELECT entity FROM mentions WHERE doc = ?) ORDER BY e.norm`, doc)
	if err != nil {
		return nil, nil, fmt.Errorf("graph: related: %w", err)
	}
	var ents []EntityInfo
	var ids []int64
	for rows.Next() {
		var id int64
		e, err := scanInfo(rows.Scan, &id)
		if err != nil {
			rows.Close()
			return nil, nil, err
		}
		ents = append(ents, e)
		ids = append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("graph: related: %w", err)
	}

	var args []any
	weight := map[string]float64{}
	for i, e := range ents {
		if e.Documents < 2 {
			continue // only this learning mentions it
		}
		weight[e.Name] = damp(e.Documents)
		args = append(args, ids[i], weight[e.Name], e.Name)
	}
	if len(args) == 0 {
		return ents, nil, nil
	}
	n := len(args) / 3
	args = append(args, doc, limit)
	// char(31), the unit separator, joins the names: Extract never yields
	// it, and a sidecar would have to escape it on purpose.
	rows, err = db.QueryContext(ctx, `WITH w(entity, weight, name) AS (VALUES (?,?,?)`+strings.Repeat(",(?,?,?)", n-1)+`)
		SELECT m.doc, sum(w.weight) AS score, group_concat(w.name, char(31))
		FROM w JOIN mentions m ON m.entity = w.entity
		WHERE m.doc <> ?
		GROUP BY m.doc ORDER BY score DESC, m.doc DESC LIMIT ?`, args...)
	if err != nil {
		return nil, nil, fmt.Errorf("graph: related: %w", err)
	}
	defer rows.Close()
	var related []RelatedDoc
	for rows.Next() {
		var r RelatedDoc
		var shared string
		if err := rows.Scan(&r.Doc, &r.Score, &shared); err != nil {
			return nil, nil, err
		}
		r.Shared = strings.Split(shared, "\x1f")
		sort.Slice(r.Shared, func(i, j int) bool {
			a, b := r.Shared[i], r.Shared[j]
			if weight[a] != weight[b] {
				return weight[a] > weight[b]
			}
			return a < b
		})
		related = append(related, r)
	}
	return ents, related, rows.Err()
}
