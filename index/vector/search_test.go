package vector

import (
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"testing"

	"github.com/viterin/vek/vek32"
)

// naive is the reference: score everything in float64-free plain Go, sort,
// cut. It shares only the tie-break rule with the real scan.
func naive(rows []Row, q []float32, k int, filter func(uint64) bool) []Hit {
	var all []Hit
	for _, r := range rows {
		if filter != nil && !filter(r.Key) {
			continue
		}
		var s float32
		for j := range q {
			s += q[j] * r.Vec[j]
		}
		all = append(all, Hit{Key: r.Key, Score: s})
	}
	slices.SortFunc(all, byScore)
	return all[:min(k, len(all))]
}

// sameHits compares keys in order; scores may differ in the last bits
// because the unrolled dot product sums in another order, so a swap of two
// nearly equal neighbours is tolerated when their scores agree to 1e-5.
func sameHits(t *testing.T, got, want []Hit) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d hits, want %d", len(got), len(want))
	}
	for i := range got {
		if math.Abs(float64(got[i].Score-want[i].Score)) > 1e-5 {
			t.Fatalf("hit %d: score %v, want %v", i, got[i].Score, want[i].Score)
		}
		if got[i].Key != want[i].Key && math.Abs(float64(got[i].Score-want[i].Score)) > 1e-6 {
			t.Fatalf("hit %d: key %d, want %d (scores %v, %v)", i, got[i].Key, want[i].Key, got[i].Score, want[i].Score)
		}
	}
	for i := 1; i < len(got); i++ {
		if worse(got[i-1], got[i]) {
			t.Fatalf("hits not best first at %d: %v", i, got)
		}
	}
}

func TestSearchMatchesNaive(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	for _, c := range []struct{ n, dim int }{{1, 4}, {10, 3}, {500, 16}, {2000, 257}, {3000, 64}} {
		rows := randomRows(c.n, c.dim, int64(c.n))
		f := openFile(t, writeFile(t, Header{Dim: c.dim}, rows))
		for range 20 {
			q := randomRows(1, c.dim, rng.Int63())[0].Vec
			for _, k := range []int{1, 5, 10, 100} {
				sameHits(t, f.Search(q, k, nil), naive(rows, q, k, nil))
			}
		}
	}
}

// TestSearchPortable runs the scan with the portable kernel, which is what
// machines without AVX2 use.
func TestSearchPortable(t *testing.T) {
	defer func(old bool) { simd = old }(simd)
	simd = false
	rows := randomRows(777, 40, 11)
	f := openFile(t, writeFile(t, Header{Dim: 40}, rows))
	for i := range 10 {
		q := rows[i*31].Vec
		sameHits(t, f.Search(q, 10, nil), naive(rows, q, 10, nil))
	}
}

// TestSearchParallel covers the split scan: enough floats to use several
// goroutines, checked against the reference.
func TestSearchParallel(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	n, dim := 3*parallelMinFloats/64+17, 64
	rows := randomRows(n, dim, 3)
	f := openFile(t, writeFile(t, Header{Dim: dim}, rows))
	for i := range 10 {
		q := rows[i*97].Vec
		sameHits(t, f.Search(q, 10, nil), naive(rows, q, 10, nil))
		even := func(k uint64) bool { return k%2 == 0 }
		sameHits(t, f.Search(q, 25, even), naive(rows, q, 25, even))
	}
}

func TestSearchFilter(t *testing.T) {
	rows := randomRows(1000, 32, 5)
	f := openFile(t, writeFile(t, Header{Dim: 32}, rows))
	q := rows[3].Vec
	var mu sync.Mutex
	calls := 0
	only := func(k uint64) bool {
		mu.Lock()
		calls++
		mu.Unlock()
		return k%7 == 0
	}
	got := f.Search(q, 10, only)
	sameHits(t, got, naive(rows, q, 10, func(k uint64) bool { return k%7 == 0 }))
	for _, h := range got {
		if h.Key%7 != 0 {
			t.Fatalf("filtered-out key %d returned", h.Key)
		}
	}
	if calls >= len(rows) {
		t.Logf("filter called %d times for %d rows", calls, len(rows))
	}
	if hits := f.Search(q, 10, func(uint64) bool { return false }); len(hits) != 0 {
		t.Fatalf("filter rejecting all: %v", hits)
	}
	// The query row itself comes first with score 1.
	if got := f.Search(q, 1, nil); got[0].Key != rows[3].Key || math.Abs(float64(got[0].Score)-1) > 1e-5 {
		t.Fatalf("self search: %v", got)
	}
}

