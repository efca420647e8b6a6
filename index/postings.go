package index

import (
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"math"
	"sort"
	"strings"
)

// Postings are reflect's own inverted index, kept in the catalog beside
// FTS5. Reading the posting lists of the query's few stems and scoring
// every matching learning exactly is several times faster than FTS5's
// ranked candidate query plus re-scoring its candidates from their
// term-frequency records (measured in docs/benchmarks.md), and no relevant
// learning is lost to candidate pruning.
//
// A term's postings are split in chunks of chunkSize docs rows, so a
// changed learning rewrites a few kilobytes per term, not whole lists:
//
//	postings(term, chunk, data)   data = uvarint count | entries, in any order
//	entry: uvarint (n - chunk<<chunkShift) | 4 × uvarint tf | 4 × uvarint field length
//
// The count gives a term's document frequency without decoding a chunk.
//
// Carrying the field lengths in every entry costs a few bytes and saves a
// second lookup per matching learning.
const chunkShift = 12

// maxChunkIndex bounds the chunks a search will allocate scores for (2^32
// docs rows); a larger one is damage.
const maxChunkIndex = 1 << 20

const postingsSchema = `CREATE TABLE IF NOT EXISTS postings(term TEXT NOT NULL, chunk INTEGER NOT NULL, data BLOB NOT NULL, PRIMARY KEY(term, chunk)) WITHOUT ROWID`

type chunkKey struct {
	term  string
	chunk int64
}

// chunkEdit is what one reindex does to one chunk: entries to append and
// docs rows whose old entries go.
type chunkEdit struct {
	add  []byte
	adds int
	del  map[int64]bool
}

// postingsWriter collects the edits of one reindex transaction and writes
// each touched chunk once at the end.
type postingsWriter struct {
	edits map[chunkKey]*chunkEdit
	// fresh: the table was emptied by this transaction (a full reindex),
	// so no chunk needs reading before it is written.
	fresh bool
	// chunk is the chunk of the last learning a fresh writer added.
	chunk int64
}

// startDoc is told, before add, that docs row n comes next, and flushes
// the edits of a fresh writer's finished chunks: a full reindex numbers
// rows in order, so once n enters a new chunk no learning will add to the
// earlier ones. Holding every chunk until the end was the largest part of
// a full reindex's memory, growing with the KB. Should rows ever arrive
// out of order, the writer stops trusting fresh and merges with what it
// wrote, which is correct at any order.
func (p *postingsWriter) startDoc(ctx context.Context, tx *sql.Tx, n int64) error {
	if !p.fresh {
		return nil
	}
	switch c := n >> chunkShift; {
	case c < p.chunk:
		p.fresh = false
		return nil
	case c > p.chunk:
		p.chunk = c
		return p.flush(ctx, tx)
	}
	return nil
}

func newPostingsWriter(fresh bool) *postingsWriter {
	return &postingsWriter{edits: map[chunkKey]*chunkEdit{}, fresh: fresh}
}

func (p *postingsWriter) edit(term string, n int64) *chunkEdit {
	k := chunkKey{term, n >> chunkShift}
	e := p.edits[k]
	if e == nil {
		e = &chunkEdit{}
		p.edits[k] = e
	}
	return e
}

// add records document n's statistics.
func (p *postingsWriter) add(n int64, st fieldStats) {
	for t, tf := range st.tf {
		if len(t) > maxTermLen {
			continue
		}
		e := p.edit(t, n)
		e.add = appendEntry(e.add, n, tf, &st.lens)
		e.adds++
	}
}

// remove records that document n, which had terms, is gone.
func (p *postingsWriter) remove(n int64, terms []string) {
	for _, t := range terms {
		e := p.edit(t, n)
		if e.del == nil {
			e.del = map[int64]bool{}
		}
		e.del[n] = true
	}
}

func appendEntry(b []byte, n int64, tf, lens *[numFields]int) []byte {
	b = binary.AppendUvarint(b, uint64(n&(1<<chunkShift-1)))
	for _, c := range tf {
		b = binary.AppendUvarint(b, uint64(c))
	}
	for _, l := range lens {
		b = binary.AppendUvarint(b, uint64(l))
	}
	return b
}

// entryOf is one decoded entry.
type entryOf struct {
	n    int64
	tf   [numFields]int
	lens [numFields]int
}

// chunkCount returns a chunk's entry count and its entries.
func chunkCount(data []byte) (int, []byte) {
	c, k := binary.Uvarint(data)
	if k <= 0 || c > uint64(len(data)) {
		return 0, nil
	}
	return int(c), data[k:]
}

