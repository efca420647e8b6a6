package vector

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/reflectkb/reflect/index/embed"
	"github.com/viterin/vek/vek32"
)

// dot8Go is the int8 dot product the column kernels are tested against:
// the plain loop, in int32. len(b) must be at least len(a).
func dot8Go(a, b []int8) int32 {
	var s int32
	for i, x := range a {
		s += int32(x) * int32(b[i])
	}
	return s
}

// randomCodes returns n int8 in -127..127 (the range quantize makes).
func randomCodes(rng *rand.Rand, n int) []int8 {
	c := make([]int8, n)
	for i := range c {
		c[i] = int8(rng.Intn(255) - 127)
	}
	return c
}

func absCodes(q []int8) []int8 {
	a := make([]int8, len(q))
	for i, x := range q {
		a[i] = max(x, -x)
	}
	return a
}

// blockOf lays rows (of dim codes each, at most codesBlockRows) out as a
// block's columns, with random bytes (−128 included) in the padding rows
// when pad, and zeros otherwise; it returns the columns.
func blockOf(rng *rand.Rand, rows [][]int8, dim int, pad bool) []byte {
	cols := make([]byte, dim*codesBlockRows)
	if pad {
		rng.Read(cols)
	}
	for r := len(rows); r < codesBlockRows && !pad; r++ {
		rows = append(rows, make([]int8, dim))
	}
	for r, c := range rows {
		for j, x := range c {
			cols[j*codesBlockRows+r] = byte(x)
		}
	}
	return cols
}

// checkDot8Cols fails t unless dot8Cols, with the assembly and with the
// portable loop, gives each row of the block dot8Go's sum, and padding
// rows (zeros) 0.
func checkDot8Cols(t *testing.T, q []int8, rows [][]int8, cols []byte) {
	t.Helper()
	sq := newSparseQuery(q)
	var simd, portable [codesBlockRows]int32
	for r := range simd {
		simd[r], portable[r] = -1, -1 // overwritten, not added to
	}
	dot8Cols(cols, 0, sq, &simd)
	dot8ColsGo(cols, sq, &portable)
	for r := range codesBlockRows {
		want := int32(0)
		if r < len(rows) {
			want = dot8Go(q, rows[r])
		}
		if simd[r] != want || portable[r] != want {
			t.Fatalf("dim %d, %d nonzero, %d rows: row %d: dot8Cols %d, portable %d, dot8Go %d",
				len(q), len(sq.dims), len(rows), r, simd[r], portable[r], want)
		}
	}
}

// sparsify zeroes all but nnz of q's components, at random places.
func sparsify(rng *rand.Rand, q []int8, nnz int) []int8 {
	q = slices.Clone(q)
	for _, j := range rng.Perm(len(q))[nnz:] {
		q[j] = 0
	}
	return q
}

// The column kernel gives every row of a block dot8Go's sum, bit for bit,
// with the assembly and the portable loop: every number of nonzero query
// dimensions from 0 to dim, full blocks and blocks of fewer rows (zero
// padding), negative values and the ±127 extremes.
func TestDot8ColsMatchesPortable(t *testing.T) {
	if !hasDot8SIMD {
		t.Log("no SIMD kernel on this machine: dot8Cols is the portable loop")
	}
	rng := rand.New(rand.NewSource(13))
	for _, dim := range []int{1, 5, 31, 64, 100, 256, 300} {
		for nnz := 0; nnz <= dim; nnz++ {
			if dim > 64 && nnz%7 != 0 && nnz < dim-3 {
				continue
			}
			q := sparsify(rng, randomCodes(rng, dim), nnz)
			count := []int{codesBlockRows, 1 + rng.Intn(codesBlockRows)}[nnz%2]
			rows := make([][]int8, count)
			for r := range rows {
				rows[r] = randomCodes(rng, dim)
			}
			checkDot8Cols(t, q, rows, blockOf(rng, rows, dim, false))
		}
	}
	for _, v := range []int8{127, -127} {
		for _, w := range []int8{127, -127} {
			dim := 1024 + 17
			q := slices.Repeat([]int8{v}, dim)
			rows := make([][]int8, codesBlockRows)
			for r := range rows {
				rows[r] = slices.Repeat([]int8{w}, dim)
			}
			checkDot8Cols(t, q, rows, blockOf(rng, rows, dim, false))
			if got := dot8Go(q, rows[0]); got != int32(v)*int32(w)*int32(dim) {
				t.Fatalf("extremes: %d", got)
			}
		}
	}
}

