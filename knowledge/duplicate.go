package knowledge

import (
	"context"

	"github.com/reflectkb/reflect/index"
	"github.com/reflectkb/reflect/store"
)

// NearDuplicateShare is the share of title and key-insight terms two
// learnings must have in common (Jaccard) to count as the same lesson:
// writers rephrase, and a reworded repeat should be recognised as one.
const NearDuplicateShare = 0.6

// Duplicate is an existing learning that says nearly the same as another.
type Duplicate struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	// Share is the Jaccard similarity of the two learnings' title and
	// key-insight terms, at least NearDuplicateShare.
	Share float64 `json:"share"`
}

// NearDuplicate returns the indexed learning, other than l's own id, whose
// title and key insight share the most terms with l's, when they share at
// least NearDuplicateShare; ok is false when there is none. Candidates are
// the best search hits for l's title and insight.
func (k *Base) NearDuplicate(ctx context.Context, l *store.Learning) (dup Duplicate, ok bool, err error) {
	// Drafts awaiting review count: a writer repeating itself updates
	// its pending draft rather than filling the inbox with another.
	results, err := k.ix.Search(ctx, index.Query{Text: l.Title + " " + l.KeyInsight, Limit: 5, Pending: index.PendingShown})
	if err != nil {
		return Duplicate{}, false, err
	}
	mine := termSet(l.Title + " " + l.KeyInsight)
	for _, r := range results {
		if r.ID == l.ID {
			continue
		}
		if sim := jaccard(mine, termSet(r.Title+" "+r.KeyInsight)); sim > dup.Share {
			dup = Duplicate{ID: r.ID, Title: r.Title, Share: sim}
		}
	}
	if dup.Share >= NearDuplicateShare {
		return dup, true, nil
	}
	return Duplicate{}, false, nil
}

// DuplicateOf returns the id of an existing learning that says the same as
// l under another id: "" when l's own id exists (Put updates it), else its
// near duplicate (NearDuplicateShare of title and insight terms), if any.
func (k *Base) DuplicateOf(ctx context.Context, l *store.Learning) string {
	if _, err := k.st.Read(l.ID); err == nil {
		return ""
	}
	if dup, ok, err := k.NearDuplicate(ctx, l); err == nil && ok {
		return dup.ID
	}
	return ""
}

func termSet(text string) map[string]bool {
	m := map[string]bool{}
	for _, t := range index.Terms(text) {
		m[t] = true
	}
	return m
}

func jaccard(a, b map[string]bool) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	inter := 0
	for t := range a {
		if b[t] {
			inter++
		}
	}
	return float64(inter) / float64(len(a)+len(b)-inter)
}
