package recall

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/reflectkb/reflect/internal/safetext"
	"github.com/reflectkb/reflect/internal/text"
)

// The block's wrapper tags let the transcript condenser strip injected
// context before reflection, so recalled learnings are never learned again.
const (
	openTag  = "<reflect-learnings>"
	closeTag = "</reflect-learnings>"
	intro    = "Learnings from past sessions that may apply:"
)

// minInsightRunes is the shortest useful piece of an insight: below this
// an entry is a title and an id, and the id alone is cheaper.
const minInsightRunes = 40

// maxTitleRunes keeps a run-on title from eating an entry's budget.
const maxTitleRunes = 120

// clean makes learning text safe for one line of the block: no line break,
// no control or invisible character and no '<' or '>' in any spelling, so
// nothing in it can close the block (or open another) however it is
// written. Every piece of learning text in the block goes through it.
func clean(s string) string { return safetext.Inline(s) }

// entry is one learning as rendered: a header line and an indented insight.
type entry struct {
	header  string
	insight string
}

func newEntry(h Hit) entry {
	flags := clean(h.Confidence)
	if flags == "" {
		flags = "medium"
	}
	if h.Stale {
		flags += ", may be stale"
	}
	return entry{
		header:  fmt.Sprintf("- [%s] %s (%s)", flags, text.ClipWordsNear(clean(h.Title), maxTitleRunes), clean(h.ID)),
		insight: clean(h.Insight),
	}
}

func stillLine(h Hit) string {
	return fmt.Sprintf("still relevant: %s (%s)", clean(h.ID), text.ClipWordsNear(clean(h.Title), maxTitleRunes))
}

// runes counts what the budget counts: characters, not bytes.
func runes(s string) int { return utf8.RuneCountInString(s) }

// render builds the context block from the new hits (best first) and the
// already-injected top hit, if any, within chars characters. Insights are
// shortened to fit, fairly: short ones are kept whole and the long ones
// share what is left. Entries that cannot fit with a useful part of their
// insight are dropped from the end. It returns the block and the hits it
// holds; "" when not even one line fits.
func render(hits []Hit, still *Hit, chars int) (string, []Hit) {
	fixed := runes(openTag) + 1 + runes(closeTag)
	var lines []string
	if still != nil {
		lines = append(lines, stillLine(*still))
		fixed += runes(lines[0]) + 1
	}
	for n := len(hits); n > 0; n-- {
		entries := make([]entry, n)
		need := fixed + runes(intro) + 1
		least := 0
		for i := range entries {
			e := newEntry(hits[i])
			entries[i] = e
			need += runes(e.header) + 1
			if e.insight != "" {
				need += 3 // indent and newline
				least += min(runes(e.insight), minInsightRunes)
			}
		}
		room := chars - need
		if room < least {
			continue
		}
		share := fairShares(entries, room)
		out := append([]string{}, lines...)
		out = append(out, intro)
		for i, e := range entries {
			out = append(out, e.header)
			if e.insight != "" {
				out = append(out, "  "+text.ClipWordsNear(e.insight, share[i]))
			}
		}
		block := wrap(out)
		if runes(block) <= chars {
			return block, hits[:n]
		}
	}
	if len(lines) > 0 {
		if block := wrap(lines); runes(block) <= chars {
			return block, nil
		}
	}
	return "", nil
}

func wrap(lines []string) string {
	return openTag + "\n" + strings.Join(lines, "\n") + "\n" + closeTag
}

// fairShares splits room characters among the entries' insights: each gets
// its full length or an equal part of what the shorter ones left, whichever
// is less (water-filling).
func fairShares(entries []entry, room int) []int {
	share := make([]int, len(entries))
	order := make([]int, len(entries))
	for i := range order {
		order[i] = i
	}
	// Shortest first, so what a short insight does not use goes to the
	// longer ones.
	for i := 1; i < len(order); i++ {
		for j := i; j > 0 && runes(entries[order[j]].insight) < runes(entries[order[j-1]].insight); j-- {
			order[j], order[j-1] = order[j-1], order[j]
		}
	}
	left := len(order)
	for _, i := range order {
		give := room / left
		if l := runes(entries[i].insight); l < give {
			give = l
		}
		share[i] = give
		room -= give
		left--
	}
	return share
}
