package index

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
)

// lexical scores every learning that contains a query stem with BM25F
// (bm25f.go), each stem's idf capped at idfCap when that is positive, and
// returns the best limit, best first, with the query's
// attainable score: the sum of the idf of every query stem the KB holds,
// which is what a learning matching all of them with full weight would
// score (saturation tends to 1). A score divided by it is the share of
// the query's evidence a learning holds, whatever the KB's size.
//
// aliases maps a word the developer vocabulary added (vocab.go) to the
// query words it stands for: its idf is capped at theirs, so "db" added for
// "the test database" is as telling as "database" is, not as rare as "db"
// happens to be in the KB.
func (ix *Index) lexical(ctx context.Context, terms []string, limit int, idfCap float64, aliases map[string][]string) ([]hit, float64, error) {
	cache := map[string]string{}
	seen := map[string]bool{}
	var stems []string
	var sources map[string][]string // an added stem → the stems it stands for
	for _, t := range terms {
		for _, s := range analyze(t, cache) {
			if !seen[s] && len(s) <= maxTermLen {
				seen[s] = true
				stems = append(stems, s)
				if src, ok := aliases[t]; ok {
					if sources == nil {
						sources = map[string][]string{}
					}
					for _, w := range src {
						sources[s] = append(sources[s], analyze(w, cache)...)
					}
				}
			}
		}
	}
	if len(stems) == 0 {
		return nil, 0, nil
	}
	cs, err := loadCorpusStats(ctx, ix.db)
	if err != nil {
		return nil, 0, err
	}
	var df map[string]int
	idf := func(term string) float64 {
		v := cs.idf(df[term])
		if src := sources[term]; len(src) > 0 {
			// As telling as the rarest word it stands for, no more.
			most := 0.0
			for _, s := range src {
				most = math.Max(most, cs.idf(df[s]))
			}
			v = aliasWeight * math.Min(v, most)
		}
		if idfCap <= 0 || v < idfCap {
			return v
		}
		return idfCap
	}
	top := newTopK(limit)
	// A query reads each stem's rows, adjacent in postings_term,
	// and through the memory map each leaf stays resident with the pages
	// the kernel maps around it (64 KB a fault), on top of the pages its
	// rerank reads later. The map is dropped once they are scored
	// (thenUnmap); reading them with pread instead saved as much memory
	// but cost 15 µs a page, a fifth of the hook (docs/benchmarks.md).
	err = ix.thenUnmap(ctx, func() error {
		var chunks []postingChunk
		var minChunk, maxChunk int64
		var err error
		chunks, df, minChunk, maxChunk, err = ix.readPostings(ctx, stems)
		if err != nil || len(chunks) == 0 {
			return err
		}
		// Every stem's idf needs its document frequency over all chunks,
		// so scoring starts once the postings are read; it then goes chunk
		// by chunk, each with its norms row as it is read, into one
		// chunk's worth of scores: neither a copy of the norms (8 bytes a
		// learning) nor a score per learning is held for the whole KB.
		return ix.scoreChunks(ctx, chunks, minChunk, maxChunk, idf, &cs, top)
	})
	if err != nil {
		return nil, 0, err
	}
	// In the query's order, so that the sum is the same to the last bit
	// from one search to the next (a map's order is not).
	var attainable float64
	for _, s := range stems {
		if _, ok := df[s]; ok {
			attainable += idf(s)
		}
	}
	return top.sorted(), attainable, nil
}

