package webui

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"

	"github.com/reflectkb/reflect/index"
	"github.com/reflectkb/reflect/knowledge"
	"github.com/reflectkb/reflect/store"
)

// The review inbox: the drafts an LLM writer wrote that wait for the
// user's approval before the hooks inject them ('reflect review').

// inboxData is what the inbox page shows.
type inboxData struct {
	Pending []*store.Learning
	// Targets are, by draft id, the learnings drafts propose to update.
	Targets map[string]*knowledge.Proposal
	// Supersedes are, by draft id, the learnings approving drafts would
	// supersede (injected until then).
	Supersedes map[string]*store.ChainLink
	// Done says what the last post did ("approved 2").
	Done  string
	Error string
}

// targetsOf describes, by draft id, what the drafts among pending update.
func targetsOf(k *knowledge.Base, pending []*store.Learning) map[string]*knowledge.Proposal {
	out := map[string]*knowledge.Proposal{}
	for _, l := range pending {
		if p := k.ProposalOf(l); p != nil {
			out[l.ID] = p
		}
	}
	return out
}

// supersededOf names, by draft id, the learnings the drafts among pending
// would supersede once approved.
func supersededOf(k *knowledge.Base, pending []*store.Learning) map[string]*store.ChainLink {
	out := map[string]*store.ChainLink{}
	for _, l := range pending {
		if c := k.SupersedesOf(l); c != nil {
			out[l.ID] = c
		}
	}
	return out
}

// inboxPage lists the drafts awaiting review, oldest first.
func (s *Server) inboxPage(w http.ResponseWriter, r *http.Request) {
	var d inboxData
	err := s.lockedIndex(func(ix *index.Index) error {
		k := knowledge.New(ix)
		var err error
		d.Pending, err = k.Pending(r.Context())
		d.Targets = targetsOf(k, d.Pending)
		d.Supersedes = supersededOf(k, d.Pending)
		return err
	})
	if err != nil {
		s.fail(w, http.StatusInternalServerError, err.Error())
		return
	}
	_ = knowledge.RecordPending(s.cfg.StateDir, len(d.Pending))
	if n, err := strconv.Atoi(r.URL.Query().Get("n")); err == nil {
		switch action := r.URL.Query().Get("done"); action {
		case "approved", "rejected":
			d.Done = action + " " + strconv.Itoa(n)
		}
	}
	s.renderPage(w, http.StatusOK, "inbox", page{Title: "Review inbox", Nav: "inbox", Data: d})
}

// inboxAction approves or rejects one draft ({id}) or, with id "all",
// every draft the form lists (the ids the user saw, not whatever arrived
// since the page was served).
func (s *Server) inboxAction(w http.ResponseWriter, r *http.Request) {
	action := r.PathValue("action")
	if action != "approve" && action != "reject" {
		s.fail(w, http.StatusNotFound, "no such action: use approve or reject")
		return
	}
	ids := []string{r.PathValue("id")}
	if ids[0] == "all" {
		if err := r.ParseForm(); err != nil {
			s.fail(w, http.StatusBadRequest, err.Error())
			return
		}
		ids = r.PostForm["id"]
	}
	for _, id := range ids {
		if !store.ValidID(id) {
			s.fail(w, http.StatusBadRequest, "not a learning id: "+url.QueryEscape(id))
			return
		}
	}
	var done []*store.Learning
	err := s.lockedIndex(func(ix *index.Index) error {
		var err error
		k := knowledge.New(ix)
		if action == "approve" {
			done, err = k.Approve(r.Context(), ids...)
		} else {
			done, err = k.Reject(r.Context(), knowledge.NewRejections(s.cfg.StateDir), ids...)
		}
		// The status line's count; the page's own is counted again.
		_, _ = k.CountPending(r.Context(), s.cfg.StateDir)
		return err
	})
	switch {
	case errors.Is(err, store.ErrNotFound), errors.Is(err, knowledge.ErrNotPending):
		s.fail(w, http.StatusNotFound, err.Error()+": reload the inbox")
		return
	case err != nil && !errors.Is(err, index.ErrBusy):
		s.fail(w, http.StatusInternalServerError, action+": "+err.Error())
		return
	}
	past := map[string]string{"approve": "approved", "reject": "rejected"}[action]
	http.Redirect(w, r, "/inbox?done="+past+"&n="+strconv.Itoa(len(done)), http.StatusSeeOther)
}
