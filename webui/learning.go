package webui

import (
	"context"
	"errors"
	"html/template"
	"net/http"
	"net/url"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/reflectkb/reflect/index"
	"github.com/reflectkb/reflect/index/graph"
	"github.com/reflectkb/reflect/internal/gitrepo"
	"github.com/reflectkb/reflect/knowledge"
	"github.com/reflectkb/reflect/store"
)

// relatedLimit is how many related learnings a learning page lists, as
// 'reflect show' does.
const relatedLimit = 5

// historyLimit is how many commits of a learning's file the page lists.
const historyLimit = 20

// Commit is one commit that changed a learning's file.
type Commit struct {
	Hash, Date, Subject string
}

type learningData struct {
	L           *store.Learning
	ShortID     string
	Body        template.HTML
	Cites       []index.CiteStatus
	Stale       bool
	Entities    []graph.EntityInfo
	Related     []index.RelatedLearning
	Indexed     bool
	History     []Commit
	Confidences []string
	Scopes      []string
	Message     string
	// Form is the edit form: the values loaded, or those the user posted
	// when they could not be saved.
	Form editForm
	// EditOpen opens the form: it holds what the user posted.
	EditOpen bool
	// Marks are the feedback counts (Feedback.String), Held why hooks do
	// not inject the learning ("" when they do).
	Marks, Held string
	// Marked lists the marks the buttons offer.
	Marked []string
	// Supersedes and SupersededBy are the supersession chain, nearest first.
	Supersedes, SupersededBy []store.ChainLink
	// BothVersions says a needs_review body still holds both versions.
	BothVersions bool
	// Injected are the sessions the ledger recorded this learning in.
	Injected     []sessionRef
	InjectedMore int
	// Updates is, for a pending draft that proposes an update, the
	// learning it would rewrite (the review banner names it).
	Updates *knowledge.Proposal
	// PendingSupersededBy are the drafts awaiting review that would
	// supersede this learning once approved; it is injected until then.
	PendingSupersededBy []string
}

// readLearning resolves ref as the CLI does (full id, unique prefix, or
// the 6-hex tail) and reads it, with a status for the error page.
func (s *Server) readLearning(ctx context.Context, ref string) (*store.Learning, int, error) {
	id, err := s.st.Resolve(ref)
	if errors.Is(err, store.ErrNotFound) {
		return nil, http.StatusNotFound, errors.New("no learning " + ref + "; it may have been forgotten")
	}
	if err != nil {
		return nil, http.StatusBadRequest, err
	}
	// Only a learning the index holds is served: a file the indexer
	// refused (a symbolic link, a FIFO, an oversize or malformed file) is
	// not shown whatever its name.
	var held bool
	err = s.lockedIndex(func(ix *index.Index) error {
		var err error
		held, err = ix.Holds(ctx, id)
		return err
	})
	if err != nil {
		return nil, http.StatusInternalServerError, err
	}
	if !held {
		return nil, http.StatusNotFound, errors.New("learning " + id + " is not in the index; run 'reflect doctor' to see why")
	}
	l, err := s.st.Read(id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, http.StatusNotFound, errors.New("no learning " + ref + "; it may have been forgotten")
	}
	if err != nil {
		return nil, http.StatusInternalServerError, err
	}
	// A synced or hand-edited file never went through the redactor on
	// write; the page shows it redacted (an edit writes it redacted too).
	l.RedactRead()
	return l, http.StatusOK, nil
}

func (s *Server) learningPage(w http.ResponseWriter, r *http.Request) {
	l, status, err := s.readLearning(r.Context(), r.PathValue("id"))
	if err != nil {
		s.fail(w, status, err.Error())
		return
	}
	s.showLearning(w, r, l, nil, http.StatusOK, pageMessage(r.URL.Query()))
}

// pageMessage is what the learning page says after a change redirected
// to it. Only the words it knows are echoed: the address is not a place
// to put text on the page.
func pageMessage(q url.Values) string {
	switch m := q.Get("marked"); {
	case q.Get("saved") == "1":
		if n, err := strconv.Atoi(q.Get("redacted")); err == nil && n > 0 {
			return "Saved; " + strconv.Itoa(n) + " secret(s) redacted from what you wrote."
		}
		return "Saved."
	case q.Get("saved") == "0":
		return "Nothing changed: no field differs from the saved learning."
	case m == "clear":
		return "Marks cleared."
	case slices.Contains(store.Marks, m):
		return "Marked " + m + "."
	}
	return ""
}