// scoreChunks scores the postings chunks (as read: by chunk, and within
// a chunk in the table's order of stems) with the norms rows of chunks
// first to last, read one at a time, adding each chunk's learnings to top.
func (ix *Index) scoreChunks(ctx context.Context, chunks []postingChunk, first, last int64, idf func(string) float64, cs *corpusStats, top *topK) error {
	byChunk := make(map[int64][]postingChunk, last-first+1)
	for _, p := range chunks {
		byChunk[p.chunk] = append(byChunk[p.chunk], p)
	}
	s := newChunkScorer(idf, cs, top)
	rows, err := ix.db.QueryContext(ctx, `SELECT chunk, data FROM norms WHERE chunk BETWEEN ? AND ?`, first, last)
	if err != nil {
		return fmt.Errorf("search: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var c int64
		// Read in place: the chunk is scored before the next row.
		var norms sql.RawBytes
		if err := rows.Scan(&c, &norms); err != nil {
			return err
		}
		if ps := byChunk[c]; len(ps) > 0 {
			s.score(c, ps, norms)
			delete(byChunk, c)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("search: %w", err)
	}
	// A chunk without a norms row (a writer removed its last learning
	// between the reads) scores as learnings of no length.
	rest := make([]int64, 0, len(byChunk))
	for c := range byChunk {
		rest = append(rest, c)
	}
	slices.Sort(rest)
	for _, c := range rest {
		s.score(c, byChunk[c], nil)
	}
	return nil
}

// chunkScorer scores a query's postings one chunk at a time into a
// chunk's worth of scores, which it hands to a topK.
type chunkScorer struct {
	idf     func(string) float64
	cs      *corpusStats
	top     *topK
	scores  []float64
	matched []uint8
	pr      pruner
}

func newChunkScorer(idf func(string) float64, cs *corpusStats, top *topK) *chunkScorer {
	// A learning has one entry per term, so counting entries counts the
	// query stems it contains.
	return &chunkScorer{idf: idf, cs: cs, top: top,
		scores: make([]float64, 1<<chunkShift), matched: make([]uint8, 1<<chunkShift)}
}

// score scores chunk c's postings ps (its stems in the order read) with
// its norms. The additions to a learning's score are made in the order of
// ps, as an exhaustive scan makes them, so a score is the same to the last
// bit; only learnings that cannot reach the top are left out (prune.go).
func (s *chunkScorer) score(c int64, ps []postingChunk, norms []byte) {
	want := s.pr.candidates(ps, s.idf, s.top)
	for _, p := range ps {
		scoreEntries(0, p.entries, norms, s.idf(p.term), s.cs, s.scores, s.matched, want)
	}
	s.top.addChunk(c, s.scores, s.matched)
	clear(s.scores)
	clear(s.matched)
}

// postingChunk is one stem's postings in one chunk, after its count.
type postingChunk struct {
	term    string
	chunk   int64
	entries []byte
}

// readPostings reads the postings of stems, one range of the term-first
// postings_term index per stem (stems ascending, each stem's chunks
// ascending), and each stem's document frequency, with the first and last
// chunk that held any. Grouped by chunk, a chunk's rows keep the stems
// ascending, the order in which the chunk-first table gave them, so every
// score is summed in the same order to the last bit.
func (ix *Index) readPostings(ctx context.Context, stems []string) ([]postingChunk, map[string]int, int64, int64, error) {
	args := make([]any, len(stems))
	for i, s := range stems {
		args[i] = s
	}
	rows, err := ix.db.QueryContext(ctx,
		`SELECT chunk, term, data FROM postings WHERE term IN (?`+strings.Repeat(",?", len(stems)-1)+`) ORDER BY term, chunk`, args...)
	if err != nil {
		return nil, nil, 0, 0, fmt.Errorf("search: %w", err)
	}
	defer rows.Close()
	var chunks []postingChunk
	df := map[string]int{}
	minChunk, maxChunk := int64(maxChunkIndex), int64(0)
	for rows.Next() {
		var c postingChunk
		var data []byte
		if err := rows.Scan(&c.chunk, &c.term, &data); err != nil {
			return nil, nil, 0, 0, err
		}
		if c.chunk < 0 || c.chunk > maxChunkIndex {
			continue // damaged: not a chunk this index writes
		}
		var count int
		count, c.entries = chunkCount(data)
		df[c.term] += count
		minChunk, maxChunk = min(minChunk, c.chunk), max(maxChunk, c.chunk)
		chunks = append(chunks, c)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, 0, 0, fmt.Errorf("search: %w", err)
	}
	return chunks, df, minChunk, maxChunk, nil
}

// scoreChunk adds one term's BM25F contribution (idf × saturated pseudo
// frequency) to the score of every learning in a chunk, and counts the term
// in matched. It is eachEntry and saturate unrolled by hand, with the
// one-byte numbers (nearly all of them) read inline: it is the inner loop
// of every search. A damaged chunk stops it quietly, as it does eachEntry.
func scoreChunk(chunk int64, data, norms []byte, idf float64, cs *corpusStats, scores []float64, matched []uint8) {
	scoreEntries(chunk, data, norms, idf, cs, scores, matched, nil)
}

// scoreEntries is scoreChunk for the learnings whose offset in the chunk
// is set in want (every learning when want is nil): the others' entries
// are read past without a score.
func scoreEntries(chunk int64, data, norms []byte, idf float64, cs *corpusStats, scores []float64, matched []uint8, want []bool) {
	var inv [numFields]float64 // bm25B / avgLen per field
	for f := range inv {
		if cs.avgLen[f] > 0 {
			inv[f] = bm25B / cs.avgLen[f]
		}
	}
	base := int(chunk << chunkShift)
	off := -1
	i := 0
	// uvarint reads a number of more than one byte; ok is false at the
	// end of the data or on damage.
	uvarint := func() (uint64, bool) {
		if i >= len(data) {
			return 0, false
		}
		b := data[i]
		i++
		x, shift := uint64(b&0x7f), uint(7)
		for b >= 0x80 {
			if i >= len(data) || shift > 35 {
				return 0, false
			}
			b = data[i]
			i++
			x |= uint64(b&0x7f) << shift
			shift += 7
		}
		return x, true
	}
	for i < len(data) {
		var h uint64
		ok := true
		if b := data[i]; b < 0x80 {
			h = uint64(b)
			i++
		} else {
			h, ok = uvarint()
		}
		if !ok || h&entryMask == 0 || h>>entryShift >= 1<<chunkShift {
			return
		}
		off += int(h>>entryShift) + 1
		n := base + off
		if off >= 1<<chunkShift || n >= len(scores) {
			return
		}
		if want != nil && !want[off] {
			if i, ok = skipTFs(data, i, h); !ok {
				return
			}
			continue
		}
		o := off * normWidth
		hasNorm := o+normWidth <= len(norms)
		var pseudo float64
		for f := 0; f < numFields; f++ {
			if h&(1<<f) == 0 {
				continue
			}
			tf := uint64(1)
			if h&entryOnes == 0 {
				if i < len(data) && data[i] < 0x80 {
					tf = uint64(data[i])
					i++
				} else if tf, ok = uvarint(); !ok {
					return
				}
			}
			norm := 1.0
			if inv[f] > 0 {
				l := 0
				if hasNorm {
					l = int(norms[o+2*f]) | int(norms[o+2*f+1])<<8
				}
				norm = 1 - bm25B + inv[f]*float64(l)
			}
			pseudo += fieldWeights[f] * float64(tf) / norm
		}
		scores[n] += idf * pseudo / (bm25K1 + pseudo)
		if matched[n] < math.MaxUint8 {
			matched[n]++
		}
	}
}

// topK keeps the limit best non-zero scores seen (ties: lower docs row
// first) in a bounded min-heap, instead of sorting every matching learning.
type topK struct {
	limit int
	h     []hit
}

func newTopK(limit int) *topK {
	return &topK{limit: limit, h: make([]hit, 0, max(limit, 0))}
}

// worse reports whether a ranks below b.
func worse(a, b hit) bool {
	if a.score != b.score {
		return a.score < b.score
	}
	return a.n > b.n
}

// addChunk offers every learning of chunk c with a non-zero score, with
// the query stems it matched. The result does not depend on the order of
// the offers: worse is a total order.
func (t *topK) addChunk(c int64, scores []float64, matched []uint8) {
	if t.limit <= 0 {
		return
	}
	base := c << chunkShift
	for off, s := range scores {
		if s <= 0 {
			continue
		}
		x := hit{n: base + int64(off), score: s, matched: int(matched[off])}
		if len(t.h) < t.limit {
			t.h = append(t.h, x)
			t.up(len(t.h) - 1)
			continue
		}
		if worse(t.h[0], x) {
			t.h[0] = x
			t.down(0)
		}
	}
}

func (t *topK) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !worse(t.h[i], t.h[p]) {
			return
		}
		t.h[i], t.h[p] = t.h[p], t.h[i]
		i = p
	}
}

func (t *topK) down(i int) {
	h := t.h
	for {
		l, m := 2*i+1, i
		if l < len(h) && worse(h[l], h[m]) {
			m = l
		}
		if r := l + 1; r < len(h) && worse(h[r], h[m]) {
			m = r
		}
		if m == i {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}

// threshold returns the score a learning must reach to enter, and false
// while the heap has room for any score.
func (t *topK) threshold() (float64, bool) {
	if t.limit <= 0 || len(t.h) < t.limit {
		return 0, false
	}
	return t.h[0].score, true
}

// sorted returns the kept hits, best first.
func (t *topK) sorted() []hit {
	sort.Slice(t.h, func(i, j int) bool { return worse(t.h[j], t.h[i]) })
	return t.h
}
