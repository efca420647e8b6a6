package knowledge

import (
	"context"
	"errors"
	"time"

	"github.com/reflectkb/reflect/index"
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

// Forget removes learnings, their sidecars and their index entries, with
// one targeted index update (one transaction) for all of them. It stops at
// the first id that cannot be deleted; the ones deleted before it are still
// taken out of the index. A learning one of them superseded is active
// again (unlinkSuperseded).
func (k *Base) Forget(ctx context.Context, ids ...string) error {
	var gone []*store.Learning
	for _, id := range ids {
		if l, err := k.st.Read(id); err == nil {
			gone = append(gone, l)
		}
	}
	if err := k.unlinkSuperseded(ctx, gone); err != nil && !errors.Is(err, index.ErrBusy) {
		return err
	}
	var failed error
	deleted := 0
	ch := k.ix.BeginChange(ids...)
	defer ch.Close()
	for _, id := range ids {
		if failed = k.st.Delete(id); failed != nil {
			break
		}
		deleted++
	}
	if deleted > 0 {
		// The id that failed may have lost its document before its
		// sidecar; looking at it too costs nothing.
		if err := ch.Commit(ctx, ids[:min(deleted+1, len(ids))]...); err != nil {
			return errors.Join(failed, err)
		}
	}
	return failed
}

// unlinkSuperseded takes superseded_by off the learnings that name one of
// ls, which are about to be deleted: a replacement that is gone (forgotten,
// or a rejected draft an older reflect linked) replaces nothing, and no
// learning may stay held, never injected, by one that no longer exists.
func (k *Base) unlinkSuperseded(ctx context.Context, ls []*store.Learning) error {
	var ids []string
	for _, l := range ls {
		if l.Supersedes == "" || l.Supersedes == l.ID {
			continue
		}
		if old, err := k.st.Read(l.Supersedes); err == nil && old.SupersededBy == l.ID {
			ids = append(ids, old.ID)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	ch := k.ix.BeginChange(ids...)
	defer ch.Close()
	for i, id := range ids {
		old, err := k.st.Read(id)
		if err == nil {
			old.SupersededBy = ""
			err = k.st.Write(old)
		}
		if err != nil {
			if i > 0 {
				err = errors.Join(err, ch.Commit(ctx, ids[:i]...))
			}
			return err
		}
	}
	return ch.Commit(ctx, ids...)
}