// The kernel reads only the query's columns: the other columns may hold
// anything (−128 included) and the sums do not change.
func TestDot8ColsReadsOnlyItsColumns(t *testing.T) {
	rng := rand.New(rand.NewSource(14))
	const dim = 256
	for nnz := range 40 {
		q := sparsify(rng, randomCodes(rng, dim), nnz)
		rows := make([][]int8, codesBlockRows)
		for r := range rows {
			rows[r] = randomCodes(rng, dim)
		}
		cols := blockOf(rng, rows, dim, false)
		for j, x := range q {
			if x == 0 {
				rng.Read(cols[j*codesBlockRows : (j+1)*codesBlockRows])
			}
		}
		checkDot8Cols(t, q, rows, cols)
	}
}

// dot8Cols refuses a block that does not hold the columns the query
// reads, rather than read past it.
func TestDot8ColsShort(t *testing.T) {
	q := make([]int8, 64)
	q[63] = 1
	defer func() {
		if recover() == nil {
			t.Errorf("63 columns for a query of 64: no panic")
		}
	}()
	var out [codesBlockRows]int32
	dot8Cols(make([]byte, 63*codesBlockRows), 0, newSparseQuery(q), &out)
}

// FuzzDot8Cols checks the column kernel against dot8Go on arbitrary
// blocks: the first byte picks the dim, and the rest fills the query, then
// the block's rows (−128 read as −127), as far as it goes.
func FuzzDot8Cols(f *testing.F) {
	f.Add(byte(3), make([]byte, 64))
	f.Add(byte(64), make([]byte, 1000))
	f.Add(byte(255), make([]byte, 5000))
	f.Fuzz(func(t *testing.T, nb byte, data []byte) {
		dim := int(nb)
		if dim == 0 || len(data) < dim {
			return
		}
		clamp := func(b []byte) []int8 {
			c := make([]int8, len(b))
			for i, x := range b {
				c[i] = max(int8(x), -127)
			}
			return c
		}
		q := clamp(data[:dim])
		rest := data[dim:]
		var rows [][]int8
		for len(rows) < codesBlockRows && len(rest) >= dim {
			rows = append(rows, clamp(rest[:dim]))
			rest = rest[dim:]
		}
		checkDot8Cols(t, q, rows, blockOf(nil, rows, dim, false))
	})
}

// quantize's bounds hold: ‖v − d·c‖ ≤ e and ‖d·c‖ ≤ m, for unit vectors,
// unnormalised ones, tiny and huge components and zero vectors.
func TestQuantizeBounds(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	for i := range 2000 {
		dim := 1 + rng.Intn(300)
		v := make([]float32, dim)
		scale := math.Pow(10, float64(rng.Intn(20)-10))
		for j := range v {
			if rng.Intn(4) > 0 {
				v[j] = float32(rng.NormFloat64() * scale)
			}
		}
		if i%100 == 0 {
			clear(v)
		}
		c := make([]int8, dim)
		d, e, m := quantize(v, c)
		var ee, mm float64
		for j, x := range v {
			if c[j] < -127 {
				t.Fatalf("code %d below -127", c[j])
			}
			y := float64(d) * float64(c[j])
			ee += (float64(x) - y) * (float64(x) - y)
			mm += y * y
		}
		if math.Sqrt(ee) > float64(e) || math.Sqrt(mm) > float64(m) {
			t.Fatalf("vector %d: error %g > %g or norm %g > %g", i, math.Sqrt(ee), e, math.Sqrt(mm), m)
		}
	}
}

