package graph

import (
	"context"
	"fmt"
	"sort"
	"strings"
)

// ViewNode is an entity drawn in a graph view.
type ViewNode struct {
	ID        int64  `json:"id"`
	Name      string `json:"name"`
	Type      string `json:"type"`
	Community int    `json:"community"`
	// Degree is the number of entities it is related to in the whole
	// graph, not only in the view, so its size means the same in every
	// view (see degrees for how it is counted).
	Degree    int `json:"degree"`
	Documents int `json:"documents"`
}

// ViewEdge joins two nodes of a view; relations between the same two
// entities, in either direction, are summed into one edge.
type ViewEdge struct {
	Source   int64   `json:"source"`
	Target   int64   `json:"target"`
	Strength float64 `json:"strength"`
}

// ViewOptions chooses the part of the graph a view shows. A view is a
// bounded subgraph: a browser stays responsive with a few hundred nodes,
// not with the tens of thousands of entities of a large knowledge base.
type ViewOptions struct {
	// Focus, when non-zero, is an entity id: the view is that entity and
	// its strongest neighbours. Otherwise the view is the most mentioned
	// entities of the largest communities.
	Focus int64
	// Communities is how many of the largest communities an overview
	// draws (communities are numbered from 1 by size); 0 means 8.
	Communities int
	// Type keeps only entities of this type (the focus is always kept).
	Type string
	// Nodes caps the nodes of the view; 0 means 200.
	Nodes int
	// Edges is how many of its strongest edges each node keeps; 0 means 3.
	// Entities extracted from text co-occur densely: 120 entities of a
	// 10,000-learning KB had 6,000 relations among them, which a
	// force-directed layout needs seconds to settle and a canvas cannot
	// pan smoothly.
	Edges int
}

// View is a bounded subgraph of the entity graph: its nodes and the
// relations among them.
type View struct {
	Nodes []ViewNode `json:"nodes"`
	Edges []ViewEdge `json:"edges"`
	// Total is the number of entities in the whole graph, so a view can
	// say how much it leaves out.
	Total int `json:"total"`
	// EdgesCut says the view drops weaker relations among its nodes.
	EdgesCut bool `json:"edges_cut,omitempty"`
}

