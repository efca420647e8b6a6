package store

import "github.com/reflectkb/reflect/internal/redact"

// maxChain bounds how far Chain follows supersedes links: a chain is a
// learning's revisions, a handful; a hand-made loop must not hang a reader.
const maxChain = 20

// ChainLink is one learning of a supersession chain.
type ChainLink struct {
	ID    string `json:"id"`
	Title string `json:"title,omitempty"`
	// Missing says the link names a learning that is not there.
	Missing bool `json:"missing,omitempty"`
}

// Chain follows l's supersedes and superseded_by links both ways: the
// learnings l replaces and those that replace it, the nearest first. A
// link to a learning that cannot be read ends its side, marked Missing.
// Titles are redacted: a hand-edited or synced file never went through
// the redactor on write.
func (s *Store) Chain(l *Learning) (supersedes, supersededBy []ChainLink) {
	walk := func(first string, next func(*Learning) string) []ChainLink {
		out := []ChainLink{}
		seen := map[string]bool{l.ID: true}
		for id := first; id != "" && !seen[id] && len(out) < maxChain; {
			seen[id] = true
			o, err := s.Read(id)
			if err != nil {
				out = append(out, ChainLink{ID: id, Missing: true})
				break
			}
			out = append(out, ChainLink{ID: id, Title: redact.String(o.Title)})
			id = next(o)
		}
		return out
	}
	return walk(l.Supersedes, func(o *Learning) string { return o.Supersedes }),
		walk(l.SupersededBy, func(o *Learning) string { return o.SupersededBy })
}