// hashRows embeds n made-up learnings with the hash embedder, so that the
// rows have the structure of real ones (sparse, unit, near neighbours);
// some are duplicated (equal scores, ranked by key) and some are zero
// (tombstones).
func hashRows(t testing.TB, n, dim int, seed int64) ([]Row, *embed.Hash) {
	t.Helper()
	h, err := embed.NewHash(dim)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewSource(seed))
	words := []string{"postgres", "pool", "timeout", "docker", "cache", "widget", "kafka", "lag", "nginx", "upstream",
		"terraform", "lock", "build", "ENOSPC", "retry", "cookie", "session", "flush", "index", "vector", "query", "schema"}
	texts := make([]string, n)
	for i := range texts {
		s := fmt.Sprintf("learning %d", i)
		for range 3 + rng.Intn(8) {
			s += " " + words[rng.Intn(len(words))]
		}
		texts[i] = s
	}
	vecs, err := h.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	rows := make([]Row, n)
	for i, v := range vecs {
		rows[i] = Row{Key: uint64(1000 + i), Vec: v}
		switch {
		case i%97 == 5:
			rows[i].Vec = rows[i-1].Vec
		case i%101 == 7:
			rows[i].Vec = make([]float32, dim)
		}
	}
	return rows, h
}

// exact is f's scan of the floats, codes or not.
func exact(f *File, q []float32, k int) []Hit {
	saved := f.q
	f.q = nil
	defer func() { f.q = saved }()
	return f.Search(q, k, nil)
}

// Search through the codes returns exactly what the scan of the floats
// returns (keys, scores, order), and proves it for nearly every query, so
// the codes are what is being tested.
func TestSearchCodesMatchesExact(t *testing.T) {
	for _, dim := range []int{256, 100} {
		rows, h := hashRows(t, codesMinRows+500, dim, int64(dim))
		f := openFile(t, writeFile(t, Header{Dim: dim}, rows))
		if p := f.CodesProblem(); p != "" {
			t.Fatalf("codes: %s", p)
		}
		queries := []string{"postgres pool timeout", "docker build ENOSPC", "widget cache flush", "learning 17 kafka lag", "nothing in common"}
		for i := range 40 {
			queries = append(queries, fmt.Sprintf("learning %d %s", i*37, []string{"cache", "retry", "schema"}[i%3]))
		}
		qs, err := h.Embed(context.Background(), queries)
		if err != nil {
			t.Fatal(err)
		}
		proved, total := 0, 0
		for qi, q := range qs {
			for _, k := range []int{1, 10, 100} {
				want := exact(f, q, k)
				if got := f.Search(q, k, nil); !slices.Equal(got, want) {
					t.Fatalf("dim %d query %q k=%d:\n got %v\nwant %v", dim, queries[qi], k, got, want)
				}
				if got, ok := f.searchCodes(q, k); ok {
					proved++
					if !slices.Equal(got, want) {
						t.Fatalf("searchCodes proved a wrong result for %q", queries[qi])
					}
				}
				total++
			}
		}
		if proved < total*9/10 {
			t.Errorf("dim %d: the codes proved %d of %d results; the rest scanned the floats", dim, proved, total)
		}
	}
}

// The portable int8 loop gives the same search results.
func TestSearchCodesPortable(t *testing.T) {
	if !hasDot8SIMD {
		t.Skip("dot8 is the portable loop here")
	}
	rows, h := hashRows(t, codesMinRows+10, 64, 9)
	f := openFile(t, writeFile(t, Header{Dim: 64}, rows))
	qs, _ := h.Embed(context.Background(), []string{"postgres pool", "docker cache"})
	var want [][]Hit
	for _, q := range qs {
		want = append(want, f.Search(q, 10, nil))
	}
	setDot8SIMD(t, false)
	for i, q := range qs {
		if got := f.Search(q, 10, nil); !slices.Equal(got, want[i]) {
			t.Fatalf("portable: %v, want %v", got, want[i])
		}
	}
}

