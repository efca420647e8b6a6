package index

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/kljensen/snowball/english"

	"github.com/reflectkb/reflect/internal/fold"
)

// BM25F parameters. FTS5's built-in bm25() fixes k1=1.2 and b=0.75 and
// normalises by the length of all columns together; learnings are short and
// their fields differ in length, so reflect re-scores FTS5's candidates with
// per-field length normalisation and the k1/b that Lucene/Anserini use.
const (
	bm25K1 = 0.9
	bm25B  = 0.4
)

// fields are the indexed fields in FTS5 column order, with their BM25F
// weights: a word in the title says more than the same word in the body.
var fieldWeights = [numFields]float64{weightTitle, weightInsight, weightTags, weightBody}

const numFields = 4

// analyze splits text into lowercase stemmed tokens (Snowball English),
// separating on anything that is not a letter or digit as FTS5's unicode61
// tokenizer does. Diacritics are folded away (a query for "cafe" finds
// "café") and CJK runs become overlapping character pairs (a word inside
// a title written without spaces is found): see package fold.
func analyze(text string, cache map[string]string) []string {
	words := fold.Words(text)
	for i, w := range words {
		s, ok := cache[w]
		if !ok {
			s = english.Stem(w, true)
			if len(cache) < 200000 {
				// fold.Words cuts its words out of one string per text:
				// a cached substring would keep the whole text alive
				// (at 10,000 learnings, 15 MB of a reindex's heap).
				k := strings.Clone(w)
				if s == w {
					s = k
				} else {
					s = strings.Clone(s)
				}
				cache[k] = s
			}
		}
		words[i] = s
	}
	return words
}

// fieldStats is what BM25F needs of one document: each field's length in
// tokens and each term's frequency per field.
type fieldStats struct {
	lens [numFields]int
	tf   map[string]*[numFields]int
}

func computeStats(fieldTexts [numFields]string, cache map[string]string) fieldStats {
	st := fieldStats{tf: map[string]*[numFields]int{}}
	for f, text := range fieldTexts {
		toks := analyze(text, cache)
		st.lens[f] = len(toks)
		for _, t := range toks {
			c := st.tf[t]
			if c == nil {
				c = new([numFields]int)
				st.tf[t] = c
			}
			c[f]++
		}
	}
	return st
}

// maxTermLen bounds indexed terms; longer "words" are hashes or junk.
const maxTermLen = 255

// corpusStats are the collection-wide numbers BM25F needs.
type corpusStats struct {
	docs   int
	avgLen [numFields]float64
}

func loadCorpusStats(ctx context.Context, db *sql.DB) (corpusStats, error) {
	var cs corpusStats
	var totals string
	err := db.QueryRowContext(ctx, `SELECT value FROM meta WHERE key='field_totals'`).Scan(&totals)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return cs, fmt.Errorf("search: %w", err)
	}
	var sums [numFields]float64
	if _, err := fmt.Sscan(totals, &cs.docs, &sums[0], &sums[1], &sums[2], &sums[3]); err != nil {
		// A catalog written before totals were kept: sum them now (slower,
		// but correct; the next reindex stores them).
		var ns [numFields]sql.NullFloat64
		err := db.QueryRowContext(ctx, `SELECT count(*), sum(l0), sum(l1), sum(l2), sum(l3) FROM stats`).
			Scan(&cs.docs, &ns[0], &ns[1], &ns[2], &ns[3])
		if err != nil {
			return cs, fmt.Errorf("search: %w", err)
		}
		for f := range ns {
			sums[f] = ns[f].Float64
		}
	}
	for f := range sums {
		if cs.docs > 0 {
			cs.avgLen[f] = sums[f] / float64(cs.docs)
		}
	}
	return cs, nil
}

// idf is BM25's inverse document frequency (Lucene's variant, never
// negative).
func (cs corpusStats) idf(df int) float64 {
	n, d := float64(cs.docs), float64(df)
	return math.Log(1 + (n-d+0.5)/(d+0.5))
}

// saturate is BM25F's term weight before idf (Robertson & Zaragoza):
// per-field length-normalised term frequencies are weighted and summed
// before the k1 saturation.
func (cs corpusStats) saturate(tf, lens *[numFields]int) float64 {
	var pseudo float64
	for f := 0; f < numFields; f++ {
		if tf[f] == 0 {
			continue
		}
		norm := 1.0
		if cs.avgLen[f] > 0 {
			norm = 1 - bm25B + bm25B*float64(lens[f])/cs.avgLen[f]
		}
		pseudo += fieldWeights[f] * float64(tf[f]) / norm
	}
	return pseudo / (bm25K1 + pseudo)
}

// saveCorpusTotals records the document count and per-field token totals
// after a reindex, so a search reads one row instead of summing a column.
func saveCorpusTotals(ctx context.Context, tx *sql.Tx) error {
	var n int
	var sums [numFields]sql.NullInt64
	err := tx.QueryRowContext(ctx, `SELECT count(*), sum(l0), sum(l1), sum(l2), sum(l3) FROM stats`).
		Scan(&n, &sums[0], &sums[1], &sums[2], &sums[3])
	if err != nil {
		return fmt.Errorf("reindex: totals: %w", err)
	}
	totals := fmt.Sprintf("%d %d %d %d %d", n, sums[0].Int64, sums[1].Int64, sums[2].Int64, sums[3].Int64)
	_, err = tx.ExecContext(ctx, `INSERT OR REPLACE INTO meta(key,value) VALUES('field_totals',?)`, totals)
	return err
}
