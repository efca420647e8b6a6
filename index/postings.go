package index

import (
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
)

// Postings are reflect's own inverted index. Reading the posting lists of
// the query's few stems and scoring every matching learning exactly is
// several times faster than FTS5's ranked candidate query plus re-scoring
// its candidates (measured in docs/benchmarks.md), and no relevant learning
// is lost to candidate pruning; it is also the only lexical index the
// catalog keeps (no FTS5 table holds the text a second time).
//
// A term's postings are split in chunks of chunkSize docs rows, so a
// changed learning rewrites a few hundred bytes per term, not whole lists.
// The table is keyed by chunk first: removing a learning scans its chunk's
// rows for the entries to drop, so no per-learning list of terms is kept
// (it was as large as the postings themselves). A search reads a covering
// index keyed by term first, so each query stem's chunks come from
// adjacent leaves: one range per stem instead of one b-tree seek and one
// scattered leaf per chunk and stem. Keying the table itself by term made
// a removal's scan of its chunk read nearly every leaf of the table (a
// chunk's rows lie between every other chunk's): forget at 100,000
// learnings went from 77 to 131 ms CPU and 21 to 68 MB (docs/benchmarks.md).
//
//	postings(chunk, term, data)  data = uvarint count | entries by ascending row
//	postings_term(term, chunk, data)  the same rows, for searches
//	entry: uvarint (gap<<5 | ones<<4 | mask) | a uvarint tf per field in mask, unless ones
//
// gap is the row's offset in the chunk minus the previous entry's minus one
// (the first entry's previous is -1), mask has bit f set when field f holds
// the term, and ones says each of those fields holds it once (most terms of
// most learnings), so no tf follows. A typical entry is one to three bytes
// (eleven before: absolute offsets, four tfs and four field lengths).
// The count gives a term's document frequency without decoding a chunk.
//
// The field lengths BM25F normalises by are per learning, not per term, so
// they are kept once per docs row in norms, fixed-width so a search reads a
// learning's four lengths at an offset:
//
//	norms(chunk, data)  data = per row of the chunk: 4 × uint16 little-endian field length (saturated)
const chunkShift = 12

// maxChunkIndex bounds the chunks a search will allocate scores for (2^32
// docs rows); a larger one is damage.
const maxChunkIndex = 1 << 20

const (
	postingsSchema    = `CREATE TABLE IF NOT EXISTS postings(chunk INTEGER NOT NULL, term TEXT NOT NULL, data BLOB NOT NULL, PRIMARY KEY(chunk, term)) WITHOUT ROWID`
	postingsTermIndex = `CREATE INDEX IF NOT EXISTS postings_term ON postings(term, chunk, data)`
	normsSchema       = `CREATE TABLE IF NOT EXISTS norms(chunk INTEGER PRIMARY KEY, data BLOB NOT NULL)`
)

// normWidth is the bytes of one docs row in a norms blob.
const normWidth = 2 * numFields

// maxNorm is the largest field length a norms entry holds; a longer field
// (65,535 tokens: far past any learning's body) counts as this long, which
// changes its normalisation by nothing a ranking can see.
const maxNorm = math.MaxUint16

// Entry header bits.
const (
	entryMask  = 1<<numFields - 1
	entryOnes  = 1 << numFields
	entryShift = numFields + 1
)

type chunkKey struct {
	term  string
	chunk int64
}

// posting is one decoded entry: a docs row's offset in its chunk and the
// term's frequency per field.
type posting struct {
	off int
	tf  [numFields]int
}

// chunkEdit is what one reindex adds to one chunk: entries encoded as they
// came while their rows ascend, decoded into loose once one does not.
type chunkEdit struct {
	add   []byte
	adds  int
	last  int // offset of add's last entry, -1 before the first
	loose []posting
}

// postingsWriter collects the edits of one reindex transaction and writes
// each touched chunk once at the end.
type postingsWriter struct {
	edits map[chunkKey]*chunkEdit
	// norms holds the field lengths of the rows added, by chunk and offset.
	norms map[int64]map[int][numFields]int
	// dels holds the rows removed, by chunk.
	dels map[int64]map[int]bool
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
	return &postingsWriter{edits: map[chunkKey]*chunkEdit{}, norms: map[int64]map[int][numFields]int{},
		dels: map[int64]map[int]bool{}, fresh: fresh}
}

// add records document n's statistics.
func (p *postingsWriter) add(n int64, st fieldStats) {
	c, off := n>>chunkShift, int(n&(1<<chunkShift-1))
	if p.norms[c] == nil {
		p.norms[c] = map[int][numFields]int{}
	}
	p.norms[c][off] = st.lens
	for t, tf := range st.tf {
		if len(t) > maxTermLen {
			continue
		}
		k := chunkKey{t, c}
		e := p.edits[k]
		if e == nil {
			e = &chunkEdit{last: -1}
			p.edits[k] = e
		}
		switch {
		case e.loose != nil:
			e.loose = append(e.loose, posting{off, *tf})
		case off > e.last:
			e.add = appendEntry(e.add, off-e.last-1, tf)
			e.last = off
			e.adds++
		default: // out of order: keep the entries decoded from now on
			e.loose = append(decodeEntries(e.add), posting{off, *tf})
			e.add = nil
		}
	}
}