// codesOK fails t unless the file at path has codes made from it, holding
// its rows'.
func codesOK(t *testing.T, path string) *File {
	t.Helper()
	f := openFile(t, path)
	if p := f.CodesProblem(); p != "" {
		t.Fatalf("codes: %s", p)
	}
	if n := f.CodesMismatch(); n != 0 {
		t.Fatalf("codes: %d rows do not match", n)
	}
	return f
}

// Write, Writer and Patch keep the codes in step with the file, through
// appends and tombstones, and a reader that opened the codes before a
// patch keeps a consistent view.
func TestCodesFollowWrites(t *testing.T) {
	dir := t.TempDir()
	h := Header{Dim: 48, Embedder: "hash", EmbedderVersion: "v/48"}
	rows, _ := hashRows(t, 300, h.Dim, 1)
	path := filepath.Join(dir, "vectors.f32")
	if err := Write(path, h, rows); err != nil {
		t.Fatal(err)
	}
	codesOK(t, path)
	w, err := Create(path, h)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows[:200] {
		if err := w.Add(r.Key, r.Vec); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	before := codesOK(t, path)
	more := rows[200:]
	if err := Patch(path, h, 200, []int{0, 17, 199}, more); err != nil {
		t.Fatal(err)
	}
	after := codesOK(t, path)
	zeros := 0 // hashRows makes some
	for _, r := range rows {
		if !slices.ContainsFunc(r.Vec, func(x float32) bool { return x != 0 }) {
			zeros++
		}
	}
	if after.Len() != 300 || after.Tombstones() != zeros+3 {
		t.Fatalf("after the patch: %d rows, %d tombstones", after.Len(), after.Tombstones())
	}
	if before.Len() != 200 || before.q == nil {
		t.Fatalf("the earlier reader lost its codes")
	}
	// Only zeroes, no rows: the codes still follow.
	if err := Patch(path, h, 300, []int{250}, nil); err != nil {
		t.Fatal(err)
	}
	codesOK(t, path)
}

// Codes that do not match the file (made from another version of it,
// cut short, missing) are not used: Search scans the floats and returns
// the same; WriteCodes makes them anew; a patch over stale codes removes
// them instead of patching them.
func TestCodesStaleOrDamaged(t *testing.T) {
	h := Header{Dim: 32, Embedder: "hash", EmbedderVersion: "v/32"}
	rows, emb := hashRows(t, codesMinRows+100, h.Dim, 2)
	qs, _ := emb.Embed(context.Background(), []string{"postgres pool timeout", "widget cache"})
	cases := map[string]func(t *testing.T, path string){
		"vectors rewritten without them": func(t *testing.T, path string) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			// An older build rewrites vectors.f32 (another version: a
			// new inode and time) and leaves vectors.i8 as it was.
			tmp := path + ".old-build"
			if err := os.WriteFile(tmp, data, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(tmp, path); err != nil {
				t.Fatal(err)
			}
		},
		"vectors touched": func(t *testing.T, path string) {
			if err := os.Chtimes(path, time.Now(), time.Now().Add(time.Hour)); err != nil {
				t.Fatal(err)
			}
		},
		"codes cut short": func(t *testing.T, path string) {
			if err := os.Truncate(CodesPath(path), 1000); err != nil {
				t.Fatal(err)
			}
		},
		"codes missing": func(t *testing.T, path string) {
			if err := os.Remove(CodesPath(path)); err != nil {
				t.Fatal(err)
			}
		},
		"codes a directory": func(t *testing.T, path string) {
			if err := os.Remove(CodesPath(path)); err != nil {
				t.Fatal(err)
			}
			if err := os.Mkdir(CodesPath(path), 0o700); err != nil {
				t.Fatal(err)
			}
		},
	}
	for name, damage := range cases {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "vectors.f32")
			if err := Write(path, h, rows); err != nil {
				t.Fatal(err)
			}
			want := make([][]Hit, len(qs))
			for i, q := range qs {
				want[i] = exact(openFile(t, path), q, 10)
			}
			damage(t, path)
			f := openFile(t, path)
			if f.CodesProblem() == "" || f.CodesMismatch() != -1 {
				t.Fatalf("codes accepted: problem %q", f.CodesProblem())
			}
			for i, q := range qs {
				if got := f.Search(q, 10, nil); !slices.Equal(got, want[i]) {
					t.Fatalf("search without codes: %v, want %v", got, want[i])
				}
			}
			if name == "codes a directory" {
				return // WriteCodes's rename cannot replace a directory
			}
			// A patch over stale codes drops them rather than patch them.
			last := rows[len(rows)-1].Key
			if err := Patch(path, h, len(rows), []int{3}, []Row{{Key: last + 1, Vec: rows[0].Vec}}); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(CodesPath(path)); !os.IsNotExist(err) {
				t.Fatalf("stale codes survived a patch: %v", err)
			}
			if err := WriteCodes(path); err != nil {
				t.Fatal(err)
			}
			f = codesOK(t, path)
			for i, q := range qs {
				if got := f.Search(q, 10, nil); len(got) != len(want[i]) {
					t.Fatalf("after WriteCodes: %v", got)
				}
			}
		})
	}
}

