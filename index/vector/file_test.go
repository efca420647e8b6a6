package vector

import (
	"encoding/binary"
	"errors"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// randomRows returns n unit vectors of dim with keys 1000+i.
func randomRows(n, dim int, seed int64) []Row {
	rng := rand.New(rand.NewSource(seed))
	backing := make([]float32, n*dim)
	rows := make([]Row, n)
	for i := range rows {
		v := backing[i*dim : (i+1)*dim]
		var ss float64
		for j := range v {
			x := rng.NormFloat64()
			v[j] = float32(x)
			ss += x * x
		}
		inv := float32(1 / math.Sqrt(ss))
		for j := range v {
			v[j] *= inv
		}
		rows[i] = Row{Key: uint64(1000 + i), Vec: v}
	}
	return rows
}

func writeFile(t testing.TB, h Header, rows []Row) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "vectors.f32")
	if err := Write(path, h, rows); err != nil {
		t.Fatal(err)
	}
	return path
}

func openFile(t testing.TB, path string) *File {
	t.Helper()
	f, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func TestRoundTrip(t *testing.T) {
	for _, dim := range []int{1, 3, 8, 13, 256} {
		for _, name := range []string{"", "hash", "a-much-longer-embedder-name"} {
			h := Header{Dim: dim, Embedder: name, EmbedderVersion: "v" + strings.Repeat("x", dim%5)}
			rows := randomRows(37, dim, int64(dim))
			f := openFile(t, writeFile(t, h, rows))
			if f.Header() != h {
				t.Fatalf("header %+v, want %+v", f.Header(), h)
			}
			if f.Len() != len(rows) || f.Dim() != dim {
				t.Fatalf("len %d dim %d", f.Len(), f.Dim())
			}
			for i, r := range rows {
				if f.Key(i) != r.Key {
					t.Fatalf("key %d: %d, want %d", i, f.Key(i), r.Key)
				}
				v := f.Vector(i)
				for j := range r.Vec {
					if math.Float32bits(v[j]) != math.Float32bits(r.Vec[j]) {
						t.Fatalf("row %d comp %d: %v, want %v", i, j, v[j], r.Vec[j])
					}
				}
			}
		}
	}
}

func TestWriteReplacesAtomically(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "vectors.f32")
	if err := Write(path, Header{Dim: 4, Embedder: "hash"}, randomRows(10, 4, 1)); err != nil {
		t.Fatal(err)
	}
	old := openFile(t, path)
	if err := Write(path, Header{Dim: 4, Embedder: "hash"}, randomRows(3, 4, 2)); err != nil {
		t.Fatal(err)
	}
	// The old mapping still reads the old rows after the rename.
	if old.Len() != 10 || old.Key(9) != 1009 {
		t.Fatalf("old mapping changed: len %d", old.Len())
	}
	if f := openFile(t, path); f.Len() != 3 {
		t.Fatalf("new file has %d rows", f.Len())
	}
	// The file and its codes, no temp file.
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 2 || entries[0].Name() != "vectors.f32" || entries[1].Name() != "vectors.i8" {
		t.Fatalf("temp files left behind: %v", entries)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", st.Mode().Perm())
	}
}

func TestWriteRejects(t *testing.T) {
	good := randomRows(3, 4, 1)
	nan := randomRows(1, 4, 1)
	nan[0].Vec[2] = float32(math.NaN())
	inf := randomRows(2, 4, 1)
	inf[1].Vec[3] = float32(math.Inf(1))
	negInf := randomRows(1, 4, 1)
	negInf[0].Vec[0] = float32(math.Inf(-1))
	cases := []struct {
		name string
		h    Header
		rows []Row
		want string
	}{
		{"dim 0", Header{Dim: 0}, nil, "dimension"},
		{"dim too large", Header{Dim: MaxDim + 1}, nil, "dimension"},
		{"long name", Header{Dim: 4, Embedder: strings.Repeat("n", MaxNameLen+1)}, good, "at most"},
		{"bad utf8", Header{Dim: 4, EmbedderVersion: "\xff"}, good, "UTF-8"},
		{"wrong dim", Header{Dim: 5}, good, "has 4 components, want 5"},
		{"nan", Header{Dim: 4}, nan, "NaN"},
		{"+inf", Header{Dim: 4}, inf, "+Inf"},
		{"-inf", Header{Dim: 4}, negInf, "-Inf"},
		{"duplicate", Header{Dim: 4}, []Row{good[0], good[1], good[0]}, "twice"},
	}
	for _, c := range cases {
		path := filepath.Join(t.TempDir(), "v")
		err := Write(path, c.h, c.rows)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err %v, want %q", c.name, err, c.want)
		}
		if _, serr := os.Stat(path); serr == nil {
			t.Errorf("%s: file written despite the error", c.name)
		}
	}
}