// BuildView selects the nodes opts asks for and the relations among them.
func BuildView(ctx context.Context, db Conn, opts ViewOptions) (*View, error) {
	if opts.Nodes <= 0 {
		opts.Nodes = 200
	}
	if opts.Edges <= 0 {
		opts.Edges = 3
	}
	if opts.Communities <= 0 {
		opts.Communities = 8
	}
	v := &View{Nodes: []ViewNode{}, Edges: []ViewEdge{}}
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM entities`).Scan(&v.Total); err != nil {
		return nil, fmt.Errorf("graph: view: %w", err)
	}
	var ids []int64
	var err error
	if opts.Focus != 0 {
		ids, err = neighbourhood(ctx, db, opts)
	} else {
		ids, err = overview(ctx, db, opts)
	}
	if err != nil || len(ids) == 0 {
		return v, err
	}
	in := placeholders(len(ids))
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	rows, err := db.QueryContext(ctx, `SELECT e.id, e.name, e.type, e.df,
		coalesce((SELECT community FROM communities c WHERE c.entity = e.id), 0)
		FROM entities e WHERE e.id IN (`+in+`) ORDER BY e.id`, args...)
	if err != nil {
		return nil, fmt.Errorf("graph: view: %w", err)
	}
	for rows.Next() {
		var n ViewNode
		if err := rows.Scan(&n.ID, &n.Name, &n.Type, &n.Documents, &n.Community); err != nil {
			rows.Close()
			return nil, err
		}
		v.Nodes = append(v.Nodes, n)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("graph: view: %w", err)
	}
	if err := degrees(ctx, db, v.Nodes, in, args); err != nil {
		return nil, err
	}
	edges, err := viewEdges(ctx, db, in, args)
	if err != nil {
		return nil, err
	}
	v.Edges, v.EdgesCut = strongest(edges, opts.Edges)
	return v, nil
}

type pair struct{ a, b int64 }

// viewEdges returns the undirected edges among the view's nodes and their
// strength: the relations written, both directions folded into one, and
// one unit per learning that mentions both ends. A writer's sidecar often
// names entities and no relations, and a view of those would be dots
// without a line. Co-occurrence is counted here, from the nodes' mentions
// (a covering read of the primary key), not by a self-join of mentions,
// which took tens of seconds on the hubs of a 10,000-learning graph.
func viewEdges(ctx context.Context, db Conn, in string, args []any) (map[pair]float64, error) {
	w := map[pair]float64{}
	rows, err := db.QueryContext(ctx, `SELECT min(src, dst), max(src, dst), CAST(sum(st) AS REAL) FROM relations
		WHERE src IN (`+in+`) AND dst IN (`+in+`) AND src <> dst GROUP BY 1, 2`, append(args, args...)...)
	if err != nil {
		return nil, fmt.Errorf("graph: view: %w", err)
	}
	for rows.Next() {
		var p pair
		var s float64
		if err := rows.Scan(&p.a, &p.b, &s); err != nil {
			rows.Close()
			return nil, err
		}
		w[p] += s
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("graph: view: %w", err)
	}
	rows, err = db.QueryContext(ctx, `SELECT entity, doc FROM mentions WHERE entity IN (`+in+`)`, args...)
	if err != nil {
		return nil, fmt.Errorf("graph: view: %w", err)
	}
	byDoc := map[int64][]int64{}
	for rows.Next() {
		var e, d int64
		if err := rows.Scan(&e, &d); err != nil {
			rows.Close()
			return nil, err
		}
		byDoc[d] = append(byDoc[d], e)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("graph: view: %w", err)
	}
	for _, es := range byDoc {
		for i, a := range es {
			for _, b := range es[i+1:] {
				if a > b {
					w[pair{b, a}]++
				} else if a < b {
					w[pair{a, b}]++
				}
			}
		}
	}
	return w, nil
}

// strongest keeps the edges that are among the k strongest of either
// end, so every node stays attached to its closest neighbours, in order
// of their ends; cut says some were left out.
func strongest(w map[pair]float64, k int) (kept []ViewEdge, cut bool) {
	ends := map[int64][]pair{}
	for p := range w {
		ends[p.a] = append(ends[p.a], p)
		ends[p.b] = append(ends[p.b], p)
	}
	keep := map[pair]bool{}
	for _, ps := range ends {
		sort.Slice(ps, func(i, j int) bool {
			if w[ps[i]] != w[ps[j]] {
				return w[ps[i]] > w[ps[j]]
			}
			if ps[i].a != ps[j].a {
				return ps[i].a < ps[j].a
			}
			return ps[i].b < ps[j].b
		})
		for _, p := range ps[:min(k, len(ps))] {
			keep[p] = true
		}
	}
	kept = make([]ViewEdge, 0, len(keep))
	for p := range keep {
		kept = append(kept, ViewEdge{Source: p.a, Target: p.b, Strength: w[p]})
	}
	sort.Slice(kept, func(i, j int) bool {
		if kept[i].Source != kept[j].Source {
			return kept[i].Source < kept[j].Source
		}
		return kept[i].Target < kept[j].Target
	})
	return kept, len(kept) < len(w)
}

// degrees fills in each node's degree: the distinct entities it relates
// to plus those that relate to it, each direction counted on its covering
// index. A neighbour related both ways counts twice, which a node's size
// can afford; the exact count (List's, a union per entity) took 1.6 s for
// the 120 hubs of a 10,000-learning graph with 274,000 relations.
func degrees(ctx context.Context, db Conn, nodes []ViewNode, in string, args []any) error {
	deg := map[int64]int{}
	for _, q := range []string{
		`SELECT src, count(DISTINCT dst) FROM relations WHERE src IN (` + in + `) GROUP BY src`,
		`SELECT dst, count(DISTINCT src) FROM relations WHERE dst IN (` + in + `) GROUP BY dst`,
	} {
		rows, err := db.QueryContext(ctx, q, args...)
		if err != nil {
			return fmt.Errorf("graph: view: %w", err)
		}
		for rows.Next() {
			var id int64
			var d int
			if err := rows.Scan(&id, &d); err != nil {
				rows.Close()
				return err
			}
			deg[id] += d
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("graph: view: %w", err)
		}
	}
	for i := range nodes {
		nodes[i].Degree = deg[nodes[i].ID]
	}
	return nil
}

// overview picks the most mentioned entities of the largest communities,
// so the view shows the clusters that hold most of the knowledge base.
// Entities not grouped yet (added since the last reindex) are drawn too,
// uncoloured: a new knowledge base has no communities at all.
func overview(ctx context.Context, db Conn, opts ViewOptions) ([]int64, error) {
	return queryIDs(ctx, db, `SELECT e.id FROM entities e LEFT JOIN communities c ON c.entity = e.id
		WHERE coalesce(c.community, 0) <= ?1 AND (?2 = '' OR e.type = ?2) AND e.df > 0
		ORDER BY e.df DESC, e.id LIMIT ?3`, opts.Communities, opts.Type, opts.Nodes)
}

// neighbourhood is the focus entity and its neighbours, strongest
// relation first.
func neighbourhood(ctx context.Context, db Conn, opts ViewOptions) ([]int64, error) {
	ids, err := queryIDs(ctx, db, `SELECT n FROM (
			SELECT dst AS n, st FROM relations WHERE src = ?1 AND dst <> ?1
			UNION ALL SELECT src, st FROM relations WHERE dst = ?1 AND src <> ?1) r
		JOIN entities e ON e.id = r.n WHERE ?2 = '' OR e.type = ?2
		GROUP BY n ORDER BY sum(st) DESC, n LIMIT ?3`, opts.Focus, opts.Type, opts.Nodes-1)
	if err != nil {
		return nil, err
	}
	var exists int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM entities WHERE id = ?`, opts.Focus).Scan(&exists); err != nil {
		return nil, fmt.Errorf("graph: view: %w", err)
	}
	if exists == 0 {
		return nil, nil
	}
	return append([]int64{opts.Focus}, ids...), nil
}

// Mentioning returns the docs rows of up to limit learnings that mention
// entity id, most recently indexed first.
func Mentioning(ctx context.Context, db Conn, id int64, limit int) ([]int64, error) {
	return queryIDs(ctx, db, `SELECT doc FROM mentions WHERE entity = ? ORDER BY doc DESC LIMIT ?`, id, limit)
}

func queryIDs(ctx context.Context, db Conn, query string, args ...any) ([]int64, error) {
	rows, err := db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("graph: view: %w", err)
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?,", n), ",")
}
