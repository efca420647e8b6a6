package writer

import (
	"context"
	"github.com/reflectkb/reflect/transcript"

	"github.com/reflectkb/reflect/store"
)

// Writer turns a condensed transcript into learnings. Implementations run
// an LLM (claude, codex), an arbitrary command, or deterministic rules
// (builtin).
type Writer interface {
	// Name is the writer's name as configured: claude, codex, builtin, command.
	Name() string
	// Write returns the learnings found in c. An error means the run failed
	// and the entry should be retried; an Output with no learnings is a
	// success with nothing to write.
	Write(ctx context.Context, c *transcript.Condensed) (*Output, error)
}

// Output is what a writer returned, with what it cost.
type Output struct {
	Learnings    []Draft `json:"learnings"`
	CostUSD      float64 `json:"cost_usd,omitempty"`
	InputTokens  int     `json:"input_tokens,omitempty"`
	OutputTokens int     `json:"output_tokens,omitempty"`
}

// Draft is one learning in the writers' JSON contract (ARCHITECTURE §6):
// {"learnings":[{title, key_insight, problem, solution, confidence,
// category, tags, symptoms, questions, entities, relations, cites, update,
// supersedes}]}. Questions are what someone who has the problem would ask,
// in their own words (store.Learning.Questions): searched, never injected.
type Draft struct {
	Title      string               `json:"title"`
	KeyInsight string               `json:"key_insight"`
	Problem    string               `json:"problem,omitempty"`
	Solution   string               `json:"solution,omitempty"`
	Confidence string               `json:"confidence,omitempty"`
	Category   string               `json:"category,omitempty"`
	Tags       []string             `json:"tags,omitempty"`
	Symptoms   []string             `json:"symptoms,omitempty"`
	Questions  []string             `json:"questions,omitempty"`
	Entities   []store.Entity       `json:"entities,omitempty"`
	Relations  []store.Relationship `json:"relations,omitempty"`
	Cites      []string             `json:"cites,omitempty"`
	// Supersedes is the id of an existing learning this one replaces, when
	// the writer names one ("" otherwise); knowledge.Put links it back.
	Supersedes string `json:"supersedes,omitempty"`
	// Update is the id of an existing learning this one updates in place
	// (the writer's answer "update <id>"), "" otherwise. The drainer
	// accepts only an id it showed the writer as a candidate.
	Update string `json:"update,omitempty"`
}
