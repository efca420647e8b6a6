package index

import (
	"math/rand/v2"
	"testing"
)

// benchChunk is one 4,096-learning chunk of postings with every other
// learning present, field lengths and term frequencies like a real KB's.
func benchChunk() ([]byte, corpusStats) {
	r := rand.New(rand.NewPCG(1, 2))
	var data []byte
	for n := int64(0); n < 1<<chunkShift; n += 2 {
		tf := [numFields]int{r.IntN(2), r.IntN(2), 0, 1 + r.IntN(3)}
		lens := [numFields]int{6 + r.IntN(5), 20 + r.IntN(10), 4, 150 + r.IntN(200)}
		data = appendEntry(data, n, &tf, &lens)
	}
	return data, corpusStats{docs: 10000, avgLen: [numFields]float64{8, 25, 4, 250}}
}

// BenchmarkScoreChunk measures BM25F scoring of one 4,096-learning chunk,
// the inner loop of every lexical search.
func BenchmarkScoreChunk(b *testing.B) {
	data, cs := benchChunk()
	scores := make([]float64, 1<<chunkShift)
	matched := make([]uint8, len(scores))
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		scoreChunk(0, data, 1.5, &cs, scores, matched)
	}
}

// BenchmarkScoreChunkReference is the same work through eachEntry and
// saturate, to show what scoreChunk saves.
func BenchmarkScoreChunkReference(b *testing.B) {
	data, cs := benchChunk()
	scores := make([]float64, 1<<chunkShift)
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		eachEntry(0, data, func(e *entryOf, _ []byte) { scores[e.n] += 1.5 * cs.saturate(&e.tf, &e.lens) })
	}
}