func TestEmptyFile(t *testing.T) {
	f := openFile(t, writeFile(t, Header{Dim: 8, Embedder: "hash", EmbedderVersion: "fh1"}, nil))
	if f.Len() != 0 || f.Dim() != 8 {
		t.Fatalf("len %d dim %d", f.Len(), f.Dim())
	}
	if hits := f.Search(make([]float32, 8), 10, nil); len(hits) != 0 {
		t.Fatalf("hits in an empty file: %v", hits)
	}
}

func TestClose(t *testing.T) {
	path := writeFile(t, Header{Dim: 4}, randomRows(5, 4, 1))
	f, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if hits := f.Search(make([]float32, 4), 3, nil); hits != nil {
		t.Fatalf("search after Close: %v", hits)
	}
}

func TestOpenInvalid(t *testing.T) {
	valid, err := os.ReadFile(writeFile(t, Header{Dim: 4, Embedder: "hash", EmbedderVersion: "fh1"}, randomRows(3, 4, 1)))
	if err != nil {
		t.Fatal(err)
	}
	le := binary.LittleEndian
	edit := func(fn func(b []byte) []byte) []byte {
		return fn(append([]byte(nil), valid...))
	}
	cases := []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "short header"},
		{"short header", valid[:20], "short header"},
		{"bad magic", edit(func(b []byte) []byte { copy(b, "NOTVECTR"); return b }), "bad magic"},
		{"version", edit(func(b []byte) []byte { le.PutUint32(b[8:], 2); return b }), "format version 2"},
		{"dim 0", edit(func(b []byte) []byte { le.PutUint32(b[12:], 0); return b }), "dimension 0"},
		{"dim huge", edit(func(b []byte) []byte { le.PutUint32(b[12:], math.MaxUint32); return b }), "dimension"},
		{"dim mismatch", edit(func(b []byte) []byte { le.PutUint32(b[12:], 5); return b }), "bytes"},
		{"count larger than the file", edit(func(b []byte) []byte { le.PutUint64(b[16:], 4); return b }), "truncated"},
		{"count overflows", edit(func(b []byte) []byte { le.PutUint64(b[16:], math.MaxUint64); return b }), "truncated"},
		{"truncated rows", valid[:len(valid)-1], "truncated"},
		{"trailing garbage", append(append([]byte(nil), valid...), 0, 0, 0, 0), "trailing"},
		{"misaligned", edit(func(b []byte) []byte { le.PutUint32(b[24:], 41); return b }), "not 4-byte aligned"},
		{"rows offset past header", edit(func(b []byte) []byte { le.PutUint32(b[24:], 48); return b }), "rows offset 48"},
		{"rows offset past end", edit(func(b []byte) []byte { le.PutUint32(b[24:], 1<<20); return b }), "rows offset"},
		{"name too long", edit(func(b []byte) []byte { le.PutUint16(b[28:], MaxNameLen+1); return b }), "at most"},
		{"name cut off", edit(func(b []byte) []byte { le.PutUint16(b[28:], 200); return b }), "cut off"},
		{"name not utf8", edit(func(b []byte) []byte { b[30] = 0xff; return b }), "not UTF-8"},
		{"padding", edit(func(b []byte) []byte { b[39] = 1; return b }), "padding"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "v")
			if err := os.WriteFile(path, c.data, 0o600); err != nil {
				t.Fatal(err)
			}
			f, err := Open(path)
			if err == nil {
				f.Close()
				t.Fatal("opened")
			}
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err %v, want ErrInvalid mentioning %q", err, c.want)
			}
		})
	}
	if _, err := Open(filepath.Join(t.TempDir(), "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing file: %v", err)
	}
}

// TestHeaderLayout pins the header bytes: the format is read by other
// processes and versions, so it must not drift silently.
func TestHeaderLayout(t *testing.T) {
	b := encodeHeader(Header{Dim: 256, Embedder: "hash", EmbedderVersion: "fh1"}, 7)
	want := "RFLVEC01" + "\x01\x00\x00\x00" + "\x00\x01\x00\x00" + "\x07\x00\x00\x00\x00\x00\x00\x00" +
		"\x28\x00\x00\x00" + "\x04\x00hash" + "\x03\x00fh1" + "\x00"
	if string(b) != want {
		t.Fatalf("header\n%q\nwant\n%q", b, want)
	}
	if len(b)%8 != 0 {
		t.Fatalf("rows offset %d not 8-aligned", len(b))
	}
}

// BenchmarkWrite10kx256 is the write half of an incremental reindex's
// vector export: 10,000 rows of 256 dimensions, fsync and rename included.
func BenchmarkWrite10kx256(b *testing.B) {
	rows := randomRows(10000, 256, 1)
	path := filepath.Join(b.TempDir(), "vectors.f32")
	h := Header{Dim: 256, Embedder: "hash", EmbedderVersion: "1/256"}
	b.SetBytes(int64(len(rows)) * (8 + 4*256))
	for b.Loop() {
		if err := Write(path, h, rows); err != nil {
			b.Fatal(err)
		}
	}
}
