package writer

import (
	"context"
	"fmt"
	"strings"

	"github.com/reflectkb/reflect/internal/safetext"
	"github.com/reflectkb/reflect/internal/text"
	"github.com/reflectkb/reflect/transcript"
)

// Candidate is an existing learning the drainer found near the session's
// failures, shown to an LLM writer so that it can update or supersede it
// instead of writing a second learning about the same thing.
type Candidate struct {
	ID         string `json:"id"`
	Title      string `json:"title"`
	KeyInsight string `json:"key_insight"`
}

// Bounds of the candidates shown: a handful of short lines, since each
// costs prompt tokens in every run.
const (
	MaxCandidates       = 5
	candidateTitleRunes = 120
	candidateInsight    = 300
)

type candidatesKey struct{}

// WithCandidates records the near-duplicate candidates of the entry being
// reflected in ctx: the LLM writers name them in their prompt.
func WithCandidates(ctx context.Context, cands []Candidate) context.Context {
	if len(cands) > MaxCandidates {
		cands = cands[:MaxCandidates]
	}
	return context.WithValue(ctx, candidatesKey{}, cands)
}

// CandidatesFrom returns the candidates WithCandidates recorded in ctx.
func CandidatesFrom(ctx context.Context) []Candidate {
	cands, _ := ctx.Value(candidatesKey{}).([]Candidate)
	return cands
}

// promptFor is the prompt of an LLM writer run under ctx: Prompt with the
// candidates ctx holds, or the questions prompt of the subjects it holds
// (WithSubjects).
func promptFor(ctx context.Context, c *transcript.Condensed) string {
	if subs := subjectsFrom(ctx); len(subs) > 0 {
		return QuestionsPrompt(subs)
	}
	return PromptWith(c, CandidatesFrom(ctx))
}

// PromptWith is Prompt with the existing learnings the writer may update
// or supersede listed before the transcript. Their text comes from the
// knowledge base (a synced one included), so it is neutralised like any
// learning text shown to a model, and bounded.
func PromptWith(c *transcript.Condensed, cands []Candidate) string {
	p := Prompt(c)
	if len(cands) == 0 {
		return p
	}
	var b strings.Builder
	b.WriteString("\n<existing-learnings>\n")
	for i, k := range cands {
		if i == MaxCandidates {
			break
		}
		fmt.Fprintf(&b, "- %s: %s — %s\n", safetext.Inline(k.ID),
			text.ClipRunesTrim(safetext.Inline(k.Title), candidateTitleRunes),
			text.ClipRunesTrim(safetext.Inline(k.KeyInsight), candidateInsight))
	}
	b.WriteString("</existing-learnings>\n")
	i := strings.Index(p, "\n<transcript")
	if i < 0 {
		return p + b.String()
	}
	return p[:i] + b.String() + p[i:]
}
