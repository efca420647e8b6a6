package knowledge

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/reflectkb/reflect/store"
)

// ErrUnknownMark is returned by Mark for a word that is not a mark.
var ErrUnknownMark = errors.New("a mark is one of helpful, wrong, outdated, never (or fresh, clear)")

// ErrIDChanged is returned by Edit when the edited document names another id.
var ErrIDChanged = errors.New("the id cannot change in an edit (add the new learning and forget this one, or use 'reflect add --supersedes')")

// Mark records feedback on the learning id: one of store.Marks adds one
// to its count; "clear" removes every mark. Marks live in the document's
// frontmatter (feedback:), so they sync with it; its updated time is kept,
// since feedback is not new content and recency should not reward it.
//
// "fresh" says a person reviewed the learning and it still holds: the
// staleness the drainer found is cleared and the review time recorded, so
// that evidence older than the review is not counted again. "clear" of a
// stale learning records the review the same way.
func (k *Base) Mark(ctx context.Context, id, mark string) (*store.Learning, error) {
	return k.MarkAt(ctx, id, mark, time.Now())
}

// MarkAt is Mark with the clock given (the review time of "fresh").
func (k *Base) MarkAt(ctx context.Context, id, mark string, now time.Time) (*store.Learning, error) {
	ch := k.ix.BeginChange(id)
	defer ch.Close()
	l, err := k.st.Read(id)
	if err != nil {
		return nil, err
	}
	reviewed := now.UTC().Truncate(time.Second)
	switch {
	case mark == "clear" && l.Feedback != nil && l.Feedback.Stale != "":
		l.Feedback = &store.Feedback{Reviewed: reviewed}
	case mark == "clear":
		l.Feedback = nil
	case mark == "fresh":
		if l.Feedback == nil {
			l.Feedback = &store.Feedback{}
		}
		l.Feedback.Stale, l.Feedback.Reviewed = "", reviewed
	default:
		if l.Feedback == nil {
			l.Feedback = &store.Feedback{}
		}
		if !l.Feedback.Add(mark) {
			return nil, fmt.Errorf("%q: %w", mark, ErrUnknownMark)
		}
	}
	if err := k.st.Write(l); err != nil {
		return nil, err
	}
	return l, ch.Commit(ctx, id)
}

// Edit replaces the learning id with data, a whole document as the user
// edited it: it must parse and validate and keep its id, else nothing is
// written. It is redacted like every write, its updated time set to now,
// and its sidecar kept. A supersedes field it gains links the learning it
// names back (superseded_by), as Put does (the newest learning of that
// one's chain, when it was superseded already): at once, or for a pending
// draft when it is approved.
func (k *Base) Edit(ctx context.Context, id string, data []byte, now time.Time) (PutResult, error) {
	l, err := store.Parse(data)
	if err != nil {
		return PutResult{ID: id}, err
	}
	if l.ID != id {
		return PutResult{ID: id}, ErrIDChanged
	}
	if l.Feedback.IsZero() {
		l.Feedback = nil
	}
	res := PutResult{ID: id, Action: "updated", Redacted: l.Redact()}
	if l.ID != id {
		// Only a secret in the id itself changes it: refuse rather than
		// write under another name.
		return res, fmt.Errorf("the id holds a secret: %w", ErrIDChanged)
	}
	var named string
	if !l.Pending() {
		named = k.resolveSupersedes(l, nil)
	}
	ids := []string{id}
	if l.Supersedes != "" {
		ids = append(ids, l.Supersedes)
	}
	ch := k.ix.BeginChange(ids...)
	defer ch.Close()
	old, err := k.st.Read(id)
	switch {
	case err == nil:
		res.Changes = store.Changes(old, l)
	case errors.Is(err, store.ErrNotFound):
		return res, err
	}
	l.Updated = now
	if err := k.st.Write(l); err != nil {
		return res, err
	}
	res.Path = l.Path
	linked, err := k.linkSuperseded(l)
	if err != nil {
		return res, err
	}
	if linked {
		res.Supersedes, res.SupersedesNamed = l.Supersedes, named
	}
	return res, ch.Commit(ctx, ids...)
}

