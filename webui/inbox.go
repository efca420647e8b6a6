package webui

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"

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
	Done string
	// Superseded says which learnings the last approval superseded, as
	// 'reflect review approve' does; SupersededMore counts those the
	// redirect's address had no room for.
	Superseded     []supersedeNote
	SupersededMore int
	Error          string
}

// supersedeNote is one learning an approved draft superseded: Sup, and
// Named when the draft named a learning already superseded, so that the
// draft continued that one's chain from its newest learning, Sup.
type supersedeNote struct {
	Draft, Sup, Named string
}

// maxNotes bounds the notes a redirect carries in its address.
const maxNotes = 20

// idSep joins the ids of one note in a query value: no id holds it.
const idSep = "~"

// noteIDs splits a query value of idSep-joined ids back, nil unless it is
// lo to hi valid ids: the address is not a place to put text on the
// page.
func noteIDs(v string, lo, hi int) []string {
	ids := strings.Split(v, idSep)
	if len(ids) < lo || len(ids) > hi {
		return nil
	}
	for _, id := range ids {
		if !store.ValidID(id) {
			return nil
		}
	}
	return ids
}

// supersedeNotes reads the notes an approval's redirect carries.
func supersedeNotes(q url.Values) (notes []supersedeNote, more int) {
	for _, v := range q["sup"] {
		if ids := noteIDs(v, 2, 3); ids != nil && len(notes) < maxNotes {
			n := supersedeNote{Draft: ids[0], Sup: ids[1]}
			if len(ids) == 3 {
				n.Named = ids[2]
			}
			notes = append(notes, n)
		}
	}
	more, _ = strconv.Atoi(q.Get("supmore"))
	return notes, max(more, 0)
}

// approvedQuery is the redirect's query after approving: the count, and
// the learnings the drafts superseded.
func approvedQuery(done []knowledge.Approved) string {
	q := "done=approved&n=" + strconv.Itoa(len(done))
	notes := 0
	for _, a := range done {
		if a.Supersedes == "" {
			continue
		}
		if notes++; notes > maxNotes {
			continue
		}
		v := a.Learning.ID + idSep + a.Supersedes
		if a.SupersedesNamed != "" {
			v += idSep + a.SupersedesNamed
		}
		q += "&sup=" + url.QueryEscape(v)
	}
	if notes > maxNotes {
		q += "&supmore=" + strconv.Itoa(notes-maxNotes)
	}
	return q
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
		if r.URL.Query().Get("done") == "approved" {
			d.Superseded, d.SupersededMore = supersedeNotes(r.URL.Query())
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
	var approved []knowledge.Approved
	err := s.lockedIndex(func(ix *index.Index) error {
		var err error
		k := knowledge.New(ix)
		if action == "approve" {
			approved, err = k.ApproveDrafts(r.Context(), ids...)
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
	q := "done=rejected&n=" + strconv.Itoa(len(done))
	if action == "approve" {
		q = approvedQuery(approved)
	}
	http.Redirect(w, r, "/inbox?"+q, http.StatusSeeOther)
}