// showLearning renders l's page; form, when not nil, is the edit form as
// the user filled it (a save that failed), else the form of l as loaded.
func (s *Server) showLearning(w http.ResponseWriter, r *http.Request, l *store.Learning, form *editForm, status int, msg string) {
	d := learningData{L: l, Body: s.render(l.Body), Confidences: store.Confidences, Scopes: store.Scopes, Message: msg,
		Marks: l.Feedback.String(), Held: l.Held(), Marked: store.Marks, BothVersions: l.NeedsReview && store.HoldsBothVersions(l.Body)}
	if form != nil {
		d.Form, d.EditOpen = *form, true
	} else {
		d.Form = formOf(l)
	}
	d.Supersedes, d.SupersededBy = s.st.Chain(l)
	d.Injected, d.InjectedMore = s.injectedIn(l.ID)
	d.ShortID = l.ID
	d.Cites = index.Cites(l, s.opts.Root, s.opts.Project)
	for _, c := range d.Cites {
		d.Stale = d.Stale || c.State == "changed"
	}
	_ = s.lockedIndex(func(ix *index.Index) error {
		ents, related, err := ix.Related(r.Context(), l.ID, relatedLimit)
		d.Entities, d.Related, d.Indexed = ents, related, err == nil
		if short, err := ix.ShortIDs(r.Context(), []string{l.ID}); err == nil {
			d.ShortID = short[l.ID]
		}
		k := knowledge.New(ix)
		d.Updates = k.ProposalOf(l)
		d.PendingSupersededBy, _ = k.PendingSupersessors(r.Context(), l.ID)
		return nil
	})
	if !d.Indexed {
		// Not indexed yet: the sidecar is all there is to say.
		if sc, err := s.st.ReadSidecarOf(l); err == nil {
			for _, e := range sc.Entities {
				d.Entities = append(d.Entities, graph.EntityInfo{Name: e.Name, Type: e.Type})
			}
		}
	}
	d.History = gitHistory(r.Context(), l.Path)
	s.renderPage(w, status, "learning", page{Title: l.Title, Scripts: []string{"learning.js"}, Data: d})
}

// gitHistory lists the commits that changed path when it is in a git
// repository; nothing when it is not, or git is missing.
func gitHistory(ctx context.Context, path string) []Commit {
	dir := filepath.Dir(path)
	if gitrepo.Root(dir) == "" {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "git", "-C", dir, "log", "--follow", "-n", "20",
		"--format=%h%x1f%as%x1f%s", "--", filepath.Base(path)).Output()
	if err != nil {
		return nil
	}
	var cs []Commit
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if f := strings.Split(line, "\x1f"); len(f) == 3 {
			cs = append(cs, Commit{Hash: f[0], Date: f[1], Subject: f[2]})
		}
	}
	if len(cs) > historyLimit {
		cs = cs[:historyLimit]
	}
	return cs
}

// forget asks first: a form without confirm=yes gets a page that names
// the learning and posts again with it. Only then are the file, its
// sidecar and its index entries deleted, as 'reflect forget' deletes them.
func (s *Server) forget(w http.ResponseWriter, r *http.Request) {
	l, status, err := s.readLearning(r.Context(), r.PathValue("id"))
	if err != nil {
		s.fail(w, status, err.Error())
		return
	}
	if r.PostFormValue("confirm") != "yes" {
		s.renderPage(w, http.StatusOK, "forget", page{Title: "Forget " + l.Title, Data: l})
		return
	}
	var res knowledge.ForgetResult
	err = s.lockedIndex(func(ix *index.Index) error {
		var err error
		res, err = knowledge.New(ix).ForgetAll(r.Context(), l.ID)
		return err
	})
	if err != nil && !errors.Is(err, index.ErrBusy) {
		s.fail(w, http.StatusInternalServerError, "forget "+l.ID+": "+err.Error())
		return
	}
	// ErrBusy: the file is deleted; the next search's refresh drops it
	// from the index, as the CLI reports.
	q := "forgot=" + url.QueryEscape(l.ID)
	for i, j := range res.Joined {
		if i < maxNotes {
			q += "&joined=" + url.QueryEscape(j.Superseded+idSep+j.By)
		}
	}
	http.Redirect(w, r, "/?"+q, http.StatusSeeOther)
}
