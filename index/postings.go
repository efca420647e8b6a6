package index

import (
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"sort"
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