// Update rewrites the existing learning id with what patch sets: its
// title, key insight, body, confidence, category, scope, project, type,
// symptoms, questions and cites replace the old ones when not empty, and
// its tags are merged in. It is `reflect add --update ID`: a reworded insight updates
// the learning it repeats instead of adding a second one.
func (k *Base) Update(ctx context.Context, id string, patch *store.Learning, sc *store.Sidecar, now time.Time) (PutResult, error) {
	l, err := k.st.Read(id)
	if err != nil {
		return PutResult{ID: id}, err
	}
	if sc == nil {
		// Read before the patch: an imported rule without a sidecar file
		// keeps the entities of the text it had, as one with a file does.
		if sc, err = k.st.ReadSidecarOf(l); err != nil {
			sc = nil // none, or unreadable: extracted again from the text
		}
	}
	set := func(dst *string, v string) {
		if v != "" {
			*dst = v
		}
	}
	set(&l.Title, patch.Title)
	set(&l.KeyInsight, patch.KeyInsight)
	set(&l.Body, patch.Body)
	set(&l.Confidence, patch.Confidence)
	set(&l.Category, patch.Category)
	set(&l.Scope, patch.Scope)
	set(&l.Project, patch.Project)
	set(&l.Type, patch.Type)
	set(&l.Supersedes, patch.Supersedes)
	if len(patch.Symptoms) > 0 {
		l.Symptoms = patch.Symptoms
	}
	if len(patch.Questions) > 0 {
		l.Questions = patch.Questions
	}
	if len(patch.Cites) > 0 {
		l.Cites = patch.Cites
	}
	l.Tags = store.MergeTags(l.Tags, patch.Tags)
	return k.Put(ctx, l, sc, now)
}

// linkSuperseded writes superseded_by on the learning l supersedes, which
// must be in the same index change as l: the one resolveSupersedes chose,
// called before the change began so that the change covers it. A
// supersedes naming no learning (a writer's guess, a learning forgotten
// since) is dropped from l rather than left dangling; linked reports whether the link was made. A pending
// draft links nothing: it is the writer's proposal, not yet the user's, so
// the learning it would replace stays injected until the draft is
// approved (approvePlain links it then) and is untouched if it is rejected.
func (k *Base) linkSuperseded(l *store.Learning) (linked bool, err error) {
	if l.Supersedes == "" {
		return false, nil
	}
	old, err := k.st.Read(l.Supersedes)
	if err == nil && l.Pending() {
		return false, nil
	}
	if err != nil {
		l.Supersedes = ""
		if werr := k.st.Write(l); werr != nil {
			return false, werr
		}
		if errors.Is(err, store.ErrNotFound) {
			return false, nil
		}
		var de *store.DocError
		if errors.As(err, &de) {
			return false, nil
		}
		return false, err
	}
	if old.SupersededBy == l.ID {
		return true, nil
	}
	old.SupersededBy = l.ID
	return true, k.st.Write(old)
}

// SetQuestions gives the learning id these questions (`reflect enrich`),
// in place of any it had, and changes nothing else of it: not its updated
// time, since questions are a way to find the learning rather than new
// content and recency should not reward them (as with marks), nor its
// sidecar (an imported rule keeps having none). The learning is redacted
// like every write, and the index told at once.
func (k *Base) SetQuestions(ctx context.Context, id string, questions []string) (PutResult, error) {
	ch := k.ix.BeginChange(id)
	defer ch.Close()
	old, err := k.st.Read(id)
	if err != nil {
		return PutResult{ID: id}, err
	}
	// A copy of its own: redacting it must not change old, which
	// Changes compares it with.
	l, err := k.st.Read(id)
	if err != nil {
		return PutResult{ID: id}, err
	}
	l.Questions = append([]string(nil), questions...)
	res := PutResult{ID: id, Action: "updated", Redacted: l.Redact()}
	if l.ID != id {
		// Only a secret in the id itself changes it: refuse rather than
		// write under another name.
		return res, fmt.Errorf("the id holds a secret: %w", ErrIDChanged)
	}
	res.Changes = store.Changes(old, l)
	if err := k.st.Write(l); err != nil {
		return res, err
	}
	res.Path = l.Path
	return res, ch.Commit(ctx, id)
}
