package webui

import (
	"math"
	"unicode/utf8"

	"github.com/reflectkb/reflect/index/graph"
)

// A graph view is laid out here, not in the browser: Cytoscape's cose
// layout settled a few hundred nodes in seconds on a slow machine and
// left labels on top of each other; a force-directed layout of a bounded
// view in Go takes milliseconds, and a last pass moves nodes apart until
// no node and its label covers another's. The page draws the positions as
// given (Cytoscape's preset layout).

// Sizes in the page's model coordinates, which graph.js uses as given:
// the label sits under its node in a 9 px font.
const (
	labelRunes   = 28  // a longer name is clipped; the side panel shows it whole
	charWidth    = 6.5 // wider than the average glyph of a 9 px sans-serif, capitals included
	labelHeight  = 13  // the line and its 2 px margin
	boxMargin    = 4   // kept free around each box
	layoutRounds = 300
	overlapTries = 400
	gravity      = 0.3 // the pull to the centre, against the repulsion of unrelated groups
)

// laidNode is what the page needs to draw a node beyond the view's data.
type laidNode struct {
	graph.ViewNode
	Label string  `json:"label"`
	Size  float64 `json:"size"`
	X     float64 `json:"x"`
	Y     float64 `json:"y"`
}

// laidView is a graph view with positions.
type laidView struct {
	Nodes    []laidNode       `json:"nodes"`
	Edges    []graph.ViewEdge `json:"edges"`
	Total    int              `json:"total"`
	EdgesCut bool             `json:"edges_cut,omitempty"`
	// Cap is the most nodes a view draws, for the page's note.
	Cap int `json:"cap"`
}

// layout places v's nodes: deterministic (the same view gives the same
// picture), related nodes near each other, no two boxes (node and label)
// overlapping.
func layout(v *graph.View, limit int) *laidView {
	out := &laidView{Nodes: make([]laidNode, len(v.Nodes)), Edges: v.Edges, Total: v.Total, EdgesCut: v.EdgesCut, Cap: limit}
	n := len(v.Nodes)
	if n == 0 {
		return out
	}
	index := make(map[int64]int, n)
	for i, vn := range v.Nodes {
		index[vn.ID] = i
		label := vn.Name
		if utf8.RuneCountInString(label) > labelRunes {
			label = string([]rune(label)[:labelRunes-1]) + "…"
		}
		out.Nodes[i] = laidNode{ViewNode: vn, Label: label, Size: 10 + math.Min(40, 4*math.Sqrt(float64(vn.Degree)))}
	}
	// Start on a golden-angle spiral: spread, and the same every time.
	spacing := 60.0
	for i := range out.Nodes {
		r := spacing * math.Sqrt(float64(i)+0.5)
		a := float64(i) * 2.399963229728653
		out.Nodes[i].X, out.Nodes[i].Y = r*math.Cos(a), r*math.Sin(a)
	}
	type link struct {
		a, b int
		w    float64
	}
	var links []link
	for _, e := range v.Edges {
		a, okA := index[e.Source]
		b, okB := index[e.Target]
		if okA && okB && a != b {
			links = append(links, link{a, b, 1 + math.Log1p(e.Strength)})
		}
	}
	// Fruchterman-Reingold with a pull to the centre, so that unrelated
	// groups stay in view instead of drifting apart.
	k := 40.0
	temp := spacing * math.Sqrt(float64(n))
	dx, dy := make([]float64, n), make([]float64, n)
	for round := 0; round < layoutRounds; round++ {
		clear(dx)
		clear(dy)
		for i := 0; i < n; i++ {
			for j := i + 1; j < n; j++ {
				x, y := out.Nodes[i].X-out.Nodes[j].X, out.Nodes[i].Y-out.Nodes[j].Y
				d2 := math.Max(x*x+y*y, 1)
				f := k * k / d2
				dx[i] += x * f
				dy[i] += y * f
				dx[j] -= x * f
				dy[j] -= y * f
			}
		}
		for _, l := range links {
			x, y := out.Nodes[l.a].X-out.Nodes[l.b].X, out.Nodes[l.a].Y-out.Nodes[l.b].Y
			d := math.Max(math.Hypot(x, y), 1)
			f := d * l.w / k
			dx[l.a] -= x / d * f
			dy[l.a] -= y / d * f
			dx[l.b] += x / d * f
			dy[l.b] += y / d * f
		}
		for i := range out.Nodes {
			dx[i] -= out.Nodes[i].X * gravity
			dy[i] -= out.Nodes[i].Y * gravity
			d := math.Hypot(dx[i], dy[i])
			if d > 0 {
				step := math.Min(d, temp)
				out.Nodes[i].X += dx[i] / d * step
				out.Nodes[i].Y += dy[i] / d * step
			}
		}
		temp = math.Max(temp*0.97, 1)
	}
	separate(out.Nodes)
	return out
}

// box is a node with its label: the node centred on (X, Y), the label
// under it, and a margin around both.
func box(n *laidNode) (x1, y1, x2, y2 float64) {
	half := math.Max(n.Size, float64(utf8.RuneCountInString(n.Label))*charWidth)/2 + boxMargin
	return n.X - half, n.Y - n.Size/2 - boxMargin, n.X + half, n.Y + n.Size/2 + labelHeight + boxMargin
}

// separate moves overlapping boxes apart along the axis where they
// overlap least, until none overlaps (or it gives up after overlapTries
// passes, which a bounded view does not reach).
func separate(ns []laidNode) {
	for try := 0; try < overlapTries; try++ {
		moved := false
		for i := range ns {
			for j := i + 1; j < len(ns); j++ {
				ax1, ay1, ax2, ay2 := box(&ns[i])
				bx1, by1, bx2, by2 := box(&ns[j])
				ox := math.Min(ax2, bx2) - math.Max(ax1, bx1)
				oy := math.Min(ay2, by2) - math.Max(ay1, by1)
				if ox <= 0 || oy <= 0 {
					continue
				}
				moved = true
				if ox < oy {
					s := ox/2 + 0.5
					if ns[i].X < ns[j].X || (ns[i].X == ns[j].X && i < j) {
						s = -s
					}
					ns[i].X += s
					ns[j].X -= s
				} else {
					s := oy/2 + 0.5
					if ns[i].Y < ns[j].Y || (ns[i].Y == ns[j].Y && i < j) {
						s = -s
					}
					ns[i].Y += s
					ns[j].Y -= s
				}
			}
		}
		if !moved {
			return
		}
	}
}
