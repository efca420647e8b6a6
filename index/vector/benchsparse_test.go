package vector

import (
	"cmp"
	"math"
	"slices"
	"testing"
)

// BenchmarkSearch100kx256CodesSparse is BenchmarkSearch100kx256Codes with a
// query as sparse as the hash embedder's for a few words: row 12345 with
// all but its 60 largest components zeroed (the benchmark's query is a
// dense row, as other embedders give).
func BenchmarkSearch100kx256CodesSparse(b *testing.B) {
	f := bench100k(b)
	row := benchFile.rows[12345].Vec
	idx := make([]int, len(row))
	for j := range idx {
		idx[j] = j
	}
	slices.SortFunc(idx, func(x, y int) int { return cmp.Compare(math.Abs(float64(row[y])), math.Abs(float64(row[x]))) })
	q := make([]float32, len(row))
	for _, j := range idx[:60] {
		q[j] = row[j]
	}
	search := func() []Hit {
		hits, ok := f.searchCodes(q, 10)
		if !ok {
			b.Fatal("the codes did not prove the result")
		}
		return hits
	}
	search()
	b.ReportAllocs()
	start := cpuTime()
	for b.Loop() {
		if hits := search(); len(hits) != 10 || hits[0].Key != benchFile.rows[12345].Key {
			b.Fatalf("wrong result %v", hits)
		}
	}
	b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
}
