package knowledge

import (
	"context"
	"errors"
	"time"

	"github.com/reflectkb/reflect/index"
	"github.com/reflectkb/reflect/store"
)

// Import outcomes.
const (
	ImportAdded     = "added"     // a new learning
	ImportUpdated   = "updated"   // the same rule again, its source moved (another line, file)
	ImportUnchanged = "unchanged" // imported before, nothing to do
	ImportMerged    = "merged"    // a near-duplicate of an existing learning: not repeated
)

// Imported says what importing one learning did (or, in a dry run, would do).
type Imported struct {
	ID     string `json:"id"`
	Title  string `json:"title"`
	File   string `json:"file,omitempty"`
	Line   int    `json:"line,omitempty"`
	Action string `json:"action"`
	// DuplicateOf is the learning a merged one says nearly the same as;
	// Share is how much of their title and key-insight terms they share.
	DuplicateOf string  `json:"duplicate_of,omitempty"`
	Share       float64 `json:"share,omitempty"`
}

// Import adds learnings read from files people keep (package importer),
// so that importing them again adds nothing: a learning whose id exists
// with the same text is unchanged, one whose source moved is updated, and
// a new one that says nearly the same as an existing learning (of the same
// project, or of none) is merged into it, not repeated. Within ls, a
// learning repeated (same id) is merged into its first, and one that
// nearly repeats a rule of another file too; the rules of one file are
// the distinctions its author made and are never merged into each other.
// With dryRun nothing is written.
//
// Everything written is written together (store.Batch: one flush, each
// document whole or not there after a crash) and indexed in one targeted
// update. Imported learnings supersede nothing.
func (k *Base) Import(ctx context.Context, ls []*store.Learning, dryRun bool, now time.Time) ([]Imported, error) {
	out, write, err := k.classify(ctx, ls)
	if err != nil || dryRun || len(write) == 0 {
		return out, err
	}
	return out, k.writeImported(ctx, write, now)
}

// classify decides what importing each of ls does, and returns the
// learnings to write.
func (k *Base) classify(ctx context.Context, ls []*store.Learning) ([]Imported, []*store.Learning, error) {
	out := make([]Imported, 0, len(ls))
	near, err := k.nearSetFor(ctx, ls)
	if err != nil {
		return out, nil, err
	}
	first := map[string]bool{}
	var write []*store.Learning
	for _, l := range ls {
		if err := ctx.Err(); err != nil {
			return out, nil, err
		}
		im := Imported{ID: l.ID, Title: l.Title}
		if l.Source != nil {
			im.File, im.Line = l.Source.File, l.Source.Line
		}
		switch old, err := k.st.Read(l.ID); {
		case first[l.ID]:
			im.Action, im.DuplicateOf, im.Share = ImportMerged, l.ID, 1
		case err == nil:
			im.Action = ImportUnchanged
			if !sameRule(old, l) {
				im.Action = ImportUpdated
				write = append(write, l)
			}
		case errors.Is(err, store.ErrNotFound):
			im.Action = ImportAdded
			it := nearItem{id: l.ID, title: l.Title, scope: l.Scope, project: l.Project,
				fromBatch: true, file: im.File, terms: near.termsOf(l.Title, l.KeyInsight)}
			if dup, share := near.best(it.terms, mayStandFor(&it)); dup != nil {
				im.Action, im.DuplicateOf, im.Share = ImportMerged, dup.id, share
				break
			}
			near.add(it)
			write = append(write, l)
		default:
			// A malformed document under the id: the import replaces it.
			im.Action = ImportUpdated
			write = append(write, l)
		}
		first[l.ID] = true
		out = append(out, im)
	}
	return out, write, nil
}

// nearSetFor holds every indexed learning, for the learnings of ls to be
// compared with.
func (k *Base) nearSetFor(ctx context.Context, ls []*store.Learning) (*nearSet, error) {
	n, err := k.ix.DocCount(ctx)
	if err != nil {
		return nil, err
	}
	var docs []index.Result
	if n > 0 {
		if docs, err = k.ix.List(ctx, index.ListOptions{Limit: n}); err != nil {
			return nil, err
		}
	}
	texts := make([]string, 0, len(docs)+len(ls))
	for _, d := range docs {
		texts = append(texts, d.Title+" "+d.KeyInsight)
	}
	for _, l := range ls {
		texts = append(texts, l.Title+" "+l.KeyInsight)
	}
	near := newNearSet(texts)
	for _, d := range docs {
		near.add(nearItem{id: d.ID, title: d.Title, scope: d.Scope, project: d.Project,
			terms: near.termsOf(d.Title, d.KeyInsight)})
	}
	return near, nil
}

// mayStandFor says which learnings may stand for the new one it: not
// itself, not another project's rule whatever their words, and not a
// rule of the same file.
func mayStandFor(it *nearItem) func(*nearItem) bool {
	return func(c *nearItem) bool {
		switch {
		case c.id == it.id:
			return false
		case c.fromBatch && c.file == it.file && c.project == it.project:
			return false
		case c.scope != "project" || it.scope != "project":
			return true
		}
		return c.project == it.project
	}
}

// writeImported writes the learnings of an import in one batch and
// indexes what it wrote. On an error, what was written before it stays
// and is indexed.
func (k *Base) writeImported(ctx context.Context, write []*store.Learning, now time.Time) error {
	ids := make([]string, len(write))
	for i, l := range write {
		ids[i] = l.ID
	}
	ch := k.ix.BeginChange(ids...)
	defer ch.Close()
	b := k.st.Batch()
	enc, failed := b.WriteAll(write, func(l *store.Learning) {
		k.prepare(l, now)
		l.Supersedes = ""
	}, func(l *store.Learning) *store.Sidecar {
		// An imported rule needs no sidecar: without one its entities are
		// the ones written there (store.ExtractedSidecar), for the index
		// and every surface. One already there (written by an earlier
		// import) is rewritten, so that it is not left stale.
		if l.ImportedRule() && !k.st.HasSidecar(l.ID) {
			return nil
		}
		return sidecarOf(l, nil)
	})
	// The index reads what it indexes; handed what was written, it need
	// not parse again a file that holds exactly these bytes.
	for i, e := range enc {
		ch.Wrote(write[i].ID, &index.Written{Data: e.Data, Learning: write[i], SidecarData: e.SidecarData, Sidecar: e.Sidecar})
	}
	done, err := b.Commit()
	failed = errors.Join(failed, err)
	if len(done) > 0 {
		if err := ch.Commit(ctx, done...); err != nil {
			return errors.Join(failed, err)
		}
	}
	return failed
}

// sameRule reports whether an imported learning says what the document
// already holds, where it already says it came from.
func sameRule(old, l *store.Learning) bool {
	same := old.Title == l.Title && old.KeyInsight == l.KeyInsight && old.Body == l.Body &&
		old.Scope == l.Scope && old.Project == l.Project
	if old.Source == nil || l.Source == nil {
		return same && old.Source == l.Source
	}
	return same && *old.Source == *l.Source
}
