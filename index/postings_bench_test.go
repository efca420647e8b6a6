package index

import (
	"math/rand/v2"
	"testing"
)

// benchChunk is one 4,096-learning chunk of postings with every other
// learning present, field lengths and term frequencies like a real KB's,
// and its norms.
func benchChunk() ([]byte, []byte, corpusStats) {
	r := rand.New(rand.NewPCG(1, 2))
	var data, norms []byte
	last := -1
	for off := 0; off < 1<<chunkShift; off += 2 {
		tf := [numFields]int{r.IntN(2), r.IntN(2), 0, 1 + r.IntN(3)}
		lens := [numFields]int{6 + r.IntN(5), 20 + r.IntN(10), 4, 150 + r.IntN(200)}
		data = appendEntry(data, off-last-1, &tf)
		last = off
		norms = appendNorm(norms, off, lens)
	}
	return data, norms, corpusStats{docs: 10000, avgLen: [numFields]float64{8, 25, 4, 250}}
}

// BenchmarkScoreChunk measures BM25F scoring of one 4,096-learning chunk,
// the inner loop of every lexical search.
func BenchmarkScoreChunk(b *testing.B) {
	data, norms, cs := benchChunk()
	scores := make([]float64, 1<<chunkShift)
	matched := make([]uint8, len(scores))
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		scoreChunk(0, data, norms, 1.5, &cs, scores, matched)
	}
}

// BenchmarkScoreChunkReference is the same work through eachEntry and
// saturate, to show what scoreChunk saves.
func BenchmarkScoreChunkReference(b *testing.B) {
	data, norms, cs := benchChunk()
	scores := make([]float64, 1<<chunkShift)
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		eachEntry(0, data, func(e *entryOf) {
			lens := normAt(norms, int(e.n))
			scores[e.n] += 1.5 * cs.saturate(&e.tf, &lens)
		})
	}
}