// remove records that document n is gone. Its entries are found at flush
// by scanning its chunk's rows.
func (p *postingsWriter) remove(n int64) {
	c := n >> chunkShift
	if p.dels[c] == nil {
		p.dels[c] = map[int]bool{}
	}
	p.dels[c][int(n&(1<<chunkShift-1))] = true
	// What this transaction wrote may hold n: merge from now on.
	p.fresh = false
}

func appendEntry(b []byte, gap int, tf *[numFields]int) []byte {
	var mask uint64
	ones := uint64(entryOnes)
	for f, c := range tf {
		if c > 0 {
			mask |= 1 << f
			if c > 1 {
				ones = 0
			}
		}
	}
	b = binary.AppendUvarint(b, uint64(gap)<<entryShift|ones|mask)
	if ones == 0 {
		for _, c := range tf {
			if c > 0 {
				b = binary.AppendUvarint(b, uint64(c))
			}
		}
	}
	return b
}

// entryOf is one decoded entry with its docs row.
type entryOf struct {
	n  int64
	tf [numFields]int
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
func eachEntry(chunk int64, data []byte, fn func(e *entryOf)) {
	var e entryOf
	off := -1
	for len(data) > 0 {
		h, k := binary.Uvarint(data)
		if k <= 0 || h&entryMask == 0 || h>>entryShift >= 1<<chunkShift {
			return
		}
		data = data[k:]
		off += int(h>>entryShift) + 1
		if off >= 1<<chunkShift {
			return
		}
		e.n = chunk<<chunkShift | int64(off)
		for f := range e.tf {
			e.tf[f] = 0
			if h&(1<<f) == 0 {
				continue
			}
			e.tf[f] = 1
			if h&entryOnes == 0 {
				v, k := binary.Uvarint(data)
				if k <= 0 || v > math.MaxInt32 {
					return
				}
				data = data[k:]
				e.tf[f] = int(v)
			}
		}
		fn(&e)
	}
}

// decodeEntries returns a chunk's entries (after its count) as postings.
func decodeEntries(data []byte) []posting {
	var out []posting
	eachEntry(0, data, func(e *entryOf) { out = append(out, posting{int(e.n), e.tf}) })
	return out
}

// normAt returns the field lengths of the docs row at off in a norms blob;
// a row past its end (or a damaged blob) has none.
func normAt(norms []byte, off int) [numFields]int {
	var l [numFields]int
	if o := off * normWidth; o >= 0 && o+normWidth <= len(norms) {
		for f := range l {
			l[f] = int(binary.LittleEndian.Uint16(norms[o+2*f:]))
		}
	}
	return l
}

// flush writes every touched chunk.
func (p *postingsWriter) flush(ctx context.Context, tx *sql.Tx) error {
	if err := p.findRemoved(ctx, tx); err != nil {
		return fmt.Errorf("reindex: postings: %w", err)
	}
	if err := p.flushNorms(ctx, tx); err != nil {
		return fmt.Errorf("reindex: postings: %w", err)
	}
	get, err := tx.PrepareContext(ctx, `SELECT data FROM postings WHERE chunk=? AND term=?`)
	if err != nil {
		return fmt.Errorf("reindex: postings: %w", err)
	}
	defer get.Close()
	put, err := tx.PrepareContext(ctx, `INSERT OR REPLACE INTO postings(chunk, term, data) VALUES(?,?,?)`)
	if err != nil {
		return fmt.Errorf("reindex: postings: %w", err)
	}
	defer put.Close()
	del, err := tx.PrepareContext(ctx, `DELETE FROM postings WHERE chunk=? AND term=?`)
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
		if keys[i].chunk != keys[j].chunk {
			return keys[i].chunk < keys[j].chunk
		}
		return keys[i].term < keys[j].term
	})
	var blob []byte
	for _, k := range keys {
		e := p.edits[k]
		data, count := e.add, e.adds
		if !p.fresh || e.loose != nil {
			var old []byte
			err := get.QueryRowContext(ctx, k.chunk, k.term).Scan(&old)
			if err != nil && err != sql.ErrNoRows {
				return fmt.Errorf("reindex: postings: %w", err)
			}
			data, count = merge(old, e, p.dels[k.chunk])
		}
		if count == 0 {
			if _, err := del.ExecContext(ctx, k.chunk, k.term); err != nil {
				return fmt.Errorf("reindex: postings: %w", err)
			}
			continue
		}
		blob = binary.AppendUvarint(blob[:0], uint64(count))
		if _, err := put.ExecContext(ctx, k.chunk, k.term, append(blob, data...)); err != nil {
			return fmt.Errorf("reindex: postings: %w", err)
		}
	}
	clear(p.edits)
	clear(p.dels)
	return nil
}

