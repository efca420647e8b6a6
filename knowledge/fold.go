package knowledge

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"time"

	"github.com/reflectkb/reflect/store"
)

// Folded is a near-duplicate pair FoldPulled made one: Gone was merged
// into Kept and forgotten.
type Folded struct {
	Kept  string  `json:"kept"`
	Gone  string  `json:"gone"`
	Share float64 `json:"share"`
}

// FoldPulled merges each learning a sync brought in (ids) with the indexed
// learning it nearly repeats (NearDuplicate): two machines that learned
// the same lesson each wrote it under its own id.
//
// Which one stays must not depend on the machine: both machines pull the
// other's learning and each drain folds the pair, so the earlier created
// (then the smaller id) is kept on both, and their next syncs carry the
// same edit and the same deletion instead of deleting one each. The kept
// learning takes the union of tags, symptoms, questions, cites and entities
// (store.Merge with no common ancestor); a body it does not already hold
// is appended under a heading naming the folded learning, so nothing
// either machine learned is lost. A pair with a personal or private
// learning is left alone.
func (k *Base) FoldPulled(ctx context.Context, ids []string, now time.Time) ([]Folded, error) {
	var out []Folded
	for _, id := range ids {
		l, err := k.st.Read(id)
		if err != nil {
			continue // forgotten or folded since, or malformed (doctor says so)
		}
		dup, ok, err := k.NearDuplicate(ctx, l)
		if err != nil {
			return out, err
		}
		if !ok {
			continue
		}
		other, err := k.st.Read(dup.ID)
		if err != nil || l.LocalOnly() || other.LocalOnly() {
			// A personal or private learning never goes into one that
			// syncs: the fold would carry its text off the machine.
			continue
		}
		keep, gone := l, other
		if other.Created.Before(l.Created) || (other.Created.Equal(l.Created) && other.ID < l.ID) {
			keep, gone = other, l
		}
		if err := k.fold(ctx, keep, gone, now); err != nil {
			return out, err
		}
		out = append(out, Folded{Kept: keep.ID, Gone: gone.ID, Share: dup.Share})
	}
	return out, nil
}

// fold writes keep merged with gone, then forgets gone.
func (k *Base) fold(ctx context.Context, keep, gone *store.Learning, now time.Time) error {
	appendBody := func(_, ours, theirs string) (string, bool) {
		if strings.Contains(ours, strings.TrimSpace(theirs)) {
			return ours, true
		}
		return withNewline(ours) + "\n## Also learned as " + gone.ID + "\n\n" + theirs, true
	}
	merged := store.Merge(nil, keep, gone, appendBody)
	// Merge takes the scalar fields of the later-updated side; the kept
	// learning is the one that stays, so its own are what it says.
	merged.ID, merged.Title, merged.KeyInsight = keep.ID, keep.Title, keep.KeyInsight
	merged.Type, merged.Confidence, merged.Category = keep.Type, keep.Confidence, keep.Category
	merged.Scope, merged.Project, merged.Source = keep.Scope, keep.Project, keep.Source
	var sc *store.Sidecar
	ks, kerr := k.st.ReadSidecarOf(keep)
	gs, gerr := k.st.ReadSidecarOf(gone)
	switch {
	case kerr == nil && gerr == nil:
		sc = store.MergeSidecars(ks, gs)
	case kerr == nil:
		sc = ks
	case gerr == nil:
		sc = gs
		sc.DocumentID = keep.ID
	}
	for _, err := range []error{kerr, gerr} {
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("fold %s into %s: %w", gone.ID, keep.ID, err)
		}
	}
	if _, err := k.Put(ctx, merged, sc, now); err != nil {
		return fmt.Errorf("fold %s into %s: %w", gone.ID, keep.ID, err)
	}
	if err := k.Forget(ctx, gone.ID); err != nil {
		return fmt.Errorf("fold %s into %s: %w", gone.ID, keep.ID, err)
	}
	return nil
}

func withNewline(s string) string {
	if s != "" && !strings.HasSuffix(s, "\n") {
		return s + "\n"
	}
	return s
}
