package webui

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/reflectkb/reflect/index"
	"github.com/reflectkb/reflect/knowledge"
	"github.com/reflectkb/reflect/store"
)

// editFields are the fields the learning page's edit form holds, in the
// form's order.
var editFields = []string{"title", "confidence", "scope", "project", "category", "tags", "key_insight", "body"}

// editForm is what the edit form shows: each field's value and the
// fingerprint of the value the page was loaded with (posted back as
// orig-<field>). The server writes only the fields whose posted value
// differs from that fingerprint, so a field the user did not touch is
// never rewritten, whatever the browser sends for it.
type editForm struct {
	Values map[string]string
	Orig   map[string]string
	// Resolve is the "and mark resolved" box of a needs_review learning.
	Resolve bool
}

// formOf is the edit form of l as loaded.
func formOf(l *store.Learning) editForm {
	f := editForm{Values: map[string]string{}, Orig: map[string]string{}}
	for _, name := range editFields {
		v := fieldValue(l, name)
		f.Values[name], f.Orig[name] = v, fingerprint(v)
	}
	return f
}

// fieldValue is a field of l as the form shows it, normalized as a
// posted value is, so that the two compare equal when untouched.
func fieldValue(l *store.Learning, field string) string {
	if field == "tags" {
		return normalizeField(field, strings.Join(l.Tags, ","))
	}
	return normalizeField(field, *textField(l, field))
}

// setField sets a field of l from the form's (normalized) value.
func setField(l *store.Learning, field, v string) {
	if field != "tags" {
		*textField(l, field) = v
		return
	}
	l.Tags = nil
	if v != "" {
		l.Tags = strings.Split(v, ", ")
	}
}

// textField points at the field of l a form field other than tags edits.
func textField(l *store.Learning, field string) *string {
	switch field {
	case "title":
		return &l.Title
	case "confidence":
		return &l.Confidence
	case "scope":
		return &l.Scope
	case "project":
		return &l.Project
	case "category":
		return &l.Category
	case "key_insight":
		return &l.KeyInsight
	case "body":
		return &l.Body
	}
	panic("webui: no form field " + field)
}

// normalizeField folds what a browser adds to a value (CRLF line ends in
// a textarea, spaces around an input's text) so that an untouched field
// compares equal to the value it was loaded with.
func normalizeField(field, v string) string {
	v = strings.ReplaceAll(v, "\r\n", "\n")
	v = strings.ReplaceAll(v, "\r", "\n")
	switch field {
	case "body":
		// Write ends a body with a newline; one more or less is no change.
		return strings.TrimRight(v, "\n")
	case "key_insight", "confidence", "scope":
		return strings.TrimSpace(v)
	case "tags":
		var tags []string
		for _, t := range strings.Split(v, ",") {
			if t = trimField(t); t != "" {
				tags = append(tags, t)
			}
		}
		return strings.Join(tags, ", ")
	}
	return trimField(v)
}

// fingerprint names a field's value in the form without repeating it:
// the body may be long.
func fingerprint(v string) string {
	sum := sha256.Sum256([]byte(v))
	return hex.EncodeToString(sum[:12])
}

