package main

import (
	"fmt"
	"io"

	"github.com/reflectkb/reflect/internal/redact"
	"github.com/reflectkb/reflect/store"
)

// maxChain bounds how far show follows supersedes links: a chain is a
// learning's revisions, a handful; a hand-made loop must not hang show.
const maxChain = 20

// chainLink is one learning of a supersession chain.
type chainLink struct {
	ID    string `json:"id"`
	Title string `json:"title,omitempty"`
	// Missing says the link names a learning that is not there.
	Missing bool `json:"missing,omitempty"`
}

// learningChain is what show adds about a learning's control state.
type learningChain struct {
	// Supersedes are the learnings l replaces, the nearest first.
	Supersedes []chainLink `json:"supersedes"`
	// SupersededBy are the learnings that replace l, the nearest first.
	SupersededBy []chainLink `json:"superseded_by"`
	// Held says why the hooks do not inject l ("" when they do).
	Held     string          `json:"held"`
	Feedback *store.Feedback `json:"feedback"`
}

// chainOf follows l's supersedes and superseded_by links both ways.
func chainOf(st *store.Store, l *store.Learning) learningChain {
	walk := func(first string, next func(*store.Learning) string) []chainLink {
		out := []chainLink{}
		seen := map[string]bool{l.ID: true}
		for id := first; id != "" && !seen[id] && len(out) < maxChain; {
			seen[id] = true
			o, err := st.Read(id)
			if err != nil {
				out = append(out, chainLink{ID: id, Missing: true})
				break
			}
			// Hand-edited files may hold what the writers would have redacted.
			out = append(out, chainLink{ID: id, Title: redact.String(o.Title)})
			id = next(o)
		}
		return out
	}
	fb := l.Feedback
	if fb == nil {
		fb = &store.Feedback{}
	}
	return learningChain{
		Supersedes:   walk(l.Supersedes, func(o *store.Learning) string { return o.Supersedes }),
		SupersededBy: walk(l.SupersededBy, func(o *store.Learning) string { return o.SupersededBy }),
		Held:         l.Held(),
		Feedback:     fb,
	}
}

// printChain writes the chain and the marks under the learning's file.
func printChain(w io.Writer, c learningChain) {
	line := func(label string, links []chainLink) {
		for i, k := range links {
			if i == 0 {
				fmt.Fprintf(w, "%s:\n", label)
			}
			if k.Missing {
				fmt.Fprintf(w, "  %s %s  (no such learning)\n", arrow(i), k.ID)
				continue
			}
			fmt.Fprintf(w, "  %s %s  %s\n", arrow(i), k.ID, oneLine(k.Title))
		}
	}
	line("Superseded by", c.SupersededBy)
	line("Supersedes", c.Supersedes)
	if s := c.Feedback.String(); s != "" {
		fmt.Fprintf(w, "Marks: %s\n", s)
	}
	if c.Held != "" {
		fmt.Fprintf(w, "Not injected by hooks: %s\n", heldReason(c.Held))
	}
}

func arrow(depth int) string {
	if depth == 0 {
		return "-"
	}
	return fmt.Sprintf("%*s└", 2*(depth-1), "")
}
