package webui

import (
	"net/http"
	"slices"
	"strconv"

	"github.com/reflectkb/reflect/index"
	"github.com/reflectkb/reflect/index/graph"
	"github.com/reflectkb/reflect/store"
)

// graphNodes caps a graph view: a view is laid out on every request and
// read by a person, and past about a hundred and fifty entities neither
// the layout's quadratic passes nor the labels stay pleasant; the page
// says how many it leaves out.
const graphNodes = 150

func (s *Server) graphPage(w http.ResponseWriter, r *http.Request) {
	s.renderPage(w, http.StatusOK, "graph", page{Title: "Graph", Nav: "graph",
		Scripts: []string{"vendor/cytoscape/cytoscape.min.js", "graph.js"},
		Data:    map[string]any{"Types": store.EntityTypes}})
}

// apiGraph returns a bounded view: the largest communities' most mentioned
// entities, or with focus=<entity id> that entity's neighbourhood.
func (s *Server) apiGraph(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	opts := graph.ViewOptions{Type: q.Get("type"), Nodes: graphNodes}
	if opts.Type != "" && !slices.Contains(store.EntityTypes, opts.Type) {
		failJSON(w, http.StatusBadRequest, "unknown entity type "+strconv.Quote(opts.Type))
		return
	}
	if f := q.Get("focus"); f != "" {
		id, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			failJSON(w, http.StatusBadRequest, "focus must be an entity id")
			return
		}
		opts.Focus = id
	}
	var v *graph.View
	err := s.lockedIndex(func(ix *index.Index) error {
		var err error
		v, err = ix.GraphView(r.Context(), opts)
		return err
	})
	if err != nil {
		failJSON(w, http.StatusInternalServerError, err.Error())
		return
	}
	writeJSON(w, http.StatusOK, layout(v, graphNodes))
}

// apiEntity lists the learnings that mention an entity, for the graph's
// click-through.
func (s *Server) apiEntity(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil {
		failJSON(w, http.StatusBadRequest, "entity id must be a number")
		return
	}
	var res []index.Result
	err = s.lockedIndex(func(ix *index.Index) error {
		var err error
		res, err = ix.EntityLearnings(r.Context(), id, 50)
		return err
	})
	if err != nil {
		failJSON(w, http.StatusInternalServerError, err.Error())
		return
	}
	if res == nil {
		res = []index.Result{}
	}
	writeJSON(w, http.StatusOK, map[string]any{"learnings": res})
}
