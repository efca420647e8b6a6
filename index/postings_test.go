package index

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"os"
	"reflect"
	"testing"
)

// scoreChunk must agree with the plain decoder (eachEntry) and BM25F
// (saturate) on every entry, including multi-byte numbers, and stop
// quietly on damaged data.
func TestScoreChunkMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var data, norms []byte
	last := -1
	for off := 0; off < 1<<chunkShift; off += 1 + r.IntN(300) {
		tf := [numFields]int{r.IntN(3), r.IntN(2), r.IntN(2), r.IntN(300)}
		if tf == ([numFields]int{}) {
			tf[0] = 1
		}
		lens := [numFields]int{r.IntN(20), r.IntN(200), r.IntN(9), r.IntN(70000)}
		data = appendEntry(data, off-last-1, &tf)
		last = off
		norms = appendNorm(norms, off, lens)
	}
	cs := corpusStats{docs: 5000, avgLen: [numFields]float64{8, 25, 4, 250}}
	size := 4 << chunkShift
	got, want := make([]float64, size), make([]float64, size)
	gotM, wantM := make([]uint8, size), make([]uint8, size)
	scoreChunk(3, data, norms, 2.5, &cs, got, gotM)
	entries := 0
	eachEntry(3, data, func(e *entryOf) {
		lens := normAt(norms, int(e.n&(1<<chunkShift-1)))
		want[e.n] += 2.5 * cs.saturate(&e.tf, &lens)
		wantM[e.n]++
		entries++
	})
	if entries < 20 {
		t.Fatalf("only %d entries decoded", entries)
	}
	for n := range want {
		if math.Abs(got[n]-want[n]) > 1e-12 || gotM[n] != wantM[n] {
			t.Fatalf("row %d: score %v matched %d, want %v and %d", n, got[n], gotM[n], want[n], wantM[n])
		}
	}
	// Truncated and garbage chunks and norms must not panic or write out
	// of range.
	for cut := 0; cut < 40 && cut < len(data); cut++ {
		scoreChunk(3, data[:cut], norms[:cut], 1, &cs, got, gotM)
	}
	junk := make([]byte, 64)
	for i := range junk {
		junk[i] = 0xff
	}
	scoreChunk(3, junk, junk, 1, &cs, got, gotM)
	scoreChunk(1<<20, data, nil, 1, &cs, got, gotM) // rows beyond the slice
}

// appendNorm sets row off's field lengths in a norms blob, as flushNorms
// writes them.
func appendNorm(norms []byte, off int, lens [numFields]int) []byte {
	if need := (off + 1) * normWidth; need > len(norms) {
		norms = append(norms, make([]byte, need-len(norms))...)
	}
	for f, l := range lens {
		binary.LittleEndian.PutUint16(norms[off*normWidth+2*f:], uint16(min(l, maxNorm)))
	}
	return norms
}

