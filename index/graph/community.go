package graph

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"time"

	"gonum.org/v1/gonum/graph/community"
)

// Stats reports what Rebuild did.
type Stats struct {
	Entities    int           `json:"entities"`
	Edges       int           `json:"edges"` // distinct entity pairs with a weight
	Communities int           `json:"communities"`
	Modularity  float64       `json:"modularity"` // Q of the partition, -0.5 to 1
	Duration    time.Duration `json:"-"`
}

// Edge weights of the community graph. Co-mention is the main signal and
// is normalised per learning: each entity of a learning with k entities
// gets 1/(k-1) towards each of the others, so a learning that lists many
// entities weighs no more than one that lists few. A relation adds its
// strength/10 on top: a writer saying how two things relate is worth more
// than their sharing a learning.
const relationWeight = 0.1

// knn is how many of its strongest edges each entity keeps for Louvain.
const knn = 8

// louvainSeed makes Louvain deterministic: the same catalog gives the same
// communities on every machine, so 'reflect graph' output is stable.
const louvainSeed = 0x5eed

// Rebuild recomputes the communities of all entities with gonum's Louvain
// modularity optimisation over an undirected weighted graph of entities,
// whose edges are co-mentions within a learning plus relations (see
// relationWeight). Louvain sees the entities of 2 to hubDocs learnings,
// each with its knn strongest edges; hubs and single-learning entities
// then join their heaviest neighbour's community. Rebuild first removes
// entities no learning mentions. Communities are numbered from 1, largest
// first; an entity added after the last Rebuild has community 0 until the
// next one. Run it once per reindex, after the AddDocument calls, in the
// same transaction.
func Rebuild(ctx context.Context, tx Conn) (Stats, error) {
	start := time.Now()
	var st Stats
	if _, err := tx.ExecContext(ctx, `DELETE FROM entities WHERE NOT EXISTS (SELECT 1 FROM mentions WHERE entity = entities.id)`); err != nil {
		return st, fmt.Errorf("graph: rebuild: %w", err)
	}
	ids, dfs, err := entityIDs(ctx, tx)
	if err != nil {
		return st, err
	}
	st.Entities = len(ids)
	dense := make(map[int64]int64, len(ids))
	for i, id := range ids {
		dense[id] = int64(i)
	}
	weights, err := edgeWeights(ctx, tx, dense)
	if err != nil {
		return st, err
	}
	st.Edges = len(weights)

	// Louvain runs on the core of the graph only. Hubs ("git", "docker",
	// in more than hubDocs learnings) are adjacent to everything, so they
	// say nothing about which entities belong together, and gonum's local
	// moves cost the size of every neighbouring community, which a hub
	// makes the whole graph. Entities of a single learning (most paths and
	// identifiers) have their community decided by that learning alone.
	// Leaving both out made Rebuild several times faster on the
	// 10,000-learning benchmark (and modularity went up; docs/benchmarks.md);
	// they then join the community
	// their edge weight mostly goes to (attach).
	out := make([]bool, len(ids))
	for i, df := range dfs {
		out[i] = df > hubDocs || df <= 1
	}
	core := make(map[uint64]float64, len(weights))
	for k, w := range weights {
		if !out[k>>32] && !out[k&0xffffffff] {
			core[k] = w
		}
	}
	comm := make([]int64, len(ids)) // dense index -> community label
	for i := range comm {
		comm[i] = int64(i) // alone, until Louvain or attach say otherwise
	}
	if len(core) > 0 {
		// Each entity keeps its strongest knn edges (an edge stays if it
		// is among the strongest of either end): on the 10,000-learning
		// benchmark this keeps modularity over all core edges at 0.668
		// against 0.671 with every edge, and makes Louvain several times
		// faster (docs/benchmarks.md).
		g := newCSR(len(ids), newCSR(len(ids), core).strongest(knn))
		if err := ctx.Err(); err != nil {
			return st, err
		}
		reduced := community.Modularize(g, 1, rand.NewPCG(louvainSeed, louvainSeed))
		for _, nodes := range reduced.Communities() {
			label := int64(len(ids))
			for _, n := range nodes {
				label = min(label, n.ID())
			}
			for _, n := range nodes {
				comm[n.ID()] = label
			}
		}
	}
	attach(out, dfs, weights, comm)
	st.Communities = number(comm)
	st.Modularity = modularity(weights, comm)

	if _, err := tx.ExecContext(ctx, `DELETE FROM communities`); err != nil {
		return st, fmt.Errorf("graph: rebuild: %w", err)
	}
	if err := insertRows(ctx, tx, `INSERT INTO communities(entity, community) VALUES`, 2, len(ids), func(i int, args []any) []any {
		return append(args, ids[i], comm[i])
	}); err != nil {
		return st, fmt.Errorf("graph: rebuild: %w", err)
	}
	st.Duration = time.Since(start)
	return st, nil
}

// number renumbers community labels from 1, largest community first and
// then by smallest member, so the numbering does not depend on map order;
// it returns the number of communities.
func number(comm []int64) int {
	type group struct {
		label    int64
		size     int
		smallest int
	}
	byLabel := map[int64]*group{}
	var groups []*group
	for i, c := range comm {
		g := byLabel[c]
		if g == nil {
			g = &group{label: c, smallest: i}
			byLabel[c] = g
			groups = append(groups, g)
		}
		g.size++
	}
	sort.Slice(groups, func(i, j int) bool {
		if groups[i].size != groups[j].size {
			return groups[i].size > groups[j].size
		}
		return groups[i].smallest < groups[j].smallest
	})
	to := make(map[int64]int64, len(groups))
	for i, g := range groups {
		to[g.label] = int64(i + 1)
	}
	for i, c := range comm {
		comm[i] = to[c]
	}
	return len(groups)
}

