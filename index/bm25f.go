package index

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"sort"
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

// The term-frequency record of one document, built for lookups of a few
// query terms among a few hundred candidates per search:
//
//	uint32 n | n × uint32 entry offsets | entries sorted by term
//	entry: uint8 len | term | 4 × uvarint count (one per field)
//
// All integers little-endian. A lookup is a binary search over the offsets,
// touching a handful of entries instead of scanning the whole record.

// maxTermLen bounds indexed terms; longer "words" are hashes or junk.
const maxTermLen = 255

// encode builds the record.
func (st fieldStats) encode() []byte {
	terms := make([]string, 0, len(st.tf))
	for t := range st.tf {
		if len(t) <= maxTermLen {
			terms = append(terms, t)
		}
	}
	sort.Strings(terms)
	head := 4 + 4*len(terms)
	out := make([]byte, head, head+len(terms)*12)
	binary.LittleEndian.PutUint32(out, uint32(len(terms)))
	for i, t := range terms {
		binary.LittleEndian.PutUint32(out[4+4*i:], uint32(len(out)-head))
		out = append(out, byte(len(t)))
		out = append(out, t...)
		for _, c := range st.tf[t] {
			out = binary.AppendUvarint(out, uint64(c))
		}
	}
	return out
}

// entry returns the i-th term of a record and the bytes after it, or false
// when the record is damaged (the catalog is derived data; a damaged record
// reads as "term not present", never as a panic).
func entry(tf []byte, n, i int) (string, []byte, bool) {
	head := 4 + 4*n
	off := head + int(binary.LittleEndian.Uint32(tf[4+4*i:]))
	if off >= len(tf) {
		return "", nil, false
	}
	l := int(tf[off])
	if off+1+l > len(tf) {
		return "", nil, false
	}
	return string(tf[off+1 : off+1+l]), tf[off+1+l:], true
}

func recordLen(tf []byte) (int, bool) {
	if len(tf) < 4 {
		return 0, false
	}
	n := int(binary.LittleEndian.Uint32(tf))
	if n < 0 || 4+4*n > len(tf) {
		return 0, false
	}
	return n, true
}

// termsOf lists the terms of an encoded record.
func termsOf(tf []byte) []string {
	n, ok := recordLen(tf)
	if !ok {
		return nil
	}
	out := make([]string, 0, n)
	for i := 0; i < n; i++ {
		if t, _, ok := entry(tf, n, i); ok {
			out = append(out, t)
		}
	}
	return out
}

// lookup returns a term's per-field frequencies in an encoded record.
func lookup(tf []byte, term string) ([numFields]int, bool) {
	var c [numFields]int
	n, ok := recordLen(tf)
	if !ok {
		return c, false
	}
	lo, hi := 0, n
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		t, rest, ok := entry(tf, n, mid)
		if !ok {
			return c, false
		}
		switch {
		case t < term:
			lo = mid + 1
		case t > term:
			hi = mid
		default:
			for f := 0; f < numFields; f++ {
				v, k := binary.Uvarint(rest)
				if k <= 0 {
					return c, false
				}
				c[f], rest = int(v), rest[k:]
			}
			return c, true
		}
	}
	return c, false
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

// rareDF is the share of documents below which one query word alone makes
// a learning a candidate; more common words must come in pairs.
const rareDF = 0.01

// maxPairTerms bounds the words paired up, the rarest first (n words make
// n(n-1)/2 pairs, and every pair is a doclist intersection).
const maxPairTerms = 5

// candidateQueries returns the FTS5 queries that find candidates, the
// cheapest first. In a large knowledge base a learning that shares only one
// fairly common word with a query of several words is rarely what it
// wants, yet scoring every such learning was most of a search's time: so
// the first query asks for learnings with two of the query's words (or one
// rare word), and the plain OR of every word is the fallback when that
// finds too few.
func (cs corpusStats) candidateQueries(terms, stemOf []string) []string {
	keep := cs.selective(terms, stemOf)
	all := quoteAll(keep)
	if cs.docs < 1000 || len(keep) < 3 {
		return []string{all}
	}
	stem := map[string]string{}
	for i, t := range terms {
		stem[t] = stemOf[i]
	}
	rareLimit := max(int(rareDF*float64(cs.docs)), 10)
	var parts, common []string
	for _, t := range keep {
		if cs.df[stem[t]] <= rareLimit {
			parts = append(parts, quoteAll([]string{t}))
		} else {
			common = append(common, t)
		}
	}
	sort.SliceStable(common, func(i, j int) bool { return cs.df[stem[common[i]]] < cs.df[stem[common[j]]] })
	if len(common) > maxPairTerms {
		common = common[:maxPairTerms]
	}
	for i := 0; i < len(common); i++ {
		for j := i + 1; j < len(common); j++ {
			parts = append(parts, "("+quoteAll([]string{common[i]})+" AND "+quoteAll([]string{common[j]})+")")
		}
	}
	if len(parts) == 0 {
		return []string{all}
	}
	return []string{strings.Join(parts, " OR "), all}
}