func TestSearchEdges(t *testing.T) {
	rows := randomRows(5, 8, 9)
	f := openFile(t, writeFile(t, Header{Dim: 8}, rows))
	q := rows[0].Vec
	if got := f.Search(q, 50, nil); len(got) != 5 {
		t.Fatalf("k > count: %d hits, want 5", len(got))
	}
	for _, c := range []struct {
		name string
		q    []float32
		k    int
	}{
		{"k 0", q, 0},
		{"k negative", q, -1},
		{"short query", q[:7], 3},
		{"long query", append(slices.Clone(q), 0), 3},
		{"nan query", []float32{float32(math.NaN()), 0, 0, 0, 0, 0, 0, 0}, 3},
		{"inf query", []float32{float32(math.Inf(1)), 0, 0, 0, 0, 0, 0, 0}, 3},
	} {
		if got := f.Search(c.q, c.k, nil); got != nil {
			t.Errorf("%s: %v, want nil", c.name, got)
		}
	}
	// A zero query scores every row 0: ties break by key.
	got := f.Search(make([]float32, 8), 3, nil)
	for i, h := range got {
		if h.Key != rows[i].Key || h.Score != 0 {
			t.Fatalf("zero query: %v", got)
		}
	}
}

func TestTopKTies(t *testing.T) {
	// The same hits offered in any order give the same top k.
	hits := []Hit{{5, 1}, {3, 1}, {9, 2}, {1, 0.5}, {4, 1}, {2, 1}, {8, 2}}
	want := []Hit{{8, 2}, {9, 2}, {2, 1}, {3, 1}}
	rng := rand.New(rand.NewSource(1))
	for range 50 {
		rng.Shuffle(len(hits), func(i, j int) { hits[i], hits[j] = hits[j], hits[i] })
		tk := newTopK(4)
		for _, h := range hits {
			tk.push(h)
		}
		if got := tk.sorted(); !slices.Equal(got, want) {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
}

// TestDot checks the portable kernel and, where the CPU has it, the SIMD
// one, including lengths that are not multiples of the unroll.
func TestDot(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	for n := 1; n < 40; n++ {
		a, b := make([]float32, n), make([]float32, n+3)
		var want float64
		for i := range a {
			a[i], b[i] = rng.Float32()-0.5, rng.Float32()-0.5
			want += float64(a[i]) * float64(b[i])
		}
		if got := dot(a, b); math.Abs(float64(got)-want) > 1e-5 {
			t.Fatalf("n=%d: dot %v, want %v", n, got, want)
		}
		if simd {
			if got := vek32.Dot(a, b[:n]); math.Abs(float64(got)-want) > 1e-5 {
				t.Fatalf("n=%d: vek32.Dot %v, want %v", n, got, want)
			}
		}
	}
}

var benchFile struct {
	once sync.Once
	path string
	rows []Row
}

// bench100k writes 100,000 random unit vectors of 256 dimensions (a file of
// about 103 MB) once per process; TestMain removes it.
func bench100k(b *testing.B) *File {
	benchFile.once.Do(func() {
		dir, err := os.MkdirTemp("", "vector-bench-")
		if err != nil {
			b.Fatal(err)
		}
		benchFile.rows = randomRows(100_000, 256, 42)
		benchFile.path = filepath.Join(dir, "vectors.f32")
		if err := Write(benchFile.path, Header{Dim: 256, Embedder: "bench"}, benchFile.rows); err != nil {
			b.Fatal(err)
		}
	})
	f, err := Open(benchFile.path)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { f.Close() })
	return f
}

func TestMain(m *testing.M) {
	code := m.Run()
	if benchFile.path != "" {
		os.RemoveAll(filepath.Dir(benchFile.path))
	}
	os.Exit(code)
}

func benchScan(b *testing.B, search func(f *File, q []float32) []Hit) {
	f := bench100k(b)
	q := benchFile.rows[12345].Vec
	// Touch every page once so the benchmark measures the scan, not page
	// faults of a cold mapping.
	search(f, q)
	b.ReportAllocs()
	b.SetBytes(int64(f.Len()) * int64(8+4*f.Dim()))
	start := cpuTime()
	for b.Loop() {
		if hits := search(f, q); len(hits) != 10 || hits[0].Key != benchFile.rows[12345].Key {
			b.Fatalf("wrong result %v", hits)
		}
	}
	b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
}

// BenchmarkSearch100kx256 is the scan the exact tier relies on (ARCHITECTURE §5)
// (≤ 5 ms): exact top-10 over 100,000 × 256, as Search runs it (through the
// codes; its MB/s counts the floats' bytes, which it mostly does not read).
func BenchmarkSearch100kx256(b *testing.B) {
	benchScan(b, func(f *File, q []float32) []Hit { return f.Search(q, 10, nil) })
}

// BenchmarkSearch100kx256Serial is the same scan on one goroutine.
func BenchmarkSearch100kx256Serial(b *testing.B) {
	benchScan(b, func(f *File, q []float32) []Hit {
		t := newTopK(10)
		f.scan(q, 0, f.Len(), nil, &t)
		return t.sorted()
	})
}

// BenchmarkSearch100kx256Filter adds a filter that accepts half the keys.
func BenchmarkSearch100kx256Filter(b *testing.B) {
	benchScan(b, func(f *File, q []float32) []Hit {
		return f.Search(q, 10, func(k uint64) bool { return k%2 == 1 })
	})
}

// BenchmarkSearch100kx256Portable is the serial scan with the portable
// 8-way unrolled kernel, as on machines without AVX2.
func BenchmarkSearch100kx256Portable(b *testing.B) {
	defer func(old bool) { simd = old }(simd)
	simd = false
	benchScan(b, func(f *File, q []float32) []Hit {
		t := newTopK(10)
		f.scan(q, 0, f.Len(), nil, &t)
		return t.sorted()
	})
}

// BenchmarkMemoryFloor100kx256 only reads one float per cache line of the
// rows: no scan can be faster than this on the same machine.
func BenchmarkMemoryFloor100kx256(b *testing.B) {
	f := bench100k(b)
	var s float32
	b.SetBytes(int64(len(f.floats)) * 4)
	start := cpuTime()
	for b.Loop() {
		fl := f.floats
		for i := 0; i < len(fl); i += 16 {
			s += fl[i]
		}
	}
	b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
	_ = s
}

func BenchmarkDot256(b *testing.B) {
	rows := randomRows(2, 256, 1)
	var s float32
	for b.Loop() {
		s += dot(rows[0].Vec, rows[1].Vec)
	}
	_ = s
}

func TestScoreKeys(t *testing.T) {
	rows := randomRows(300, 16, 11) // keys 1000.. ascending
	f := openFile(t, writeFile(t, Header{Dim: 16}, rows))
	q := rows[42].Vec
	keys := []uint64{rows[42].Key, rows[7].Key, 999999, rows[299].Key, rows[0].Key}
	got := f.Score(q, keys)
	if len(got) != 4 {
		t.Fatalf("%d hits for 4 stored keys and 1 missing: %+v", len(got), got)
	}
	if got[0].Key != rows[42].Key {
		t.Errorf("best %d, want the query's own row %d", got[0].Key, rows[42].Key)
	}
	for i, h := range got {
		want := dot(q, rows[h.Key-1000].Vec)
		if h.Score != want {
			t.Errorf("key %d: score %v, want %v", h.Key, h.Score, want)
		}
		if i > 0 && got[i-1].Score < h.Score {
			t.Errorf("not sorted at %d", i)
		}
	}
	if f.Score(q[:3], keys) != nil {
		t.Error("wrong dimension scored")
	}
}

// find must locate every key of files with gaps, runs and a single row,
// and report absent keys (between, below and above the stored ones).
func TestFind(t *testing.T) {
	for _, keys := range [][]uint64{
		{5},
		{1, 2, 3, 4, 5, 6, 7, 8, 9, 10},
		{1, 2, 3, 1000, 1001, 1002, 50000, 1 << 40},
		{3, 9, 27, 81, 243, 729, 2187},
	} {
		rows := make([]Row, len(keys))
		for i, k := range keys {
			rows[i] = Row{Key: k, Vec: []float32{1, 0}}
		}
		f := openFile(t, writeFile(t, Header{Dim: 2}, rows))
		for i, k := range keys {
			if got, ok := f.find(k); !ok || got != i {
				t.Errorf("keys %v: find(%d) = %d, %v; want %d", keys, k, got, ok, i)
			}
		}
		for _, k := range []uint64{0, 4, 11, 999, 2000, 1<<40 + 1} {
			if slices.Contains(keys, k) {
				continue
			}
			if _, ok := f.find(k); ok {
				t.Errorf("keys %v: found absent %d", keys, k)
			}
		}
	}
}

// BenchmarkSearch100kx256Exact is Search over the floats alone, as without
// codes (before vectors.i8, or with codes missing or stale).
func BenchmarkSearch100kx256Exact(b *testing.B) {
	benchScan(b, func(f *File, q []float32) []Hit { return exact(f, q, 10) })
}

// BenchmarkSearch100kx256Codes is searchCodes alone; it fails if the codes
// cannot prove the result.
func BenchmarkSearch100kx256Codes(b *testing.B) {
	benchScan(b, func(f *File, q []float32) []Hit {
		hits, ok := f.searchCodes(q, 10)
		if !ok {
			b.Fatal("the codes did not prove the result")
		}
		return hits
	})
}
