package webui

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/reflectkb/reflect/index/graph"
)

// randomView is a view of n entities with long and short names and about
// three edges each, as a large knowledge base's overview.
func randomView(n int) *graph.View {
	rnd := rand.New(rand.NewPCG(1, 2))
	v := &graph.View{Total: 10 * n}
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("entity-%d", i)
		if i%7 == 0 {
			name = fmt.Sprintf("internal/some/long/path/to/file_%d_test.go", i)
		}
		v.Nodes = append(v.Nodes, graph.ViewNode{ID: int64(i + 1), Name: name, Degree: rnd.IntN(200)})
	}
	for i := 0; i < 3*n; i++ {
		a, b := rnd.IntN(n)+1, rnd.IntN(n)+1
		if a != b {
			v.Edges = append(v.Edges, graph.ViewEdge{Source: int64(a), Target: int64(b), Strength: float64(1 + rnd.IntN(9))})
		}
	}
	return v
}

// The layout of a full view leaves no node with its label over another,
// clips long names, and is the same every time.
func TestLayoutSeparatesLabels(t *testing.T) {
	t.Parallel()
	v := randomView(graphNodes)
	l := layout(v, graphNodes)
	if len(l.Nodes) != graphNodes || l.Cap != graphNodes {
		t.Fatalf("%d nodes, cap %d", len(l.Nodes), l.Cap)
	}
	for i := range l.Nodes {
		if n := len([]rune(l.Nodes[i].Label)); n > labelRunes {
			t.Errorf("label %q has %d runes", l.Nodes[i].Label, n)
		}
		ax1, ay1, ax2, ay2 := box(&l.Nodes[i])
		for j := i + 1; j < len(l.Nodes); j++ {
			bx1, by1, bx2, by2 := box(&l.Nodes[j])
			if ax1 < bx2 && bx1 < ax2 && ay1 < by2 && by1 < ay2 {
				t.Errorf("%q and %q overlap", l.Nodes[i].Label, l.Nodes[j].Label)
			}
		}
	}
	if again := layout(v, graphNodes); !reflect.DeepEqual(again, l) {
		t.Error("two layouts of the same view differ")
	}
	if empty := layout(&graph.View{}, graphNodes); len(empty.Nodes) != 0 {
		t.Errorf("empty view laid out as %+v", empty)
	}
}