// eachEntry decodes a chunk's entries (after its count). A damaged chunk
// (the catalog is derived data) ends the decoding quietly: its remaining
// entries read as absent, never as a panic.
func eachEntry(chunk int64, data []byte, fn func(e *entryOf, raw []byte)) {
	var e entryOf
	for len(data) > 0 {
		start := data
		v, k := binary.Uvarint(data)
		if k <= 0 || v >= 1<<chunkShift {
			return
		}
		data = data[k:]
		e.n = chunk<<chunkShift | int64(v)
		for i := 0; i < 2*numFields; i++ {
			v, k := binary.Uvarint(data)
			if k <= 0 || v > math.MaxInt32 {
				return
			}
			data = data[k:]
			if i < numFields {
				e.tf[i] = int(v)
			} else {
				e.lens[i-numFields] = int(v)
			}
		}
		fn(&e, start[:len(start)-len(data)])
	}
}

// flush writes every touched chunk.
func (p *postingsWriter) flush(ctx context.Context, tx *sql.Tx) error {
	get, err := tx.PrepareContext(ctx, `SELECT data FROM postings WHERE term=? AND chunk=?`)
	if err != nil {
		return fmt.Errorf("reindex: postings: %w", err)
	}
	defer get.Close()
	put, err := tx.PrepareContext(ctx, `INSERT OR REPLACE INTO postings(term, chunk, data) VALUES(?,?,?)`)
	if err != nil {
		return fmt.Errorf("reindex: postings: %w", err)
	}
	defer put.Close()
	del, err := tx.PrepareContext(ctx, `DELETE FROM postings WHERE term=? AND chunk=?`)
	if err != nil {
		return fmt.Errorf("reindex: postings: %w", err)
	}
	defer del.Close()
	// Sorted keys write the WITHOUT ROWID b-tree in order.
	keys := make([]chunkKey, 0, len(p.edits))
	for k := range p.edits {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].term != keys[j].term {
			return keys[i].term < keys[j].term
		}
		return keys[i].chunk < keys[j].chunk
	})
	for _, k := range keys {
		e := p.edits[k]
		data, count := e.add, e.adds
		if !p.fresh {
			var old []byte
			err := get.QueryRowContext(ctx, k.term, k.chunk).Scan(&old)
			if err != nil && err != sql.ErrNoRows {
				return fmt.Errorf("reindex: postings: %w", err)
			}
			if _, entries := chunkCount(old); len(entries) > 0 {
				kept := make([]byte, 0, len(entries)+len(e.add))
				count = e.adds
				eachEntry(k.chunk, entries, func(en *entryOf, raw []byte) {
					if !e.del[en.n] {
						kept = append(kept, raw...)
						count++
					}
				})
				data = append(kept, e.add...)
			}
		}
		if count == 0 {
			if _, err := del.ExecContext(ctx, k.term, k.chunk); err != nil {
				return fmt.Errorf("reindex: postings: %w", err)
			}
			continue
		}
		blob := binary.AppendUvarint(make([]byte, 0, len(data)+4), uint64(count))
		if _, err := put.ExecContext(ctx, k.term, k.chunk, append(blob, data...)); err != nil {
			return fmt.Errorf("reindex: postings: %w", err)
		}
	}
	clear(p.edits)
	return nil
}

