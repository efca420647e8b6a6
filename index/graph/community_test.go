package graph

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	gonum "gonum.org/v1/gonum/graph"
	"gonum.org/v1/gonum/graph/community"
	"gonum.org/v1/gonum/graph/simple"

	"github.com/reflectkb/reflect/store"
)

// sidecar builds a sidecar naming the given entities (as concepts), with
// the given relationships as "a>b:strength".
func sidecar(id string, names []string, rels ...store.Relationship) *store.Sidecar {
	sc := &store.Sidecar{DocumentID: id, Relationships: rels}
	for _, n := range names {
		sc.Entities = append(sc.Entities, store.Entity{Name: n, Type: "concept"})
	}
	return sc
}

func communitiesByName(t *testing.T, db *sql.DB) map[string]int {
	t.Helper()
	rows, err := db.Query(`SELECT e.name, c.community FROM entities e JOIN communities c ON c.entity = e.id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var n string
		var c int
		if err := rows.Scan(&n, &c); err != nil {
			t.Fatal(err)
		}
		out[n] = c
	}
	return out
}

func TestRebuildSeparatesClusters(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	// Two topics, each learning naming three of its topic's five entities,
	// and one learning bridging them.
	for c, topic := range []string{"alpha", "beta"} {
		for d := 0; d < 5; d++ {
			var names []string
			for k := 0; k < 3; k++ {
				names = append(names, fmt.Sprintf("%s%d", topic, (d+k)%5))
			}
			id := fmt.Sprintf("lrn-%s-%d", topic, d)
			rel := store.Relationship{Source: names[0], Target: names[1], Type: "uses", Strength: float64(5 + c)}
			addDoc(t, db, &store.Learning{ID: id}, sidecar(id, names, rel))
		}
	}
	addDoc(t, db, &store.Learning{ID: "lrn-bridge"}, sidecar("lrn-bridge", []string{"alpha0", "beta0"}))

	var st Stats
	inTx(t, db, func(tx *sql.Tx) (err error) { st, err = Rebuild(ctx, tx); return err })
	if st.Entities != 10 || st.Communities != 2 || st.Modularity < 0.3 || st.Edges == 0 {
		t.Errorf("stats %+v: want 10 entities in 2 communities with Q > 0.3", st)
	}
	got := communitiesByName(t, db)
	for i := 0; i < 5; i++ {
		a, b := got[fmt.Sprintf("alpha%d", i)], got[fmt.Sprintf("beta%d", i)]
		if a != got["alpha0"] || b != got["beta0"] || a == b || a == 0 || b == 0 {
			t.Fatalf("communities %v: want alphas and betas apart", got)
		}
	}

	// Deterministic: the same catalog gives the same numbering.
	inTx(t, db, func(tx *sql.Tx) error { _, err := Rebuild(ctx, tx); return err })
	if again := communitiesByName(t, db); fmt.Sprint(again) != fmt.Sprint(got) {
		t.Errorf("second rebuild %v, first %v", again, got)
	}
}

func TestRebuildEdgeCases(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	var st Stats
	inTx(t, db, func(tx *sql.Tx) (err error) { st, err = Rebuild(ctx, tx); return err })
	if st.Entities != 0 || st.Communities != 0 {
		t.Errorf("empty graph: %+v", st)
	}
	// Learnings of one entity each: no edges, every entity alone.
	addDoc(t, db, &store.Learning{ID: "lrn-a"}, sidecar("lrn-a", []string{"solo1"}))
	addDoc(t, db, &store.Learning{ID: "lrn-b"}, sidecar("lrn-b", []string{"solo2"}))
	// An orphan entity (as a crash between writes could leave) is pruned.
	if _, err := db.Exec(`INSERT INTO entities(name, norm, type) VALUES('orphan', 'orphan', 'concept')`); err != nil {
		t.Fatal(err)
	}
	inTx(t, db, func(tx *sql.Tx) (err error) { st, err = Rebuild(ctx, tx); return err })
	if st.Entities != 2 || st.Communities != 2 || st.Edges != 0 {
		t.Errorf("isolated entities: %+v", st)
	}
	got := communitiesByName(t, db)
	if len(got) != 2 || got["solo1"] == got["solo2"] {
		t.Errorf("communities %v", got)
	}
}

// TestCSRGraph checks the graph Louvain runs on against gonum's own test
// suite for weighted undirected graphs' read methods, and that its
// modularity matches gonum's Q on a simple graph with the same edges.
func TestCSRGraph(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	weights := map[uint64]float64{}
	for i := 0; i < 400; i++ {
		a, b := rnd.IntN(60), rnd.IntN(60)
		if a == b {
			continue
		}
		if a > b {
			a, b = b, a
		}
		weights[uint64(a)<<32|uint64(b)] = 0.1 + rnd.Float64()
	}
	g := newCSR(60, weights)
	sg := simple.NewWeightedUndirectedGraph(0, 0)
	for i := 0; i < 60; i++ {
		sg.AddNode(simple.Node(i))
	}
	for k, w := range weights {
		sg.SetWeightedEdge(simple.WeightedEdge{F: simple.Node(int64(k >> 32)), T: simple.Node(int64(k & 0xffffffff)), W: w})
	}
	for k, w := range weights {
		a, b := int64(k>>32), int64(k&0xffffffff)
		if got, ok := g.Weight(b, a); !ok || got != w {
			t.Fatalf("Weight(%d,%d) = %g %v, want %g", b, a, got, ok, w)
		}
		if !g.HasEdgeBetween(a, b) || g.WeightedEdgeBetween(a, b).Weight() != w {
			t.Fatalf("edge %d-%d", a, b)
		}
	}
	if _, ok := g.Weight(0, 60); ok {
		t.Error("edge to a missing node")
	}
	for u := int64(0); u < 60; u++ {
		if got, want := gonum.NodesOf(g.From(u)), gonum.NodesOf(sg.From(u)); len(got) != len(want) {
			t.Fatalf("From(%d): %d nodes, want %d", u, len(got), len(want))
		}
	}
	r := community.Modularize(g, 1, rand.NewPCG(3, 4))
	comm := make([]int64, 60)
	for c, nodes := range r.Communities() {
		for _, n := range nodes {
			comm[n.ID()] = int64(c)
		}
	}
	if q, want := modularity(weights, comm), community.Q(sg, r.Communities(), 1); math.Abs(q-want) > 1e-9 {
		t.Errorf("modularity %g, gonum's Q on the same partition %g", q, want)
	}
	// strongest keeps the k heaviest edges of every node
	keep := g.strongest(3)
	for u := int64(0); u < 60; u++ {
		var ws []float64
		for i := g.off[u]; i < g.off[u+1]; i++ {
			ws = append(ws, g.w[i])
		}
		sort.Sort(sort.Reverse(sort.Float64Slice(ws)))
		for i := 0; i < min(3, len(ws)); i++ {
			found := false
			for j := g.off[u]; j < g.off[u+1]; j++ {
				a, b := u, g.nbr[j]
				if a > b {
					a, b = b, a
				}
				if g.w[j] == ws[i] && keep[uint64(a)<<32|uint64(b)] == ws[i] {
					found = true
				}
			}
			if !found {
				t.Fatalf("node %d lost its edge of weight %g", u, ws[i])
			}
		}
	}
}
