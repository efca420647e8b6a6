package index

import (
	"math"
	"math/rand/v2"
	"testing"
)

// scoreChunk must agree with the plain decoder (eachEntry) and BM25F
// (saturate) on every entry, including multi-byte numbers, and stop
// quietly on damaged data.
func TestScoreChunkMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var data []byte
	for n := int64(0); n < 1<<chunkShift; n += 1 + int64(r.IntN(7)) {
		tf := [numFields]int{r.IntN(3), r.IntN(2), r.IntN(2), r.IntN(300)}
		lens := [numFields]int{r.IntN(20), r.IntN(200), r.IntN(9), r.IntN(70000)}
		data = appendEntry(data, 3<<chunkShift|n, &tf, &lens)
	}
	cs := corpusStats{docs: 5000, avgLen: [numFields]float64{8, 25, 4, 250}}
	size := 4 << chunkShift
	got, want := make([]float64, size), make([]float64, size)
	gotM, wantM := make([]uint8, size), make([]uint8, size)
	scoreChunk(3, data, 2.5, &cs, got, gotM)
	eachEntry(3, data, func(e *entryOf, _ []byte) {
		want[e.n] += 2.5 * cs.saturate(&e.tf, &e.lens)
		wantM[e.n]++
	})
	for n := range want {
		if math.Abs(got[n]-want[n]) > 1e-12 || gotM[n] != wantM[n] {
			t.Fatalf("row %d: score %v matched %d, want %v and %d", n, got[n], gotM[n], want[n], wantM[n])
		}
	}
	// Truncated and garbage chunks must not panic or write out of range.
	for cut := 0; cut < 40 && cut < len(data); cut++ {
		scoreChunk(3, data[:cut], 1, &cs, got, gotM)
	}
	junk := make([]byte, 64)
	for i := range junk {
		junk[i] = 0xff
	}
	scoreChunk(3, junk, 1, &cs, got, gotM)
	scoreChunk(1<<20, data, 1, &cs, got, gotM) // rows beyond the slice
}
