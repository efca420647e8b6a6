package webui

import (
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"

	"github.com/reflectkb/reflect/index"
	textutil "github.com/reflectkb/reflect/internal/text"
	"github.com/reflectkb/reflect/knowledge"
	"github.com/reflectkb/reflect/store"
)

// mark records the feedback of the learning page's buttons through the
// knowledge base, as 'reflect mark ID helpful|wrong|outdated|never|clear'
// does: wrong, outdated and never keep the learning out of the hooks'
// recall, helpful raises it, clear removes every mark.
func (s *Server) mark(w http.ResponseWriter, r *http.Request) {
	l, status, err := s.readLearning(r.Context(), r.PathValue("id"))
	if err != nil {
		s.fail(w, status, err.Error())
		return
	}
	m := r.PostFormValue("mark")
	if m != "clear" && !slices.Contains(store.Marks, m) {
		s.fail(w, http.StatusBadRequest, "unknown mark "+strconv.Quote(textutil.ClipRunes(m, 40))+": use helpful, wrong, outdated, never or clear")
		return
	}
	err = s.lockedIndex(func(ix *index.Index) error {
		_, err := knowledge.New(ix).Mark(r.Context(), l.ID, m)
		return err
	})
	// ErrBusy: the mark is written; the next search's refresh indexes it.
	if err != nil && !errors.Is(err, index.ErrBusy) {
		s.fail(w, http.StatusInternalServerError, "mark "+l.ID+": "+err.Error())
		return
	}
	http.Redirect(w, r, "/learning/"+url.PathEscape(l.ID)+"?marked="+url.QueryEscape(m), http.StatusSeeOther)
}
