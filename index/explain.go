package index

import (
	"fmt"
	"strings"

	"github.com/reflectkb/reflect/internal/text"
)

// Explain renders w on one line, as 'reflect search --explain' and the web
// view show it: each signal's rank and raw score ("-" when it did not find
// the learning), its normalised score times its fusion weight and the
// product added to the fused score, then the factors the fused score was
// multiplied by.
func (w Why) Explain() string {
	c, n, wt := w.Contributions, w.Normalised, w.Weights
	signal := func(name string, rank int, norm, weight, share float64, details ...string) string {
		if rank == 0 {
			return name + " -"
		}
		details = append(details, fmt.Sprintf("%.2f × %g = +%.4f", norm, weight, share))
		return fmt.Sprintf("%s #%d (%s)", name, rank, strings.Join(details, ", "))
	}
	var graphDetails []string
	if w.GraphVia != "" {
		graphDetails = append(graphDetails, "via "+text.OneLine(w.GraphVia))
	}
	helpful := ""
	if w.Helpful > 1 {
		helpful = fmt.Sprintf(" × helpful %.2f", w.Helpful)
	}
	return strings.Join([]string{
		signal("lexical", w.LexicalRank, n.Lexical, wt.Lexical, c.Lexical, fmt.Sprintf("bm25 %.2f", w.BM25), fmt.Sprintf("%d terms", w.MatchedTerms)),
		signal("trigram", w.TrigramRank, n.Trigram, wt.Trigram, c.Trigram, fmt.Sprintf("%.0f%% of identifiers", 100*w.Identifiers)),
		signal("vector", w.VectorRank, n.Vector, wt.Vector, c.Vector, fmt.Sprintf("cos %.2f", w.Cosine)),
		signal("graph", w.GraphRank, n.Graph, wt.Graph, c.Graph, graphDetails...),
	}, " · ") + fmt.Sprintf(" = fused %.4f × confidence %.2f × scope %.2f × recency %.2f × freshness %.2f",
		w.Fused, w.Confidence, w.Scope, w.Recency, w.Freshness) + helpful
}
