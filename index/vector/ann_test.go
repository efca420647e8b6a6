package vector

import (
	"math"
	"strings"
	"testing"
	"time"
)

func TestBuildHNSWRejects(t *testing.T) {
	rows := randomRows(5, 4, 1)
	cases := []struct {
		name string
		rows []Row
		want string
	}{
		{"empty", nil, "no vectors"},
		{"zero length", []Row{{Key: 1}}, "zero-length"},
		{"mixed dims", append([]Row{{Key: 99, Vec: make([]float32, 3)}}, rows...), "want 3"},
		{"duplicate key", append(rows[:2:2], rows[0]), "twice"},
	}
	for _, c := range cases {
		if _, err := BuildHNSW(c.rows, HNSWParams{}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err %v, want %q", c.name, err, c.want)
		}
	}
}

func TestANNSearch(t *testing.T) {
	rows := randomRows(300, 16, 4)
	ann, err := BuildHNSW(rows, HNSWParams{})
	if err != nil {
		t.Fatal(err)
	}
	if ann.Len() != len(rows) {
		t.Fatalf("Len %d, want %d", ann.Len(), len(rows))
	}
	// The graph copied the vectors: changing the caller's rows afterwards
	// must not change what the ANN scores.
	q := append([]float32(nil), rows[7].Vec...)
	rows[7].Vec[0] += 10
	hits, err := ann.Search(q, 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) == 0 || len(hits) > 5 {
		t.Fatalf("%d hits", len(hits))
	}
	for i, h := range hits {
		if i > 0 && worse(hits[i-1], h) {
			t.Fatalf("not best first: %v", hits)
		}
		if h.Score > 1+1e-5 {
			t.Fatalf("score %v above 1 for unit vectors: vectors not copied?", h.Score)
		}
	}
	if got, err := ann.Search(q[:3], 5); got != nil || err != nil {
		t.Fatalf("wrong dim: %v, %v", got, err)
	}
}

func TestSelfCheckDegenerate(t *testing.T) {
	rows := randomRows(50, 8, 2)
	f := openFile(t, writeFile(t, Header{Dim: 8}, rows))
	ann, err := BuildHNSW(rows, HNSWParams{})
	if err != nil {
		t.Fatal(err)
	}
	if r := SelfCheck(nil, f, 10, 10); r != 0 {
		t.Errorf("nil ann: %v", r)
	}
	if r := SelfCheck(ann, f, 0, 10); r != 0 {
		t.Errorf("no sample: %v", r)
	}
	empty := openFile(t, writeFile(t, Header{Dim: 8}, nil))
	if r := SelfCheck(ann, empty, 10, 10); r != 0 {
		t.Errorf("empty file: %v", r)
	}
	// An ANN whose graph panics inside the library counts as recall 0.
	broken := &ANN{g: ann.g, dim: 8}
	broken.g.Distance = func(a, b []float32) float32 { panic("boom") }
	if r := SelfCheck(broken, f, 10, 10); r != 0 {
		t.Errorf("panicking ann: recall %v, want 0", r)
	}
	if _, err := broken.Search(rows[0].Vec, 3); err == nil || !strings.Contains(err.Error(), "panicked") {
		t.Errorf("panicking search: %v", err)
	}
}

// TestSelfCheckRecall checks that SelfCheck returns a proper fraction on a
// small graph searched with a wide beam.
func TestSelfCheckRecall(t *testing.T) {
	rows := randomRows(30, 8, 3)
	f := openFile(t, writeFile(t, Header{Dim: 8}, rows))
	ann, err := BuildHNSW(rows, HNSWParams{EfSearch: 200, M: 32})
	if err != nil {
		t.Fatal(err)
	}
	r := SelfCheck(ann, f, 30, 5)
	if r < 0 || r > 1 || math.IsNaN(r) {
		t.Fatalf("recall %v outside [0, 1]", r)
	}
	t.Logf("recall@5 on 30 vectors: %.3f", r)
}

