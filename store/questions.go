package store

import (
	"strings"

	"github.com/reflectkb/reflect/internal/redact"
	"github.com/reflectkb/reflect/internal/text"
)

// Bounds of a learning's questions (Learning.Questions): a handful of short
// lines, whoever writes them (an LLM writer, `reflect enrich`, an agent
// through MCP remember).
const (
	MaxQuestions     = 5
	MaxQuestionRunes = 200
)

// CleanQuestions returns qs as a learning keeps them: each redacted, valid
// UTF-8 on one line without control characters, cut to MaxQuestionRunes;
// empty ones and repeats (case aside) dropped; at most MaxQuestions.
func CleanQuestions(qs []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, q := range qs {
		if len(out) == MaxQuestions {
			break
		}
		q = strings.Map(func(r rune) rune {
			if r < 0x20 || r == 0x7f {
				return ' '
			}
			return r
		}, strings.ToValidUTF8(q, "\uFFFD"))
		q = text.CutRunes(text.OneLine(redact.String(q)), MaxQuestionRunes)
		if k := strings.ToLower(q); q != "" && !seen[k] {
			seen[k] = true
			out = append(out, q)
		}
	}
	return out
}
