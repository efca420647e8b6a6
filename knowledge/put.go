package knowledge

import (
	"context"
	"errors"
	"time"

	"github.com/reflectkb/reflect/store"
)

// PutResult says what Put did.
type PutResult struct {
	ID      string `json:"id"`
	Path    string `json:"path"`
	Action  string `json:"action"` // "added" or "updated"
	Sidecar string `json:"sidecar"`
	// Entities is how many entities the sidecar holds.
	Entities int `json:"entities"`
	// Redacted lists the secrets removed before writing, by field.
	Redacted []store.Redaction `json:"redacted,omitempty"`
	// Changes are the fields an update changed (none for an addition, and
	// none when the same learning was added again).
	Changes []store.Change `json:"changes,omitempty"`
	// Supersedes is the learning this one replaced, now marked
	// superseded_by it ("" when it named none, or one that does not exist,
	// or when this one is a pending draft: approval links it).
	Supersedes string `json:"supersedes,omitempty"`
	// SupersedesNamed is the learning this one named as replaced, when
	// that one had been superseded already: Supersedes is then the newest
	// learning of its chain, which this one replaced instead.
	SupersedesNamed string `json:"supersedes_named,omitempty"`
}

// Put writes a learning and its sidecar through the store and indexes them
// at once, touching in the index only what it changed (index.Change). A
// learning whose id already exists updates that document: its created time
// and unknown fields are kept, its tags are merged with the new ones (a
// repeat adds tags, it does not silently drop them), updated is bumped, and
// the result lists what changed. When sc is nil, entities are
// extracted heuristically from the text. Secrets are redacted first, so the
// id (and file name) Put uses is the redacted one. A learning whose
// supersedes names an existing learning marks that one superseded_by it,
// in the same index change, so it is never injected again; when that one
// was superseded already, the newest learning of its chain is the one
// replaced (resolveSupersedes). A pending draft's supersedes waits for its
// approval (Approve).
func (k *Base) Put(ctx context.Context, l *store.Learning, sc *store.Sidecar, now time.Time) (PutResult, error) {
	var named string
	if !l.Pending() {
		named = k.resolveSupersedes(l, nil)
	}
	// What documents/ held before this write, to show afterwards that
	// nothing else changed meanwhile (index/dirprobe.go).
	ids := []string{l.ID}
	if l.Supersedes != "" && l.Supersedes != l.ID {
		ids = append(ids, l.Supersedes)
	}
	ch := k.ix.BeginChange(ids...)
	defer ch.Close()
	res, err := k.write(l, sc, now)
	if res.Supersedes != "" {
		res.SupersedesNamed = named
	}
	if err != nil {
		return res, err
	}
	if err := ch.Commit(ctx, ids...); err != nil {
		return res, err
	}
	return res, nil
}

// write is Put without the index: the document and its sidecar.
func (k *Base) write(l *store.Learning, sc *store.Sidecar, now time.Time) (PutResult, error) {
	res := k.prepare(l, now)
	if err := k.st.Write(l); err != nil {
		return res, err
	}
	res.Path = l.Path
	if linked, err := k.linkSuperseded(l); err != nil {
		return res, err
	} else if linked {
		res.Supersedes = l.Supersedes
	}
	sc = sidecarOf(l, sc)
	if err := k.st.WriteSidecar(sc); err != nil {
		return res, err
	}
	res.Sidecar = k.st.SidecarPath(l.ID)
	res.Entities = len(sc.Entities)
	return res, nil
}

// prepare readies l to be written over what documents/ holds under its
// id: redacted, and, when it updates a learning, keeping that one's
// created time, unknown fields, tags and the learning that superseded it
// (a writer repeating a learning does not know its chain, and a rewrite
// must not make a superseded learning active again).
func (k *Base) prepare(l *store.Learning, now time.Time) PutResult {
	redacted := l.Redact()
	res := PutResult{ID: l.ID, Action: "added", Redacted: redacted}
	old, err := k.st.Read(l.ID)
	switch {
	case err == nil:
		res.Action = "updated"
		l.Created = old.Created
		l.Updated = now
		l.KeepExtra(old)
		l.Tags = store.MergeTags(old.Tags, l.Tags)
		if l.SupersededBy == "" {
			l.SupersededBy = old.SupersededBy
		}
		res.Changes = store.Changes(old, l)
	case errors.Is(err, store.ErrNotFound):
		if l.Updated.IsZero() {
			l.Updated = l.Created
		}
	default:
		// The existing file is malformed: replacing it is what the user asked.
		l.Updated = now
	}
	return res
}

// sidecarOf is the sidecar to write with l: sc, or when nil the entities
// extracted heuristically from l's text.
func sidecarOf(l *store.Learning, sc *store.Sidecar) *store.Sidecar {
	if sc == nil {
		sc = &store.Sidecar{Entities: store.ExtractEntities(l)}
	}
	sc.DocumentID = l.ID
	return sc
}

// ForgetResult says what Forget changed besides deleting.
type ForgetResult struct {
	// Joined are the supersession chains joined over the forgotten
	// learnings (relinkForgotten).
	Joined []Joined `json:"joined,omitempty"`
}

// Forget removes learnings, their sidecars and their index entries, with
// one targeted index update (one transaction) for all of them. It stops at
// the first id that cannot be deleted; the ones deleted before it are still
// taken out of the index. A learning one of them superseded is joined to
// the learning that superseded the forgotten one, when there is one, and
// is active again otherwise (relinkForgotten), in the same index change;
// those links are written before anything is deleted, so that no learning
// is ever left held, never injected, by one that no longer exists.
func (k *Base) Forget(ctx context.Context, ids ...string) error {
	_, err := k.ForgetAll(ctx, ids...)
	return err
}

// ForgetAll is Forget, saying which chains it joined.
func (k *Base) ForgetAll(ctx context.Context, ids ...string) (ForgetResult, error) {
	var gone []*store.Learning
	for _, id := range ids {
		if l, err := k.st.Read(id); err == nil {
			gone = append(gone, l)
		}
	}
	relinked, joined := k.relinkForgotten(gone)
	var changed []string
	for _, l := range relinked {
		changed = append(changed, l.ID)
	}
	ch := k.ix.BeginChange(append(changed[:len(changed):len(changed)], ids...)...)
	defer ch.Close()
	for i, l := range relinked {
		if err := k.st.Write(l); err != nil {
			if i > 0 {
				err = errors.Join(err, ch.Commit(ctx, changed[:i]...))
			}
			return ForgetResult{}, err
		}
	}
	res := ForgetResult{Joined: joined}
	var failed error
	deleted := 0
	for _, id := range ids {
		if failed = k.st.Delete(id); failed != nil {
			break
		}
		deleted++
	}
	if deleted > 0 {
		// The id that failed may have lost its document before its
		// sidecar; looking at it too costs nothing.
		changed = append(changed, ids[:min(deleted+1, len(ids))]...)
	}
	if len(changed) > 0 {
		if err := ch.Commit(ctx, changed...); err != nil {
			return res, errors.Join(failed, err)
		}
	}
	return res, failed
}
