package main

import (
	"fmt"
	"io"

	"github.com/reflectkb/reflect/store"
)

// learningChain is what show adds about a learning's control state.
type learningChain struct {
	// Supersedes are the learnings l replaces, the nearest first.
	Supersedes []store.ChainLink `json:"supersedes"`
	// SupersededBy are the learnings that replace l, the nearest first.
	SupersededBy []store.ChainLink `json:"superseded_by"`
	// Held says why the hooks do not inject l ("" when they do).
	Held     string          `json:"held"`
	Feedback *store.Feedback `json:"feedback"`
	// PendingSupersededBy are the drafts awaiting review that would
	// supersede l once approved (it stays injected until then).
	PendingSupersededBy []string `json:"pending_superseded_by,omitempty"`
}

// chainOf follows l's supersedes and superseded_by links both ways.
func chainOf(st *store.Store, l *store.Learning) learningChain {
	fb := l.Feedback
	if fb == nil {
		fb = &store.Feedback{}
	}
	sup, by := st.Chain(l)
	return learningChain{Supersedes: sup, SupersededBy: by, Held: l.Held(), Feedback: fb}
}

// printChain writes the chain and the marks under the learning's file.
func printChain(w io.Writer, c learningChain) {
	line := func(label string, links []store.ChainLink) {
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
	for _, id := range c.PendingSupersededBy {
		fmt.Fprintf(w, "A pending draft would supersede this: %s ('reflect review' approves or rejects it)\n", id)
	}
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