// edit writes the fields the user changed on the learning page's form
// through the knowledge base's Edit, as 'reflect edit' saves: checked,
// redacted, indexed with the file, the sidecar kept. A field the form did
// not send, or sent as it was loaded, keeps the value on disk. A field
// changed both here and on disk since the page was loaded is not
// overwritten: the page comes back with the user's text and the new
// version, and saving again keeps the user's.
func (s *Server) edit(w http.ResponseWriter, r *http.Request) {
	shown, status, err := s.readLearning(r.Context(), r.PathValue("id"))
	if err != nil {
		s.fail(w, status, err.Error())
		return
	}
	// The file as it is, unredacted: Edit redacts what it writes, and an
	// untouched field must not be replaced by the page's redacted copy.
	l, err := s.st.Read(shown.ID)
	if err != nil {
		s.fail(w, http.StatusInternalServerError, err.Error())
		return
	}
	form := editForm{Values: map[string]string{}, Orig: map[string]string{}, Resolve: r.PostFormValue("resolve") == "1"}
	var changed, conflicts []string
	for _, name := range editFields {
		cur := fieldValue(shown, name)
		if _, sent := r.PostForm[name]; !sent {
			form.Values[name], form.Orig[name] = cur, fingerprint(cur)
			continue
		}
		v := normalizeField(name, r.PostForm.Get(name))
		orig := r.PostForm.Get("orig-" + name)
		if orig == "" {
			// A client that sends only what it changes needs no fingerprints.
			orig = fingerprint(cur)
		}
		form.Values[name], form.Orig[name] = v, orig
		switch {
		case fingerprint(v) == orig:
		case fingerprint(cur) != orig && v != cur:
			conflicts = append(conflicts, name)
			form.Orig[name] = fingerprint(cur)
		default:
			setField(l, name, v)
			changed = append(changed, name)
		}
	}
	if len(conflicts) > 0 {
		s.showLearning(w, r, shown, &form, http.StatusConflict, fmt.Sprintf(
			"Not saved: %s changed on disk since this page was loaded; the page shows that version, your edit is in the form. Save again to keep yours.",
			strings.Join(conflicts, ", ")))
		return
	}
	resolve := form.Resolve && l.NeedsReview
	if len(changed) == 0 && !resolve {
		http.Redirect(w, r, "/learning/"+url.PathEscape(l.ID)+"?saved=0", http.StatusSeeOther)
		return
	}
	if resolve {
		l.NeedsReview = false
	}
	s.saveEdit(w, r, shown, l, &form)
}

// saveEdit writes l, the edited learning, through knowledge.Base.Edit
// and returns to its page; on an error the page shows it with the form
// as the user filled it, so nothing typed is lost.
func (s *Server) saveEdit(w http.ResponseWriter, r *http.Request, shown, l *store.Learning, form *editForm) {
	fail := func(err error) {
		s.showLearning(w, r, shown, form, http.StatusUnprocessableEntity, "Not saved: "+err.Error())
	}
	if err := l.Validate(); err != nil {
		fail(err)
		return
	}
	data, err := l.Marshal()
	if err != nil {
		fail(err)
		return
	}
	var res knowledge.PutResult
	err = s.lockedIndex(func(ix *index.Index) error {
		var err error
		res, err = knowledge.New(ix).Edit(r.Context(), l.ID, data, s.opts.Now())
		if err != nil && res.Path != "" && errors.Is(err, index.ErrBusy) {
			return nil // saved; the next search's refresh indexes it
		}
		return err
	})
	if err != nil {
		fail(err)
		return
	}
	q := url.Values{"saved": {"1"}}
	if n := len(res.Redacted); n > 0 {
		q.Set("redacted", strconv.Itoa(n))
	}
	http.Redirect(w, r, "/learning/"+url.PathEscape(l.ID)+"?"+q.Encode(), http.StatusSeeOther)
}

// resolve clears needs_review, which a sync merge set when it kept two
// bodies under headings. While the body still holds both versions it asks
// first (the user may not have edited it yet); with confirm=yes it keeps
// both.
func (s *Server) resolve(w http.ResponseWriter, r *http.Request) {
	shown, status, err := s.readLearning(r.Context(), r.PathValue("id"))
	if err != nil {
		s.fail(w, status, err.Error())
		return
	}
	if !shown.NeedsReview {
		http.Redirect(w, r, "/learning/"+url.PathEscape(shown.ID), http.StatusSeeOther)
		return
	}
	if store.HoldsBothVersions(shown.Body) && r.PostFormValue("confirm") != "yes" {
		form := formOf(shown)
		s.showLearning(w, r, shown, &form, http.StatusConflict,
			"Not resolved: the body still holds both versions. Edit it to the one you keep (Edit, then tick 'mark resolved'), or keep both.")
		return
	}
	l, err := s.st.Read(shown.ID)
	if err != nil {
		s.fail(w, http.StatusInternalServerError, err.Error())
		return
	}
	l.NeedsReview = false
	s.saveEdit(w, r, shown, l, nil)
}
