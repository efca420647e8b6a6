package vector

import (
	"context"
	"encoding/binary"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// The padding rows of the last block (zeros, whose bound is 0) are never
// offered: with every real row scoring below zero, they would otherwise
// take the top of the candidates.
func TestCodesPaddingNeverOffered(t *testing.T) {
	const dim = 64
	rng := rand.New(rand.NewSource(21))
	n := codesMinRows + 5 // 5 rows in the last block, 59 of padding
	rows := make([]Row, n)
	for i := range rows {
		v := make([]float32, dim)
		v[0] = -1
		for j := 1; j < dim; j++ {
			v[j] = float32(rng.NormFloat64() * 0.05)
		}
		rows[i] = Row{Key: uint64(i + 1), Vec: v}
	}
	f := openFile(t, writeFile(t, Header{Dim: dim}, rows))
	if p := f.CodesProblem(); p != "" {
		t.Fatalf("codes: %s", p)
	}
	q := make([]float32, dim)
	q[0] = 1
	qc, b := quantizeQuery(q)
	cand := newTopK(500)
	f.scanCodes(newSparseQuery(qc), b, 0, n, &cand)
	if len(cand.h) != 500 {
		t.Fatalf("%d candidates, want 500", len(cand.h))
	}
	for _, h := range cand.h {
		if h.Key >= uint64(n) || h.Score >= 0 {
			t.Fatalf("candidate row %d (of %d) with bound %v", h.Key, n, h.Score)
		}
	}
	for _, k := range []int{1, 10, 50} {
		want := exact(f, q, k)
		if got := f.Search(q, k, nil); !slices.Equal(got, want) {
			t.Fatalf("k=%d: got %v, want %v", k, got, want)
		}
		if got, ok := f.searchCodes(q, k); ok && !slices.Equal(got, want) {
			t.Fatalf("k=%d: searchCodes proved %v, want %v", k, got, want)
		}
	}
}

// Patches that zero rows in a partial last block and append rows across
// block boundaries keep the codes equal to the rows' (CodesMismatch reads
// every row back from its block), and searches exact.
func TestCodesPatchAcrossBlocks(t *testing.T) {
	h := Header{Dim: 48, Embedder: "hash", EmbedderVersion: "v/48"}
	rows, emb := hashRows(t, codesMinRows+250, h.Dim, 22)
	n := codesMinRows + 30 // 30 rows in the last block
	path := filepath.Join(t.TempDir(), "vectors.f32")
	if err := Write(path, h, rows[:n]); err != nil {
		t.Fatal(err)
	}
	codesOK(t, path)
	// Zero rows of the partial last block, and of a full one, only.
	if err := Patch(path, h, n, []int{n - 1, n - 10, 3}, nil); err != nil {
		t.Fatal(err)
	}
	codesOK(t, path)
	// Append 100 rows: the last block fills, one more fills, a third starts.
	if err := Patch(path, h, n, []int{n - 2}, rows[n:n+100]); err != nil {
		t.Fatal(err)
	}
	n += 100
	// One row at a time across the next boundary.
	for n%codesBlockRows != codesBlockRows-2 {
		if err := Patch(path, h, n, nil, rows[n:n+1]); err != nil {
			t.Fatal(err)
		}
		n++
	}
	for range 4 {
		if err := Patch(path, h, n, []int{n - 1}, rows[n:n+1]); err != nil {
			t.Fatal(err)
		}
		n++
		codesOK(t, path)
	}
	f := codesOK(t, path)
	if f.Len() != n {
		t.Fatalf("%d rows, want %d", f.Len(), n)
	}
	if st, err := os.Stat(CodesPath(path)); err != nil || st.Size() != codesSize(h.Dim, n) {
		t.Fatalf("codes file: %v, %v; want %d bytes", st, err, codesSize(h.Dim, n))
	}
	qs, _ := emb.Embed(context.Background(), []string{"postgres pool timeout", "docker cache", "learning 8200 kafka", "learning 8300 retry"})
	qs = append(qs, rows[n-3].Vec, rows[codesMinRows+110].Vec)
	for _, q := range qs {
		for _, k := range []int{1, 10} {
			want := exact(f, q, k)
			if got := f.Search(q, k, nil); !slices.Equal(got, want) {
				t.Fatalf("k=%d: got %v, want %v", k, got, want)
			}
		}
	}
}

// Codes of another format version, including the row-major codes of
// format 1 that older builds wrote, are stale: not used, searches scan the
// floats, and WriteCodes makes them anew.
func TestCodesOtherFormatVersion(t *testing.T) {
	h := Header{Dim: 32, Embedder: "hash", EmbedderVersion: "v/32"}
	rows, emb := hashRows(t, codesMinRows+100, h.Dim, 23)
	qs, _ := emb.Embed(context.Background(), []string{"postgres pool timeout", "widget cache"})
	for _, name := range []string{"version field", "format 1 layout"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "vectors.f32")
			if err := Write(path, h, rows); err != nil {
				t.Fatal(err)
			}
			cp := CodesPath(path)
			data, err := os.ReadFile(cp)
			if err != nil {
				t.Fatal(err)
			}
			if name == "version field" {
				binary.LittleEndian.PutUint32(data[8:], 1)
			} else { // format 1: a 48-byte header, then rows of 12 + dim bytes
				v1 := make([]byte, 48+len(rows)*(12+h.Dim))
				copy(v1, data[:48])
				binary.LittleEndian.PutUint32(v1[8:], 1)
				data = v1
			}
			st, err := os.Stat(cp)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(cp, data, 0o600); err != nil {
				t.Fatal(err)
			}
			_ = os.Chtimes(cp, st.ModTime(), st.ModTime())
			f := openFile(t, path)
			if f.CodesProblem() == "" || f.CodesMismatch() != -1 {
				t.Fatalf("codes of format 1 accepted")
			}
			for _, q := range qs {
				if got, want := f.Search(q, 10, nil), exact(f, q, 10); !slices.Equal(got, want) {
					t.Fatalf("got %v, want %v", got, want)
				}
			}
			if err := WriteCodes(path); err != nil {
				t.Fatal(err)
			}
			codesOK(t, path)
		})
	}
}
