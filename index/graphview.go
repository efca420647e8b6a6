package index

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/reflectkb/reflect/index/graph"
)

// Entities lists the entity graph's entities ('reflect graph').
func (ix *Index) Entities(ctx context.Context, opts graph.ListOptions) ([]graph.EntityInfo, error) {
	return graph.List(ctx, ix.db, opts)
}

// RelatedLearning is a learning that shares entities with another.
type RelatedLearning struct {
	ID     string   `json:"id"`
	Title  string   `json:"title"`
	Shared []string `json:"shared"` // the shared entities, rarest first
	Score  float64  `json:"score"`
}

// ErrNotIndexed is returned for a learning id the index does not hold.
var ErrNotIndexed = errors.New("learning not in the index")

// Related returns the entities of learning id and up to limit learnings
// that share entities with it, the rarest shared entities counting most
// ('reflect show').
func (ix *Index) Related(ctx context.Context, id string, limit int) ([]graph.EntityInfo, []RelatedLearning, error) {
	var n int64
	err := ix.db.QueryRowContext(ctx, `SELECT n FROM docs WHERE id = ?`, id).Scan(&n)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil, fmt.Errorf("%s: %w", id, ErrNotIndexed)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("related: %w", err)
	}
	ents, docs, err := graph.Related(ctx, ix.db, n, limit)
	if err != nil {
		return nil, nil, err
	}
	ns := make([]int64, len(docs))
	for i, d := range docs {
		ns[i] = d.Doc
	}
	metas, err := ix.loadMeta(ctx, ns, metaColumns, scanMeta)
	if err != nil {
		return nil, nil, err
	}
	out := make([]RelatedLearning, 0, len(docs))
	for _, d := range docs {
		if m, ok := metas[d.Doc]; ok {
			out = append(out, RelatedLearning{ID: m.ID, Title: m.Title, Shared: d.Shared, Score: d.Score})
		}
	}
	return ents, out, nil
}

// GraphView is a bounded subgraph of the entity graph for drawing
// ('reflect ui'): an overview of the largest communities or one entity's
// neighbourhood (see graph.ViewOptions).
func (ix *Index) GraphView(ctx context.Context, opts graph.ViewOptions) (*graph.View, error) {
	return graph.BuildView(ctx, ix.db, opts)
}

// EntityLearnings lists up to limit learnings that mention the entity
// with id entity (a graph.ViewNode's ID), most recently indexed first.
func (ix *Index) EntityLearnings(ctx context.Context, entity int64, limit int) ([]Result, error) {
	ns, err := graph.Mentioning(ctx, ix.db, entity, limit)
	if err != nil {
		return nil, err
	}
	metas, err := ix.loadMeta(ctx, ns, metaColumns, scanMeta)
	if err != nil {
		return nil, err
	}
	out := make([]Result, 0, len(ns))
	for _, n := range ns {
		if m, ok := metas[n]; ok {
			out = append(out, m)
		}
	}
	return out, nil
}
