package knowledge

import (
	"context"
	"errors"
	"time"

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
// project, or of none) is merged into it, not repeated. Learnings repeated
// within ls are merged into their first. With dryRun nothing is written.
// Everything written is indexed in one targeted update.
func (k *Base) Import(ctx context.Context, ls []*store.Learning, dryRun bool, now time.Time) ([]Imported, error) {
	out := make([]Imported, 0, len(ls))
	first := map[string]bool{}
	var write []*store.Learning
	for _, l := range ls {
		if err := ctx.Err(); err != nil {
			return out, err
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
			dup, found, err := k.NearDuplicate(ctx, l)
			if err != nil {
				return out, err
			}
			if found && k.sameProject(dup.ID, l) {
				im.Action, im.DuplicateOf, im.Share = ImportMerged, dup.ID, dup.Share
				break
			}
			write = append(write, l)
		default:
			// A malformed document under the id: the import replaces it.
			im.Action = ImportUpdated
			write = append(write, l)
		}
		first[l.ID] = true
		out = append(out, im)
	}
	if dryRun || len(write) == 0 {
		return out, nil
	}
	ids := make([]string, len(write))
	for i, l := range write {
		ids[i] = l.ID
	}
	ch := k.ix.BeginChange(ids...)
	defer ch.Close()
	written := 0
	var failed error
	for _, l := range write {
		if _, failed = k.write(l, nil, now); failed != nil {
			break
		}
		written++
	}
	if written > 0 {
		if err := ch.Commit(ctx, ids[:written]...); err != nil {
			return out, errors.Join(failed, err)
		}
	}
	return out, failed
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

// sameProject reports whether the learning id may stand for l: a
// project's rule is not another project's, whatever their words.
func (k *Base) sameProject(id string, l *store.Learning) bool {
	d, err := k.st.Read(id)
	if err != nil {
		return false
	}
	if d.Scope != "project" || l.Scope != "project" {
		return true
	}
	return d.Project == l.Project
}
