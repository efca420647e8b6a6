package graph

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"time"

	gonum "gonum.org/v1/gonum/graph"
	"gonum.org/v1/gonum/graph/community"
	"gonum.org/v1/gonum/graph/simple"
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

// louvainSeed makes Louvain deterministic: the same catalog gives the same
// communities on every machine, so 'reflect graph' output is stable.
const louvainSeed = 0x5eed

// Rebuild recomputes the communities of all entities with gonum's Louvain
// modularity optimisation over an undirected weighted graph of entities,
// whose edges are co-mentions within a learning plus relations (see
// relationWeight). It first removes entities no learning mentions.
// Communities are numbered from 1, largest first; an entity added after
// the last Rebuild has community 0 until the next one.
func Rebuild(ctx context.Context, tx Conn) (Stats, error) {
	start := time.Now()
	var st Stats
	if _, err := tx.ExecContext(ctx, `DELETE FROM entities WHERE NOT EXISTS (SELECT 1 FROM mentions WHERE entity = entities.id)`); err != nil {
		return st, fmt.Errorf("graph: rebuild: %w", err)
	}
	ids, hubs, err := entityIDs(ctx, tx)
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

	// Hubs ("git", "docker" in thousands of learnings) are left out of
	// Louvain: they are adjacent to everything, so they say nothing about
	// which entities belong together, and gonum's local moves cost the
	// size of every neighbouring community, which a hub makes the whole
	// graph (16 s instead of well under one on 10,000 learnings). Each hub
	// then joins the community its edge weight mostly goes to.
	isHub := make([]bool, len(ids))
	for _, h := range hubs {
		isHub[dense[h]] = true
	}
	core := make(map[uint64]float64, len(weights))
	for k, w := range weights {
		if !isHub[k>>32] && !isHub[k&0xffffffff] {
			core[k] = w
		}
	}

	comm := make([]int64, len(ids)) // dense index -> community, from 1
	var groups [][]gonum.Node
	if len(core) == 0 {
		// No edges: every entity is alone, and Louvain has nothing to do
		// (its modularity would divide by a zero total weight).
		for i := range ids {
			groups = append(groups, []gonum.Node{simple.Node(i)})
		}
	} else {
		g := newCSR(len(ids), core)
		if err := ctx.Err(); err != nil {
			return st, err
		}
		reduced := community.Modularize(g, 1, rand.NewPCG(louvainSeed, louvainSeed))
		groups = reduced.Communities()
		st.Modularity = community.Q(reduced, nil, 1)
	}
	// Louvain placed each hub alone; move it to its heaviest neighbour
	// community, and drop the groups that leaves empty.
	numberCommunities(groups, comm)
	joinHubs(isHub, weights, comm)
	st.Communities = renumber(comm)

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

// numberCommunities numbers the groups from 1, largest first and then by
// their smallest member, so the numbering does not depend on map order.
func numberCommunities(groups [][]gonum.Node, comm []int64) {
	type group struct {
		nodes    []gonum.Node
		smallest int64
	}
	gs := make([]group, len(groups))
	for i, nodes := range groups {
		gs[i] = group{nodes: nodes, smallest: 1 << 62}
		for _, n := range nodes {
			gs[i].smallest = min(gs[i].smallest, n.ID())
		}
	}
	sort.Slice(gs, func(i, j int) bool {
		if len(gs[i].nodes) != len(gs[j].nodes) {
			return len(gs[i].nodes) > len(gs[j].nodes)
		}
		return gs[i].smallest < gs[j].smallest
	})
	for c, g := range gs {
		for _, n := range g.nodes {
			comm[n.ID()] = int64(c + 1)
		}
	}
}

// entityIDs lists the entities in id order, and those mentioned by more
// than hubDocs learnings.
func entityIDs(ctx context.Context, tx Conn) (ids, hubs []int64, err error) {
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
		if df > hubDocs {
			hubs = append(hubs, id)
		}
	}
	return ids, hubs, rows.Err()
}

// joinHubs moves each hub into the community its edge weight to non-hubs
// mostly goes to; a hub linked only to hubs keeps its own.
func joinHubs(isHub []bool, weights map[uint64]float64, comm []int64) {
	to := map[int64]map[int64]float64{} // hub -> community -> weight
	for k, w := range weights {
		a, b := int64(k>>32), int64(k&0xffffffff)
		for _, p := range [2][2]int64{{a, b}, {b, a}} {
			if isHub[p[0]] && !isHub[p[1]] {
				if to[p[0]] == nil {
					to[p[0]] = map[int64]float64{}
				}
				to[p[0]][comm[p[1]]] += w
			}
		}
	}
	for hub, byComm := range to {
		best, bestW := comm[hub], 0.0
		for c, w := range byComm {
			if w > bestW || w == bestW && c < best {
				best, bestW = c, w
			}
		}
		comm[hub] = best
	}
}

// renumber makes community numbers dense again (1..n, keeping their
// order) after hubs left theirs, and returns n.
func renumber(comm []int64) int {
	used := map[int64]bool{}
	for _, c := range comm {
		used[c] = true
	}
	order := make([]int64, 0, len(used))
	for c := range used {
		order = append(order, c)
	}
	sort.Slice(order, func(i, j int) bool { return order[i] < order[j] })
	to := make(map[int64]int64, len(order))
	for i, c := range order {
		to[c] = int64(i + 1)
	}
	for i, c := range comm {
		comm[i] = to[c]
	}
	return len(order)
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

	rows, err = tx.QueryContext(ctx, `SELECT src, dst, strength FROM relations`)
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