// merge returns a chunk's entries and count after an edit: the old ones
// (a stored chunk, with its count) and the added ones, less removed rows,
// in ascending row order; of two entries for one row the later wins.
func merge(old []byte, e *chunkEdit, removed map[int]bool) ([]byte, int) {
	_, entries := chunkCount(old)
	all := append(decodeEntries(entries), decodeEntries(e.add)...)
	all = append(all, e.loose...)
	sort.SliceStable(all, func(i, j int) bool { return all[i].off < all[j].off })
	var out []byte
	count, last := 0, -1
	for i, x := range all {
		if removed[x.off] || (i+1 < len(all) && all[i+1].off == x.off) {
			continue
		}
		out = appendEntry(out, x.off-last-1, &x.tf)
		last = x.off
		count++
	}
	return out, count
}

// findRemoved adds to the edits every stored chunk row that holds an
// entry of a removed docs row: one scan of the chunk's rows, which
// replaces keeping each learning's terms.
func (p *postingsWriter) findRemoved(ctx context.Context, tx *sql.Tx) error {
	if len(p.dels) == 0 {
		return nil
	}
	chunks := make([]int64, 0, len(p.dels))
	for c := range p.dels {
		chunks = append(chunks, c)
	}
	slices.Sort(chunks)
	for _, c := range chunks {
		removed := p.dels[c]
		last := 0
		for off := range removed {
			last = max(last, off)
		}
		rows, err := tx.QueryContext(ctx, `SELECT term, data FROM postings WHERE chunk=?`, c)
		if err != nil {
			return err
		}
		var hit []string
		for rows.Next() {
			var term string
			var data sql.RawBytes
			if err := rows.Scan(&term, &data); err != nil {
				rows.Close()
				return err
			}
			if holdsAny(data, removed, last) {
				hit = append(hit, term)
			}
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return err
		}
		for _, t := range hit {
			if k := (chunkKey{t, c}); p.edits[k] == nil {
				p.edits[k] = &chunkEdit{last: -1}
			}
		}
		if p.norms[c] == nil {
			p.norms[c] = map[int][numFields]int{}
		}
	}
	return nil
}

// holdsAny reports whether a stored chunk has an entry for one of rows,
// whose largest offset is last. It reads entry headers only, and stops at
// the first row past last (entries ascend).
func holdsAny(data []byte, rows map[int]bool, last int) bool {
	_, entries := chunkCount(data)
	off := -1
	for len(entries) > 0 {
		h, k := binary.Uvarint(entries)
		if k <= 0 || h&entryMask == 0 {
			return false
		}
		entries = entries[k:]
		off += int(h>>entryShift) + 1
		if off > last {
			return false
		}
		if rows[off] {
			return true
		}
		if h&entryOnes != 0 {
			continue
		}
		for f := 0; f < numFields; f++ {
			if h&(1<<f) != 0 {
				_, k := binary.Uvarint(entries)
				if k <= 0 {
					return false
				}
				entries = entries[k:]
			}
		}
	}
	return false
}

// flushNorms writes the field lengths of the rows added and zeroes those
// of the rows removed, one norms row per touched chunk.
func (p *postingsWriter) flushNorms(ctx context.Context, tx *sql.Tx) error {
	chunks := make([]int64, 0, len(p.norms))
	for c := range p.norms {
		chunks = append(chunks, c)
	}
	slices.Sort(chunks)
	for _, c := range chunks {
		var data []byte
		if !p.fresh {
			err := tx.QueryRowContext(ctx, `SELECT data FROM norms WHERE chunk=?`, c).Scan(&data)
			if err != nil && err != sql.ErrNoRows {
				return err
			}
		}
		for off := range p.dels[c] {
			if o := off * normWidth; o+normWidth <= len(data) {
				clear(data[o : o+normWidth])
			}
		}
		for off, lens := range p.norms[c] {
			if need := (off + 1) * normWidth; need > len(data) {
				data = append(data, make([]byte, need-len(data))...)
			}
			for f, l := range lens {
				binary.LittleEndian.PutUint16(data[off*normWidth+2*f:], uint16(min(l, maxNorm)))
			}
		}
		// Trailing rows without a learning take no room.
		for len(data) >= normWidth && allZero(data[len(data)-normWidth:]) {
			data = data[:len(data)-normWidth]
		}
		var err error
		if len(data) == 0 {
			_, err = tx.ExecContext(ctx, `DELETE FROM norms WHERE chunk=?`, c)
		} else {
			_, err = tx.ExecContext(ctx, `INSERT OR REPLACE INTO norms(chunk, data) VALUES(?,?)`, c, data)
		}
		if err != nil {
			return err
		}
	}
	clear(p.norms)
	return nil
}

func allZero(b []byte) bool {
	for _, x := range b {
		if x != 0 {
			return false
		}
	}
	return true
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
	var df map[string]int
	idf := func(term string) float64 {
		if v := cs.idf(df[term]); idfCap <= 0 || v < idfCap {
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