// Entries round-trip: one tf per field in the mask, the ones bit when
// every present field holds the term once, and gaps of every width.
func TestEntryRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	var want []posting
	var data []byte
	last := -1
	for off := r.IntN(5); off < 1<<chunkShift; off += 1 + r.IntN(1<<r.IntN(11)) {
		var tf [numFields]int
		for tf == ([numFields]int{}) {
			for f := range tf {
				tf[f] = r.IntN(3) * (1 + r.IntN(2)*r.IntN(1000))
			}
		}
		want = append(want, posting{off, tf})
		data = appendEntry(data, off-last-1, &tf)
		last = off
	}
	got := decodeEntries(data)
	if len(got) != len(want) {
		t.Fatalf("%d entries decoded, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("entry %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	// holdsAny (the removal scan) finds each row and no other.
	stored := append(binary.AppendUvarint(nil, uint64(len(want))), data...)
	present := map[int]bool{}
	for _, p := range want {
		present[p.off] = true
	}
	for off := 0; off < 1<<chunkShift; off += 1 + r.IntN(40) {
		if got := holdsAny(stored, map[int]bool{off: true}, off); got != present[off] {
			t.Fatalf("holdsAny(row %d) = %v, want %v", off, got, present[off])
		}
	}
	// The common entry (a nearby row, the term once in one or more fields)
	// is one byte.
	var common []byte
	for _, tf := range [][numFields]int{{0, 0, 0, 1}, {1, 1, 0, 1}, {0, 1, 0, 0}} {
		common = appendEntry(common[:0], 3, &tf)
		if len(common) != 1 {
			t.Errorf("entry %v with gap 3 takes %d bytes, want 1", tf, len(common))
		}
	}
}

// indexedByID is every posting and norm of a catalog keyed by learning id
// instead of docs row, so catalogs that numbered their rows differently
// compare: "term id" → tf, and "id" → field lengths.
func indexedByID(t *testing.T, ix *Index) (map[string][numFields]int, map[string][numFields]int) {
	t.Helper()
	ids := map[int64]string{}
	rows, err := ix.db.Query(`SELECT n, id FROM docs`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var n int64
		var id string
		if err := rows.Scan(&n, &id); err != nil {
			t.Fatal(err)
		}
		ids[n] = id
	}
	rows.Close()
	post, norms := map[string][numFields]int{}, map[string][numFields]int{}
	rows, err = ix.db.Query(`SELECT chunk, term, data FROM postings`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var c int64
		var term string
		var data []byte
		if err := rows.Scan(&c, &term, &data); err != nil {
			t.Fatal(err)
		}
		count, entries := chunkCount(data)
		seen := 0
		eachEntry(c, entries, func(e *entryOf) {
			seen++
			id, ok := ids[e.n]
			if !ok {
				t.Errorf("term %q: entry for row %d, which holds no learning", term, e.n)
			}
			post[term+" "+id] = e.tf
		})
		if seen != count {
			t.Errorf("term %q chunk %d: count %d, %d entries", term, c, count, seen)
		}
	}
	rows.Close()
	rows, err = ix.db.Query(`SELECT chunk, data FROM norms`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var c int64
		var data []byte
		if err := rows.Scan(&c, &data); err != nil {
			t.Fatal(err)
		}
		for off := 0; off*normWidth < len(data); off++ {
			l := normAt(data, off)
			id, ok := ids[c<<chunkShift|int64(off)]
			switch {
			case ok:
				norms[id] = l
			case l != [numFields]int{}:
				t.Errorf("chunk %d row %d: field lengths %v for no learning", c, off, l)
			}
		}
	}
	rows.Close()
	return post, norms
}

// Removing and changing learnings finds their entries by scanning their
// chunk (no per-learning term list is kept): the catalog must end up
// holding what a full rebuild of the same documents holds.
func TestIncrementalPostingsMatchRebuild(t *testing.T) {
	k := newKB(t)
	for _, d := range []doc{
		simple("lrn-redis", "redis sentinel failover"),
		simple("lrn-pg", "postgres pool timeout redis"),
		simple("lrn-kafka", "kafka consumer lag"),
		simple("lrn-vite", "vite build cache redis"),
	} {
		k.write(t, d)
	}
	ix := k.open(t)
	// change one, delete two, add one
	k.write(t, simple("lrn-pg", "postgres pool exhausted under kafka load"))
	for _, id := range []string{"lrn-redis", "lrn-vite"} {
		if err := os.Remove(k.docPath(id)); err != nil {
			t.Fatal(err)
		}
	}
	k.write(t, simple("lrn-new", "redis keyspace notifications"))
	st := update(t, ix, UpdateOptions{})
	if st.Removed != 2 || st.Updated != 1 || st.Added != 1 {
		t.Fatalf("update: %+v", countersOf(st))
	}
	gotPost, gotNorms := indexedByID(t, ix)
	update(t, ix, UpdateOptions{Full: true})
	wantPost, wantNorms := indexedByID(t, ix)
	if !reflect.DeepEqual(gotPost, wantPost) {
		t.Errorf("postings after incremental updates:\n%v\nafter a rebuild:\n%v", gotPost, wantPost)
	}
	if !reflect.DeepEqual(gotNorms, wantNorms) {
		t.Errorf("norms after incremental updates %v, after a rebuild %v", gotNorms, wantNorms)
	}
	if len(wantNorms) != 3 {
		t.Errorf("norms of %d learnings, want 3", len(wantNorms))
	}
}
