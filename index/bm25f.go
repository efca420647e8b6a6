package index

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"

	"github.com/kljensen/snowball/english"
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
// tokenizer does.
func analyze(text string, cache map[string]string) []string {
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	for i, w := range words {
		s, ok := cache[w]
		if !ok {
			s = english.Stem(w, true)
			if len(cache) < 200000 {
				cache[w] = s
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

// encode stores the term frequencies as text, "\nterm c0 c1 c2 c3" per
// term, so a query can find its few terms with bytes.Index instead of
// decoding the whole record.
func (st fieldStats) encode() []byte {
	var b bytes.Buffer
	for t, c := range st.tf {
		fmt.Fprintf(&b, "\n%s %d %d %d %d", t, c[0], c[1], c[2], c[3])
	}
	b.WriteByte('\n')
	return b.Bytes()
}

// termsOf lists the terms of an encoded record.
func termsOf(tf []byte) []string {
	var out []string
	for _, line := range bytes.Split(tf, []byte("\n")) {
		if i := bytes.IndexByte(line, ' '); i > 0 {
			out = append(out, string(line[:i]))
		}
	}
	return out
}

// lookup returns a term's per-field frequencies in an encoded record.
func lookup(tf []byte, term string) ([numFields]int, bool) {
	var c [numFields]int
	i := bytes.Index(tf, []byte("\n"+term+" "))
	if i < 0 {
		return c, false
	}
	rest := tf[i+len(term)+2:]
	if j := bytes.IndexByte(rest, '\n'); j >= 0 {
		rest = rest[:j]
	}
	parts := strings.Fields(string(rest))
	for f := 0; f < numFields && f < len(parts); f++ {
		c[f], _ = strconv.Atoi(parts[f])
	}
	return c, true
}

// corpusStats are the collection-wide numbers BM25F needs.
type corpusStats struct {
	docs   int
	avgLen [numFields]float64
	df     map[string]int
}

func loadCorpusStats(ctx context.Context, db *sql.DB, stems []string) (corpusStats, error) {
	cs := corpusStats{df: map[string]int{}}
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
	if len(stems) == 0 {
		return cs, nil
	}
	args := make([]any, len(stems))
	for i, s := range stems {
		args[i] = s
	}
	rows, err := db.QueryContext(ctx, `SELECT term, df FROM terms WHERE term IN (?`+strings.Repeat(",?", len(stems)-1)+`)`, args...)
	if err != nil {
		return cs, fmt.Errorf("search: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var t string
		var df int
		if err := rows.Scan(&t, &df); err != nil {
			return cs, err
		}
		cs.df[t] = df
	}
	return cs, rows.Err()
}

// score is BM25F (Robertson & Zaragoza): per-field length-normalised term
// frequencies are weighted and summed before the k1 saturation.
func (cs corpusStats) score(lens [numFields]int, tf []byte, stems []string) float64 {
	var total float64
	for _, t := range stems {
		c, ok := lookup(tf, t)
		if !ok {
			continue
		}
		var pseudo float64
		for f := 0; f < numFields; f++ {
			if c[f] == 0 {
				continue
			}
			norm := 1.0
			if cs.avgLen[f] > 0 {
				norm = 1 - bm25B + bm25B*float64(lens[f])/cs.avgLen[f]
			}
			pseudo += fieldWeights[f] * float64(c[f]) / norm
		}
		df := float64(cs.df[t])
		n := float64(cs.docs)
		idf := math.Log(1 + (n-df+0.5)/(df+0.5))
		total += idf * pseudo / (bm25K1 + pseudo)
	}
	return total
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

// maxCandidateDF is the share of documents above which a term no longer
// selects candidates: a word in most learnings says little about which
// ones matter, while scoring its whole posting list costs the most. Such
// terms still count when the candidates are scored.
const maxCandidateDF = 0.4

// selective returns the terms worth matching in FTS5: those whose document
// frequency is at most maxCandidateDF, or the rarest term when all are
// common. Small collections keep every term.
func (cs corpusStats) selective(terms, stemOf []string) []string {
	if cs.docs < 1000 {
		return terms
	}
	limit := int(maxCandidateDF * float64(cs.docs))
	var keep []string
	rarest, rarestDF := "", -1
	for i, t := range terms {
		df := cs.df[stemOf[i]]
		if df <= limit {
			keep = append(keep, t)
		}
		if rarestDF < 0 || df < rarestDF {
			rarest, rarestDF = t, df
		}
	}
	if len(keep) == 0 && rarest != "" {
		keep = []string{rarest}
	}
	return keep
}
