package webui

import (
	"net/http"
	"slices"
	"strings"

	"github.com/reflectkb/reflect/index"
	"github.com/reflectkb/reflect/store"
)

// searchLimit is how many results a search shows; filters are applied to
// up to filterPool ranked results first, so a filter narrows the ranking
// instead of re-ranking. A search's cost grows with its limit (every result
// is hydrated and checked for freshness), and search as you type runs one
// per keystroke, so the limit stays at a page one reads at a glance.
const (
	searchLimit = 20
	filterPool  = 100
)

// filters are the search page's filters; zero values filter nothing.
type filters struct {
	Project, Type, Confidence, Tag string
	Stale                          bool
}

func filtersOf(r *http.Request) filters {
	q := r.URL.Query()
	return filters{
		Project:    strings.TrimSpace(q.Get("project")),
		Type:       q.Get("type"),
		Confidence: q.Get("confidence"),
		Tag:        strings.TrimSpace(q.Get("tag")),
		Stale:      q.Get("stale") == "1",
	}
}

func (f filters) any() bool { return f != filters{} }

func (f filters) keep(r index.Result) bool {
	switch {
	case f.Project != "" && !strings.EqualFold(r.Project, f.Project):
		return false
	case f.Type != "" && r.Type != f.Type:
		return false
	case f.Confidence != "" && r.Confidence != f.Confidence:
		return false
	case f.Tag != "" && !slices.ContainsFunc(r.Tags, func(t string) bool { return strings.EqualFold(t, f.Tag) }):
		return false
	case f.Stale && !r.Stale:
		return false
	}
	return true
}

// SearchResult is a result as /api/search returns it: the index's result
// (the same ranking and reasons as 'reflect search --json') with its short
// id and the one-line explanation of --explain.
type SearchResult struct {
	index.Result
	ShortID string `json:"short_id"`
	Explain string `json:"explain,omitempty"`
}

// SearchResponse is the body of /api/search.
type SearchResponse struct {
	Query   string         `json:"query"`
	Results []SearchResult `json:"results"`
	// Recent says the query was empty: Results are the most recently
	// updated learnings, unranked.
	Recent bool `json:"recent,omitempty"`
}

// joinNote is a supersession chain a forget joined: Superseded stays
// superseded, now by By ('reflect forget' says so too).
type joinNote struct {
	Superseded, By string
}

func (s *Server) searchPage(w http.ResponseWriter, r *http.Request) {
	var joined []joinNote
	for _, v := range r.URL.Query()["joined"] {
		if ids := noteIDs(v, 2, 2); ids != nil && len(joined) < maxNotes {
			joined = append(joined, joinNote{Superseded: ids[0], By: ids[1]})
		}
	}
	s.renderPage(w, http.StatusOK, "search", page{Title: "Search", Nav: "search", Scripts: []string{"search.js"},
		Data: map[string]any{"Types": store.Types, "Confidences": store.Confidences, "Joined": joined}})
}

func (s *Server) apiSearch(w http.ResponseWriter, r *http.Request) {
	resp, err := s.search(r, strings.TrimSpace(r.URL.Query().Get("q")), filtersOf(r))
	if err != nil {
		failJSON(w, http.StatusInternalServerError, err.Error())
		return
	}
	writeJSON(w, http.StatusOK, resp)
}

// search ranks with the index's Search, as the CLI does, placed in the
// project 'reflect ui' was started in; an empty query lists the most
// recently updated learnings instead.
func (s *Server) search(r *http.Request, text string, f filters) (*SearchResponse, error) {
	limit := searchLimit
	if f.any() {
		limit = filterPool
	}
	var results []index.Result
	var short map[string]string
	err := s.lockedIndex(func(ix *index.Index) error {
		var err error
		if text == "" {
			results, err = ix.List(r.Context(), index.ListOptions{Limit: limit})
		} else {
			results, err = ix.Search(r.Context(), index.Query{Text: text, Limit: limit, Project: s.opts.Project, Root: s.opts.Root})
		}
		if err != nil {
			return err
		}
		ids := make([]string, len(results))
		for i, res := range results {
			ids[i] = res.ID
		}
		// without listing documents/: see index.ShortIDs
		short, _ = ix.ShortIDs(r.Context(), ids)
		return nil
	})
	if err != nil {
		return nil, err
	}
	resp := &SearchResponse{Query: text, Results: []SearchResult{}, Recent: text == ""}
	for _, res := range results {
		if !f.keep(res) {
			continue
		}
		sr := SearchResult{Result: res, ShortID: res.ID}
		if id, ok := short[res.ID]; ok {
			sr.ShortID = id
		}
		if text != "" {
			sr.Explain = res.Why.Explain()
		}
		resp.Results = append(resp.Results, sr)
		if len(resp.Results) == searchLimit {
			break
		}
	}
	return resp, nil
}