// A damaged row of codes that makes a bound NaN is not ranked around: the
// search scans the floats. CodesMismatch finds the row.
func TestCodesNaNBound(t *testing.T) {
	h := Header{Dim: 32}
	rows, emb := hashRows(t, codesMinRows+100, h.Dim, 4)
	path := writeFile(t, h, rows)
	fd, err := os.OpenFile(CodesPath(path), os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	nan := math.Float32bits(float32(math.NaN()))
	b := []byte{byte(nan), byte(nan >> 8), byte(nan >> 16), byte(nan >> 24)}
	// Row 42's scale d: the first float of its (d, e, m) in its block.
	if _, err := fd.WriteAt(b, codesBlockOff(42/codesBlockRows, h.Dim)+int64(42%codesBlockRows*4*codesRowFloats)); err != nil {
		t.Fatal(err)
	}
	fd.Close()
	f := openFile(t, path)
	q, _ := emb.Embed(context.Background(), []string{"docker cache"})
	if _, ok := f.searchCodes(q[0], 10); ok {
		t.Fatal("searchCodes answered over a NaN bound")
	}
	if got, want := f.Search(q[0], 10, nil), exact(f, q[0], 10); !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	if n := f.CodesMismatch(); n != 1 {
		t.Fatalf("CodesMismatch = %d, want 1", n)
	}
}

// The bound a row's codes give is at least its exact score, as either
// float kernel computes it, for every row and query: hash rows, and
// Gaussian rows and queries of any length and scale.
func TestCodesBoundHolds(t *testing.T) {
	rng := rand.New(rand.NewSource(8))
	rows, emb := hashRows(t, 2000, 256, 6)
	qs, _ := emb.Embed(context.Background(), []string{"postgres pool timeout", "docker cache", "learning 5 kafka"})
	check := func(rows []Row, qs [][]float32) {
		t.Helper()
		dim := len(qs[0])
		c := make([]int8, dim)
		for _, q := range qs {
			qc, b := quantizeQuery(q)
			for _, r := range rows {
				d, e, m := quantize(r.Vec, c)
				ub := b.upper(dot8Go(qc, c), d, e, m)
				if s := max(dot(q, r.Vec), vek32.Dot(q, r.Vec)); s > ub {
					t.Fatalf("dim %d: exact score %v above its bound %v", dim, s, ub)
				}
			}
		}
	}
	check(rows, qs)
	for range 20 {
		dim := 1 + rng.Intn(400)
		scale := math.Pow(10, float64(rng.Intn(8)-4))
		gauss := func() []float32 {
			v := make([]float32, dim)
			for j := range v {
				v[j] = float32(rng.NormFloat64() * scale)
			}
			return v
		}
		var rs []Row
		for range 200 {
			rs = append(rs, Row{Vec: gauss()})
		}
		check(rs, [][]float32{gauss(), gauss()})
	}
}

// With barely more candidates than hits the codes seldom prove a result,
// and the search then scans the floats: the results are the exact scan's
// either way, on hash rows and on Gaussian ones (where scores crowd).
func TestSearchCodesFewCandidates(t *testing.T) {
	old := rescoreFor
	rescoreFor = func(k int) int { return k + 1 }
	t.Cleanup(func() { rescoreFor = old })
	rows, emb := hashRows(t, codesMinRows+50, 64, 10)
	rng := rand.New(rand.NewSource(11))
	gauss := make([]Row, codesMinRows+50)
	for i := range gauss {
		v := make([]float32, 64)
		for j := range v {
			v[j] = float32(rng.NormFloat64())
		}
		gauss[i] = Row{Key: uint64(i), Vec: v}
	}
	qs, _ := emb.Embed(context.Background(), []string{"postgres pool timeout", "docker cache", "learning 5 kafka", "widget"})
	for _, set := range [][]Row{rows, gauss} {
		f := openFile(t, writeFile(t, Header{Dim: 64}, set))
		for _, q := range append(qs, gauss[3].Vec, gauss[99].Vec) {
			for _, k := range []int{1, 3, 10} {
				if got, want := f.Search(q, k, nil), exact(f, q, k); !slices.Equal(got, want) {
					t.Fatalf("k=%d: got %v, want %v", k, got, want)
				}
			}
		}
	}
}

// BenchmarkDot8Cols scores a block of 64 rows of 256 codes in the cache,
// as scanCodes does, for queries with 16, 64 and 256 (dense) nonzero
// codes.
func BenchmarkDot8Cols(b *testing.B) {
	rng := rand.New(rand.NewSource(1))
	const dim = 256
	rows := make([][]int8, codesBlockRows)
	for r := range rows {
		rows[r] = randomCodes(rng, dim)
	}
	cols := blockOf(rng, rows, dim, false)
	var out [codesBlockRows]int32
	for _, nnz := range []int{16, 64, 256} {
		sq := newSparseQuery(sparsify(rng, randomCodes(rng, dim), nnz))
		b.Run(fmt.Sprintf("nnz=%d", nnz), func(b *testing.B) {
			for b.Loop() {
				dot8Cols(cols, 0, sq, &out)
			}
		})
	}
}

// scanCodes' runs of blocks (here rows of stride bytes) cover them once,
// in order; each but the last
// ends its drop on a multiple of scanBlockBytes, right where the previous
// one's ended, and holds exactly the rows that start before it; the last
// drop stops at the start of row hi, which may be another scan's.
func TestCodesBlock(t *testing.T) {
	rng := rand.New(rand.NewSource(17))
	for range 2000 {
		stride := codesBlockBytes(1 + rng.Intn(2000))
		if rng.Intn(10) == 0 {
			stride = 4 * (1 + rng.Intn(4)) * scanBlockBytes / 3 // rows longer than a block
		}
		lo := rng.Intn(20000)
		hi := lo + 1 + rng.Intn(30000)
		prev := -1
		for blo := lo; blo < hi; {
			bhi, end := codesBlock(blo, hi, stride)
			if bhi <= blo || bhi > hi {
				t.Fatalf("stride %d [%d, %d): block [%d, %d)", stride, lo, hi, blo, bhi)
			}
			if prev >= 0 && codesHeader+blo*stride < prev {
				t.Fatalf("stride %d: row %d starts at %d, before the previous drop's end %d", stride, blo, codesHeader+blo*stride, prev)
			}
			if bhi == hi {
				if end != codesHeader+hi*stride {
					t.Fatalf("stride %d: last drop ends at %d, want %d", stride, end, codesHeader+hi*stride)
				}
			} else if end%scanBlockBytes != 0 || codesHeader+(bhi-1)*stride >= end || codesHeader+bhi*stride < end {
				t.Fatalf("stride %d: block [%d, %d) drops to %d", stride, blo, bhi, end)
			}
			blo, prev = bhi, end
		}
	}
}