// lexical scores every learning that contains a query stem with BM25F
// (bm25f.go), each stem's idf capped at idfCap when that is positive, and
// returns the best limit, best first, with the query's
// attainable score: the sum of the idf of every query stem the KB holds,
// which is what a learning matching all of them with full weight would
// score (saturation tends to 1). A score divided by it is the share of
// the query's evidence a learning holds, whatever the KB's size.
func (ix *Index) lexical(ctx context.Context, terms []string, limit int, idfCap float64) ([]hit, float64, error) {
	cache := map[string]string{}
	seen := map[string]bool{}
	var stems []string
	for _, t := range terms {
		for _, s := range analyze(t, cache) {
			if !seen[s] && len(s) <= maxTermLen {
				seen[s] = true
				stems = append(stems, s)
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
	args := make([]any, len(stems))
	for i, s := range stems {
		args[i] = s
	}
	rows, err := ix.db.QueryContext(ctx,
		`SELECT term, chunk, data FROM postings WHERE term IN (?`+strings.Repeat(",?", len(stems)-1)+`)`, args...)
	if err != nil {
		return nil, 0, fmt.Errorf("search: %w", err)
	}
	defer rows.Close()
	type chunk struct {
		term    string
		chunk   int64
		entries []byte
	}
	var chunks []chunk
	df := map[string]int{}
	var maxChunk int64
	for rows.Next() {
		var c chunk
		var data []byte
		if err := rows.Scan(&c.term, &c.chunk, &data); err != nil {
			return nil, 0, err
		}
		if c.chunk < 0 || c.chunk > maxChunkIndex {
			continue // damaged: not a chunk this index writes
		}
		var count int
		count, c.entries = chunkCount(data)
		df[c.term] += count
		maxChunk = max(maxChunk, c.chunk)
		chunks = append(chunks, c)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("search: %w", err)
	}
	if len(chunks) == 0 {
		return nil, 0, nil
	}
	// Scores by docs row: a dense slice is several times faster than a map
	// when common terms bring in thousands of learnings.
	scores := make([]float64, (maxChunk+1)<<chunkShift)
	// A learning has one entry per term, so counting entries counts the
	// query stems it contains.
	matched := make([]uint8, len(scores))
	idf := func(term string) float64 {
		if v := cs.idf(df[term]); idfCap <= 0 || v < idfCap {
			return v
		}
		return idfCap
	}
	for _, c := range chunks {
		scoreChunk(c.chunk, c.entries, idf(c.term), &cs, scores, matched)
	}
	hits := topHits(scores, limit)
	for i := range hits {
		hits[i].matched = int(matched[hits[i].n])
	}
	var attainable float64
	for t := range df {
		attainable += idf(t)
	}
	return hits, attainable, nil
}

// scoreChunk adds one term's BM25F contribution (idf × saturated pseudo
// frequency) to the score of every learning in a chunk, and counts the term
// in matched. It is eachEntry and saturate unrolled by hand, without a call
// per entry or per number: it is the inner loop of every search. A damaged
// chunk stops it quietly, as it does eachEntry.
func scoreChunk(chunk int64, data []byte, idf float64, cs *corpusStats, scores []float64, matched []uint8) {
	var inv [numFields]float64 // bm25B / avgLen per field
	for f := range inv {
		if cs.avgLen[f] > 0 {
			inv[f] = bm25B / cs.avgLen[f]
		}
	}
	base := int(chunk << chunkShift)
	var v [1 + 2*numFields]uint64
	i := 0
	for i < len(data) {
		for k := range v {
			// uvarint, with the one-byte case (nearly every number) first
			b := data[i]
			i++
			if b < 0x80 {
				v[k] = uint64(b)
			} else {
				x, shift := uint64(b&0x7f), uint(7)
				for {
					if i >= len(data) || shift > 35 {
						return
					}
					b = data[i]
					i++
					x |= uint64(b&0x7f) << shift
					if b < 0x80 {
						break
					}
					shift += 7
				}
				v[k] = x
			}
			if i >= len(data) && k < len(v)-1 {
				return
			}
		}
		if v[0] >= 1<<chunkShift {
			return
		}
		n := base + int(v[0])
		if n >= len(scores) {
			return
		}
		var pseudo float64
		for f := 0; f < numFields; f++ {
			if tf := v[1+f]; tf != 0 {
				norm := 1.0
				if inv[f] > 0 {
					norm = 1 - bm25B + inv[f]*float64(v[1+numFields+f])
				}
				pseudo += fieldWeights[f] * float64(tf) / norm
			}
		}
		scores[n] += idf * pseudo / (bm25K1 + pseudo)
		if matched[n] < math.MaxUint8 {
			matched[n]++
		}
	}
}

// topHits returns the limit best non-zero scores, best first (ties: lower
// docs row first), keeping a bounded min-heap instead of sorting every
// matching learning.
func topHits(scores []float64, limit int) []hit {
	worse := func(a, b hit) bool { // a ranks below b
		if a.score != b.score {
			return a.score < b.score
		}
		return a.n > b.n
	}
	h := make([]hit, 0, limit)
	down := func(i int) {
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
	for n, s := range scores {
		if s <= 0 || limit <= 0 {
			continue
		}
		c := hit{n: int64(n), score: s}
		if len(h) < limit {
			h = append(h, c)
			for i := len(h) - 1; i > 0; {
				p := (i - 1) / 2
				if !worse(h[i], h[p]) {
					break
				}
				h[i], h[p] = h[p], h[i]
				i = p
			}
			continue
		}
		if worse(h[0], c) {
			h[0] = c
			down(0)
		}
	}
	sort.Slice(h, func(i, j int) bool { return worse(h[j], h[i]) })
	return h
}
