package index

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"testing"
)

// exhaustiveTop is what lexical did before pruning: every entry of every
// chunk scored into one dense slice, in the order read, then the limit
// best (ties: lower docs row first).
func exhaustiveTop(chunks [][]postingChunk, norms [][]byte, idf func(string) float64, cs *corpusStats, limit int) []hit {
	scores := make([]float64, len(chunks)<<chunkShift)
	matched := make([]uint8, len(scores))
	for c, ps := range chunks {
		for _, p := range ps {
			scoreChunk(int64(c), p.entries, norms[c], idf(p.term), cs, scores, matched)
		}
	}
	var all []hit
	for n, s := range scores {
		if s > 0 {
			all = append(all, hit{n: int64(n), score: s, matched: int(matched[n])})
		}
	}
	sort.Slice(all, func(i, j int) bool { return worse(all[j], all[i]) })
	return all[:min(limit, len(all))]
}

// randomChunks builds postings of stems with very different document
// frequencies (as a prompt's common and rare words are) over several
// chunks, with norms; tied says whether many learnings score the same
// (equal field lengths and frequencies), to test ties at the threshold.
func randomChunks(r *rand.Rand, nChunks int, tied bool) ([][]postingChunk, [][]byte, map[string]int) {
	density := map[string]float64{"common": 0.6, "often": 0.2, "some": 0.05, "rare": 0.005, "once": 0.0003}
	stems := []string{"common", "often", "once", "rare", "some"} // the table's order
	df := map[string]int{}
	chunks := make([][]postingChunk, nChunks)
	norms := make([][]byte, nChunks)
	for c := range chunks {
		var nb []byte
		for off := 0; off < 1<<chunkShift; off++ {
			lens := [numFields]int{3 + r.IntN(12), 10 + r.IntN(40), r.IntN(6), 20 + r.IntN(400)}
			if tied {
				lens = [numFields]int{8, 25, 4, 250}
			}
			nb = appendNorm(nb, off, lens)
		}
		norms[c] = nb
		for _, s := range stems {
			var data []byte
			last, count := -1, 0
			for off := 0; off < 1<<chunkShift; off++ {
				if r.Float64() >= density[s] {
					continue
				}
				tf := [numFields]int{r.IntN(2), r.IntN(2), r.IntN(2), r.IntN(4)}
				if tied {
					tf = [numFields]int{1, 0, 0, 1}
				}
				if tf == ([numFields]int{}) {
					tf[3] = 1
				}
				data = appendEntry(data, off-last-1, &tf)
				last = off
				count++
			}
			if count > 0 {
				chunks[c] = append(chunks[c], postingChunk{term: s, chunk: int64(c), entries: data})
				df[s] += count
			}
		}
	}
	return chunks, norms, df
}

// Pruning must not change the top k in any way: the same learnings, in
// the same order, with the same scores to the last bit and the same
// matched counts, for any limit, with idf capped or not, and with many
// learnings tied at the threshold.
func TestPrunedTopIsExact(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, tied := range []bool{false, true} {
		chunks, norms, df := randomChunks(r, 4, tied)
		docs := 4 << chunkShift
		cs := corpusStats{docs: docs, avgLen: [numFields]float64{9, 35, 3, 230}}
		for _, capIDF := range []float64{0, 3} {
			idf := func(term string) float64 {
				if v := cs.idf(df[term]); capIDF <= 0 || v < capIDF {
					return v
				}
				return capIDF
			}
			for _, limit := range []int{1, 10, 100, 1000} {
				name := fmt.Sprintf("tied=%v cap=%v limit=%d", tied, capIDF, limit)
				want := exhaustiveTop(chunks, norms, idf, &cs, limit)
				top := newTopK(limit)
				s := newChunkScorer(idf, &cs, top)
				for c, ps := range chunks {
					s.score(int64(c), ps, norms[c])
				}
				got := top.sorted()
				if len(got) != len(want) {
					t.Fatalf("%s: %d hits, want %d", name, len(got), len(want))
				}
				for i := range want {
					if got[i] != want[i] {
						t.Fatalf("%s: hit %d is %+v, want %+v", name, i, got[i], want[i])
					}
				}
			}
		}
	}
}

// The pruning must actually skip learnings once the heap is full, or it
// only costs time: with a rare stem in the query, most learnings that
// hold only the common ones are not scored.
func TestPruningSkipsHopelessLearnings(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	chunks, _, df := randomChunks(r, 2, false)
	cs := corpusStats{docs: 2 << chunkShift, avgLen: [numFields]float64{9, 35, 3, 230}}
	idf := func(term string) float64 { return cs.idf(df[term]) }
	top := newTopK(10)
	s := newChunkScorer(idf, &cs, top)
	s.score(0, chunks[0], nil)
	want := s.pr.candidates(chunks[1], idf, top)
	if want == nil {
		t.Fatal("no pruning with a full heap")
	}
	entries, kept := 0, 0
	for _, p := range chunks[1] {
		eachEntry(0, p.entries, func(e *entryOf) {
			entries++
			if want[e.n] {
				kept++
			}
		})
	}
	if kept*4 > entries {
		t.Fatalf("%d of %d entries kept for scoring", kept, entries)
	}
}

// markOffsets finds the same learnings as eachEntry, and stops quietly on
// damaged data.
func TestMarkOffsetsMatchesEachEntry(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	chunks, _, _ := randomChunks(r, 1, false)
	for _, p := range chunks[0] {
		var want []int
		eachEntry(0, p.entries, func(e *entryOf) { want = append(want, int(e.n)) })
		bound := make([]float64, 1<<chunkShift)
		seen := make([]bool, 1<<chunkShift)
		got := markOffsets(p.entries, 0.5, bound, seen, nil)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("%s: offsets differ", p.term)
		}
		for _, off := range got {
			if bound[off] != 0.5 || !seen[off] {
				t.Fatalf("%s: offset %d bound %v", p.term, off, bound[off])
			}
		}
		for cut := 0; cut < 30 && cut < len(p.entries); cut++ {
			clear(seen)
			for _, off := range markOffsets(p.entries[:cut], 1, bound, seen, nil) {
				if off < 0 || off >= 1<<chunkShift {
					t.Fatalf("offset %d out of range", off)
				}
			}
		}
	}
	junk := []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}
	if got := markOffsets(junk, 1, make([]float64, 1<<chunkShift), make([]bool, 1<<chunkShift), nil); len(got) != 0 {
		t.Fatalf("offsets %v from junk", got)
	}
}