// modularity is Q of the partition over the whole graph, hubs and
// single-learning entities included, at resolution 1: the fraction of edge
// weight inside communities minus what a random graph with the same
// degrees would put there. In O(edges), where gonum's Q with explicit
// communities costs the square of their sizes.
func modularity(weights map[uint64]float64, comm []int64) float64 {
	var m2 float64
	inside := map[int64]float64{}
	degree := map[int64]float64{} // per community
	for k, w := range weights {
		ca, cb := comm[k>>32], comm[k&0xffffffff]
		m2 += 2 * w
		degree[ca] += w
		degree[cb] += w
		if ca == cb {
			inside[ca] += 2 * w
		}
	}
	if m2 == 0 {
		return 0
	}
	var q float64
	for c, d := range degree {
		q += inside[c]/m2 - (d/m2)*(d/m2)
	}
	return q
}

// entityIDs lists the entities in id order, with how many learnings
// mention each.
func entityIDs(ctx context.Context, tx Conn) (ids []int64, dfs []int, err error) {
	rows, err := tx.QueryContext(ctx, `SELECT entity, count(*) FROM mentions GROUP BY entity ORDER BY entity`)
	if err != nil {
		return nil, nil, fmt.Errorf("graph: rebuild: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var df int
		if err := rows.Scan(&id, &df); err != nil {
			return nil, nil, err
		}
		ids = append(ids, id)
		dfs = append(dfs, df)
	}
	return ids, dfs, rows.Err()
}

// attach gives each entity left out of Louvain the community its edge
// weight to core entities mostly goes to. Single-learning entities with no
// core neighbour (a learning about things no other learning names) are
// grouped with the others of their learning, not with a hub: a hub would
// glue every such learning into one community.
func attach(out []bool, dfs []int, weights map[uint64]float64, comm []int64) {
	to := map[int64]map[int64]float64{} // left-out entity -> community -> weight
	parent := map[int64]int64{}         // union-find over lone single-learning entities
	var find func(int64) int64
	find = func(x int64) int64 {
		p, ok := parent[x]
		if !ok || p == x {
			return x
		}
		r := find(p)
		parent[x] = r
		return r
	}
	for k, w := range weights {
		a, b := int64(k>>32), int64(k&0xffffffff)
		for _, p := range [2][2]int64{{a, b}, {b, a}} {
			if out[p[0]] && !out[p[1]] {
				if to[p[0]] == nil {
					to[p[0]] = map[int64]float64{}
				}
				to[p[0]][comm[p[1]]] += w
			}
		}
	}
	leaf := func(x int64) bool { return out[x] && dfs[x] <= 1 && to[x] == nil }
	for k := range weights {
		a, b := int64(k>>32), int64(k&0xffffffff)
		if leaf(a) && leaf(b) {
			ra, rb := find(a), find(b)
			if ra != rb {
				parent[max(ra, rb)] = min(ra, rb)
			}
		}
	}
	// Decide everything from the Louvain labels before changing any.
	next := slices.Clone(comm)
	for x, byComm := range to {
		best, bestW := comm[x], -1.0
		for c, w := range byComm {
			if w > bestW || w == bestW && c < best {
				best, bestW = c, w
			}
		}
		next[x] = best
	}
	for x := range parent {
		next[x] = comm[find(x)]
	}
	copy(comm, next)
}

// edgeWeights sums co-mention and relation weights per unordered pair of
// dense entity indexes, keyed lo<<32 | hi.
func edgeWeights(ctx context.Context, tx Conn, dense map[int64]int64) (map[uint64]float64, error) {
	w := map[uint64]float64{}
	add := func(a, b int64, x float64) {
		if a == b || x <= 0 {
			return
		}
		if a > b {
			a, b = b, a
		}
		w[uint64(a)<<32|uint64(b)] += x
	}

	rows, err := tx.QueryContext(ctx, `SELECT doc, entity FROM mentions ORDER BY doc`)
	if err != nil {
		return nil, fmt.Errorf("graph: rebuild: %w", err)
	}
	var group []int64
	flush := func() {
		if k := len(group); k > 1 {
			x := 1 / float64(k-1)
			for i := range group {
				for j := i + 1; j < k; j++ {
					add(group[i], group[j], x)
				}
			}
		}
		group = group[:0]
	}
	cur := int64(-1 << 62)
	for rows.Next() {
		var doc, ent int64
		if err := rows.Scan(&doc, &ent); err != nil {
			rows.Close()
			return nil, err
		}
		if doc != cur {
			flush()
			cur = doc
		}
		if d, ok := dense[ent]; ok {
			group = append(group, d)
		}
	}
	flush()
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("graph: rebuild: %w", err)
	}

	rows, err = tx.QueryContext(ctx, `SELECT src, dst, CAST(st AS REAL) FROM relations`)
	if err != nil {
		return nil, fmt.Errorf("graph: rebuild: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var s, d int64
		var strength float64
		if err := rows.Scan(&s, &d, &strength); err != nil {
			return nil, err
		}
		ds, ok1 := dense[s]
		dd, ok2 := dense[d]
		if ok1 && ok2 {
			add(ds, dd, strength*relationWeight)
		}
	}
	return w, rows.Err()
}
