package graph

import (
	"slices"
	"sort"

	gonum "gonum.org/v1/gonum/graph"
	"gonum.org/v1/gonum/graph/iterator"
	"gonum.org/v1/gonum/graph/simple"
)

// csr is a read-only undirected weighted graph over nodes 0..n-1 with
// sorted adjacency lists. gonum's simple graphs keep neighbours in maps,
// so Louvain would visit them in a different order on every run and, even
// with a fixed seed, find different communities; sorted slices make it
// deterministic, and are smaller and faster to build for 10^5 edges.
type csr struct {
	off []int32 // neighbours of u are nbr[off[u]:off[u+1]]
	nbr []int64
	w   []float64
}

var _ gonum.WeightedUndirected = (*csr)(nil)

// newCSR builds the graph from pair weights keyed lo<<32 | hi.
func newCSR(n int, weights map[uint64]float64) *csr {
	deg := make([]int32, n+1)
	for k := range weights {
		deg[k>>32]++
		deg[k&0xffffffff]++
	}
	g := &csr{off: make([]int32, n+1)}
	for u := 0; u < n; u++ {
		g.off[u+1] = g.off[u] + deg[u]
	}
	g.nbr = make([]int64, g.off[n])
	g.w = make([]float64, g.off[n])
	fill := slices.Clone(g.off[:n])
	for k, w := range weights {
		a, b := int64(k>>32), int64(k&0xffffffff)
		g.nbr[fill[a]], g.w[fill[a]] = b, w
		fill[a]++
		g.nbr[fill[b]], g.w[fill[b]] = a, w
		fill[b]++
	}
	for u := 0; u < n; u++ {
		sort.Sort(adjacency{g.nbr[g.off[u]:g.off[u+1]], g.w[g.off[u]:g.off[u+1]]})
	}
	return g
}

// strongest returns the edges that are among the k heaviest of either end,
// keyed lo<<32 | hi; ties go to the lower neighbour id, so the result is
// deterministic.
func (g *csr) strongest(k int) map[uint64]float64 {
	keep := make(map[uint64]float64, int(g.n())*k)
	var idx []int32
	for u := int32(0); u < int32(g.n()); u++ {
		idx = idx[:0]
		for i := g.off[u]; i < g.off[u+1]; i++ {
			idx = append(idx, i)
		}
		if len(idx) > k {
			slices.SortStableFunc(idx, func(a, b int32) int {
				switch {
				case g.w[a] > g.w[b]:
					return -1
				case g.w[a] < g.w[b]:
					return 1
				}
				return 0
			})
			idx = idx[:k]
		}
		for _, i := range idx {
			a, b := uint64(u), uint64(g.nbr[i])
			if a > b {
				a, b = b, a
			}
			keep[a<<32|b] = g.w[i]
		}
	}
	return keep
}

type adjacency struct {
	nbr []int64
	w   []float64
}

func (a adjacency) Len() int           { return len(a.nbr) }
func (a adjacency) Less(i, j int) bool { return a.nbr[i] < a.nbr[j] }
func (a adjacency) Swap(i, j int) {
	a.nbr[i], a.nbr[j] = a.nbr[j], a.nbr[i]
	a.w[i], a.w[j] = a.w[j], a.w[i]
}

func (g *csr) n() int64 { return int64(len(g.off) - 1) }

func (g *csr) Node(id int64) gonum.Node {
	if id < 0 || id >= g.n() {
		return nil
	}
	return simple.Node(id)
}

func (g *csr) Nodes() gonum.Nodes {
	if g.n() == 0 {
		return gonum.Empty
	}
	return iterator.NewImplicitNodes(0, int(g.n()), func(id int) gonum.Node { return simple.Node(id) })
}

func (g *csr) From(id int64) gonum.Nodes {
	if id < 0 || id >= g.n() {
		return gonum.Empty
	}
	return &nodeList{ids: g.nbr[g.off[id]:g.off[id+1]], i: -1}
}

func (g *csr) HasEdgeBetween(x, y int64) bool {
	_, ok := g.find(x, y)
	return ok
}

func (g *csr) Edge(u, v int64) gonum.Edge { return g.WeightedEdge(u, v) }

func (g *csr) EdgeBetween(x, y int64) gonum.Edge { return g.WeightedEdge(x, y) }

func (g *csr) WeightedEdgeBetween(x, y int64) gonum.WeightedEdge { return g.WeightedEdge(x, y) }

func (g *csr) WeightedEdge(u, v int64) gonum.WeightedEdge {
	i, ok := g.find(u, v)
	if !ok {
		return nil
	}
	return simple.WeightedEdge{F: simple.Node(u), T: simple.Node(v), W: g.w[i]}
}

// Weight is 0 and true for a node with itself, as for gonum's simple graphs
// with no self weight.
func (g *csr) Weight(x, y int64) (float64, bool) {
	if x == y {
		return 0, x >= 0 && x < g.n()
	}
	i, ok := g.find(x, y)
	if !ok {
		return 0, false
	}
	return g.w[i], true
}

func (g *csr) find(x, y int64) (int, bool) {
	if x < 0 || x >= g.n() || y < 0 || y >= g.n() {
		return 0, false
	}
	lo, hi := int(g.off[x]), int(g.off[x+1])
	i := lo + sort.Search(hi-lo, func(k int) bool { return g.nbr[lo+k] >= y })
	return i, i < hi && g.nbr[i] == y
}

// nodeList iterates a slice of node ids without allocating a node each.
type nodeList struct {
	ids []int64
	i   int
}

func (it *nodeList) Next() bool {
	if it.i+1 >= len(it.ids) {
		it.i = len(it.ids)
		return false
	}
	it.i++
	return true
}

func (it *nodeList) Len() int {
	if it.i >= len(it.ids) {
		return 0
	}
	return len(it.ids) - it.i - 1
}

func (it *nodeList) Reset() { it.i = -1 }

func (it *nodeList) Node() gonum.Node {
	if it.i < 0 || it.i >= len(it.ids) {
		return nil
	}
	return simple.Node(it.ids[it.i])
}
