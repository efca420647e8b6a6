package index

import (
	"fmt"
	"strings"

	"github.com/reflectkb/reflect/internal/text"
)

// Explain renders w on one line, as 'reflect search --explain' and the web
// view show it: each signal's rank, raw score and share of the fused score
// ("-" when it did not find the learning), then the factors the fused
// score was multiplied by.
func (w Why) Explain() string {
	c := w.Contributions
	signal := func(name string, rank int, share float64, details ...string) string {
		if rank == 0 {
			return name + " -"
		}
		details = append(details, fmt.Sprintf("+%.4f", share))
		return fmt.Sprintf("%s #%d (%s)", name, rank, strings.Join(details, ", "))
	}
	graph := signal("graph", w.GraphRank, c.Graph)
	if w.GraphRank > 0 && w.GraphVia != "" {
		graph = fmt.Sprintf("graph #%d via %s (+%.4f)", w.GraphRank, text.OneLine(w.GraphVia), c.Graph)
	}
	helpful := ""
	if w.Helpful > 1 {
		helpful = fmt.Sprintf(" × helpful %.2f", w.Helpful)
	}
	return strings.Join([]string{
		signal("lexical", w.LexicalRank, c.Lexical, fmt.Sprintf("bm25 %.2f", w.BM25), fmt.Sprintf("%d terms", w.MatchedTerms)),
		signal("trigram", w.TrigramRank, c.Trigram),
		signal("vector", w.VectorRank, c.Vector, fmt.Sprintf("cos %.2f", w.Cosine)),
		graph,
	}, " · ") + fmt.Sprintf(" = fused %.4f × confidence %.2f × scope %.2f × recency %.2f × freshness %.2f",
		w.Fused, w.Confidence, w.Scope, w.Recency, w.Freshness) + helpful
}