func TestSearcherBelowThreshold(t *testing.T) {
	rows := randomRows(80, 8, 5)
	f := openFile(t, writeFile(t, Header{Dim: 8}, rows))
	s := NewSearcher(f, Policy{})
	if s.UsesANN() {
		t.Fatal("ANN used below the threshold")
	}
	if want := "exact scan: 80 vectors below ann_threshold 50,000"; s.Reason() != want {
		t.Fatalf("reason %q, want %q", s.Reason(), want)
	}
	if _, ok := s.Recall(); ok {
		t.Fatal("recall reported without a check")
	}
	sameHits(t, s.Search(rows[1].Vec, 5, nil), naive(rows, rows[1].Vec, 5, nil))
}

func TestSearcherRejectsLowRecall(t *testing.T) {
	rows := randomRows(400, 16, 6)
	f := openFile(t, writeFile(t, Header{Dim: 16}, rows))
	// No ANN can pass a recall above 1, so this pins the failure path.
	s := NewSearcher(f, Policy{ANNThreshold: 100, MinRecall: 1.01, Sample: 20})
	if s.UsesANN() {
		t.Fatal("ANN used although the self-check cannot pass")
	}
	r, ok := s.Recall()
	if !ok {
		t.Fatal("no recall measured above the threshold")
	}
	if !strings.HasPrefix(s.Reason(), "exact scan: hnsw self-check recall@10 = ") || !strings.HasSuffix(s.Reason(), " < 1.01") {
		t.Fatalf("reason %q", s.Reason())
	}
	t.Logf("%s (recall %.3f)", s.Reason(), r)
	sameHits(t, s.Search(rows[2].Vec, 10, nil), naive(rows, rows[2].Vec, 10, nil))
}

func TestSearcherWithANN(t *testing.T) {
	rows := randomRows(200, 8, 7)
	f := openFile(t, writeFile(t, Header{Dim: 8}, rows))
	// A minimal bar so the ANN path is taken whatever the library's recall.
	s := NewSearcher(f, Policy{ANNThreshold: 100, MinRecall: 1e-9, Sample: 20, HNSW: HNSWParams{EfSearch: 200}})
	if !s.UsesANN() {
		t.Skipf("ANN not taken: %s", s.Reason())
	}
	if !strings.HasPrefix(s.Reason(), "hnsw: self-check recall@10 = ") {
		t.Fatalf("reason %q", s.Reason())
	}
	q := rows[9].Vec
	hits := s.Search(q, 5, nil)
	if len(hits) != 5 {
		t.Fatalf("%d hits", len(hits))
	}
	for _, h := range hits {
		want := dot(q, rows[h.Key-1000].Vec)
		if math.Abs(float64(h.Score-want)) > 1e-5 {
			t.Fatalf("key %d: score %v, exact %v: candidates not re-scored", h.Key, h.Score, want)
		}
	}
	// A filter that leaves too few ANN candidates falls back to the exact
	// scan, so filtered searches are never short.
	rare := func(k uint64) bool { return k%50 == 0 }
	sameHits(t, s.Search(q, 4, rare), naive(rows, q, 4, rare))
}

func TestThousands(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 50000: "50,000", 1234567: "1,234,567", -1234: "-1,234"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestHNSWRecall10k measures what ARCHITECTURE §5 relies on: recall@10 of the served
// coder/hnsw against the exact scan on 10,000 random unit vectors of 256
// dimensions, and checks that the Searcher's decision follows it. It takes
// a while, so -short skips it.
func TestHNSWRecall10k(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 10,000-vector graph")
	}
	rows := randomRows(10_000, 256, 10)
	f := openFile(t, writeFile(t, Header{Dim: 256}, rows))
	start := time.Now()
	s := NewSearcher(f, Policy{ANNThreshold: 10_000})
	r, ok := s.Recall()
	if !ok {
		t.Fatalf("no self-check ran: %s", s.Reason())
	}
	t.Logf("10,000 × 256, default params: build + self-check %v: %s", time.Since(start).Round(time.Millisecond), s.Reason())
	if s.UsesANN() != (r >= DefaultPolicy.MinRecall) {
		t.Fatalf("UsesANN %v with recall %.3f", s.UsesANN(), r)
	}
	if !s.UsesANN() {
		for i := range 20 {
			q := rows[i*487].Vec
			sameHits(t, s.Search(q, 10, nil), naive(rows, q, 10, nil))
		}
	}
}
