package vector

import (
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// FuzzOpen feeds arbitrary bytes to Open: it must return a File or an
// error wrapping ErrInvalid, never panic or fault, and a File it returns
// must be fully readable and searchable.
func FuzzOpen(f *testing.F) {
	dir := f.TempDir()
	for i, rows := range [][]Row{nil, randomRows(1, 1, 1), randomRows(3, 4, 2), randomRows(2, 9, 3)} {
		dim := 4
		if len(rows) > 0 {
			dim = len(rows[0].Vec)
		}
		path := filepath.Join(dir, "seed"+string(rune('a'+i)))
		if err := Write(path, Header{Dim: dim, Embedder: "hash", EmbedderVersion: "fh1"}, rows); err != nil {
			f.Fatal(err)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
		f.Add(data[:len(data)/2])
		bad := append([]byte(nil), data...)
		binary.LittleEndian.PutUint64(bad[16:], 1<<62)
		f.Add(bad)
	}
	f.Add([]byte{})
	f.Add([]byte(Magic))

	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "v")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		vf, err := Open(path)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("error does not wrap ErrInvalid: %v", err)
			}
			return
		}
		defer vf.Close()
		for i := range vf.Len() {
			_ = vf.Key(i)
			_ = vf.Vector(i)
		}
		q := make([]float32, vf.Dim())
		q[0] = 1
		// A fuzzed file may hold NaN and infinities; Search must cope.
		if hits := vf.Search(q, 3, nil); len(hits) > min(3, vf.Len()) {
			t.Fatalf("%d hits from %d rows", len(hits), vf.Len())
		}
	})
}
