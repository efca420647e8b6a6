package vector

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// A Writer makes the same bytes as Write for the same rows, including no
// rows at all, and a refused row leaves the file at path as it was.
func TestWriterMatchesWrite(t *testing.T) {
	dir := t.TempDir()
	h := Header{Dim: 3, Embedder: "hash", EmbedderVersion: "v2/3"}
	for _, rows := range [][]Row{
		nil,
		{{Key: 1, Vec: []float32{1, 2, 3}}},
		{{Key: 2, Vec: []float32{0.5, -1, 0}}, {Key: 7, Vec: []float32{1e-3, 4, 9}}, {Key: 9, Vec: []float32{0, 0, 1}}},
	} {
		want, got := filepath.Join(dir, "write.f32"), filepath.Join(dir, "writer.f32")
		if err := Write(want, h, rows); err != nil {
			t.Fatal(err)
		}
		w, err := Create(got, h)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			if err := w.Add(r.Key, r.Vec); err != nil {
				t.Fatal(err)
			}
		}
		if w.Len() != len(rows) {
			t.Fatalf("Len %d, want %d", w.Len(), len(rows))
		}
		if err := w.Commit(); err != nil {
			t.Fatal(err)
		}
		w.Abort() // a no-op after Commit
		a, _ := os.ReadFile(want)
		b, _ := os.ReadFile(got)
		if !bytes.Equal(a, b) {
			t.Fatalf("%d rows: Writer wrote %d bytes unlike Write's %d", len(rows), len(b), len(a))
		}
		f, err := Open(got)
		if err != nil {
			t.Fatal(err)
		}
		if f.Len() != len(rows) {
			t.Fatalf("opened %d rows, want %d", f.Len(), len(rows))
		}
		f.Close()
	}

	old, _ := os.ReadFile(filepath.Join(dir, "writer.f32"))
	for name, add := range map[string]func(w *Writer) error{
		"key not above": func(w *Writer) error {
			if err := w.Add(5, []float32{1, 2, 3}); err != nil {
				return err
			}
			return w.Add(5, []float32{1, 2, 3})
		},
		"wrong dim": func(w *Writer) error { return w.Add(1, []float32{1}) },
	} {
		w, err := Create(filepath.Join(dir, "writer.f32"), h)
		if err != nil {
			t.Fatal(err)
		}
		if err := add(w); err == nil {
			t.Fatalf("%s: accepted", name)
		}
		if err := w.Commit(); err == nil {
			t.Fatalf("%s: Commit after a refused row succeeded", name)
		}
		now, _ := os.ReadFile(filepath.Join(dir, "writer.f32"))
		if !bytes.Equal(now, old) {
			t.Fatalf("%s: the file at path changed", name)
		}
	}
	// Each file and its codes, no temp file.
	entries, _ := os.ReadDir(dir)
	if len(entries) != 4 {
		t.Fatalf("temp files left behind: %v", entries)
	}
}
