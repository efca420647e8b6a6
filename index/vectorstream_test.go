package index

import (
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reflectkb/reflect/index/vector"
)

// oldExport is the full export as it was before it streamed: every row
// decoded into memory, then vector.Write. Kept here as the reference the
// streamed export must match byte for byte.
func oldExport(t *testing.T, ix *Index, path, stored string, emptyDim int) {
	t.Helper()
	var out []vector.Row
	dim := 0
	for _, r := range tableRows(t, ix) {
		if dim == 0 {
			dim = len(r.Vec)
		}
		if len(r.Vec) != dim {
			continue
		}
		out = append(out, r)
	}
	if dim == 0 {
		dim = emptyDim
	}
	name, version := splitEmbedderID(stored)
	if err := vector.Write(path, vector.Header{Dim: dim, Embedder: name, EmbedderVersion: version}, out); err != nil {
		t.Fatal(err)
	}
}

// The streamed export writes exactly the file the old one wrote, skips
// rows of another dimension as it did, and a failure midway (a NaN in the
// table) leaves the previous file in place with no temp file behind.
func TestVectorExportStreamed(t *testing.T) {
	ctx := context.Background()
	k := newKB(t)
	for _, id := range []string{"lrn-a", "lrn-b", "lrn-c", "lrn-d", "lrn-e"} {
		k.write(t, simple(id, "words of "+id))
	}
	ix := openWith(t, k, WithEmbedder(hashEmbedder(t, 32)))
	var stored string
	if err := ix.db.QueryRow(`SELECT value FROM meta WHERE key='embedder'`).Scan(&stored); err != nil {
		t.Fatal(err)
	}
	path := ix.vectorsPath()
	ref := filepath.Join(t.TempDir(), "old.f32")
	same := func(what string) []byte {
		t.Helper()
		if err := ix.exportVectors(ctx, vectorChanges{full: true}); err != nil {
			t.Fatalf("%s: export: %v", what, err)
		}
		oldExport(t, ix, ref, stored, 32)
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(ref)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("%s: streamed export differs from the old one (%d vs %d bytes)", what, len(got), len(want))
		}
		return got
	}
	same("as indexed")
	fileMatchesTable(t, ix, k)

	// Rows of another dimension, before the last row and after it.
	var last int64
	if err := ix.db.QueryRow(`SELECT max(n) FROM vectors`).Scan(&last); err != nil {
		t.Fatal(err)
	}
	if _, err := ix.db.Exec(`DELETE FROM vectors WHERE n=?`, last-1); err != nil {
		t.Fatal(err)
	}
	for _, n := range []int64{last - 1, last + 5} {
		if _, err := ix.db.Exec(`INSERT INTO vectors(n, v) VALUES(?, ?)`, n, encodeVector(make([]float32, 16))); err != nil {
			t.Fatal(err)
		}
	}
	before := same("rows of another dimension")
	if h, n := vectorKeys(t, k); h.Dim != 32 || n != 4 {
		t.Fatalf("file has dim %d and %d rows, want 32 and 4 (the 16-dim rows skipped)", h.Dim, n)
	}

	// A NaN after the first rows: Add refuses it midway through.
	bad := make([]float32, 32)
	bad[3] = float32(math.NaN())
	if _, err := ix.db.Exec(`INSERT INTO vectors(n, v) VALUES(?, ?)`, last+10, encodeVector(bad)); err != nil {
		t.Fatal(err)
	}
	if err := ix.exportVectors(ctx, vectorChanges{full: true}); err == nil {
		t.Fatal("export of a NaN vector succeeded")
	}
	after, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(after, before) {
		t.Fatal("a failed export changed vectors.f32")
	}
	entries, err := os.ReadDir(filepath.Dir(path))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Fatalf("failed export left %s behind", e.Name())
		}
	}

	// An empty table gives an empty file of the embedder's dimension.
	if _, err := ix.db.Exec(`DELETE FROM vectors`); err != nil {
		t.Fatal(err)
	}
	same("empty table")
}
