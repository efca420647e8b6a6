package index

import (
	"bytes"
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/reflectkb/reflect/index/embed"
	"github.com/reflectkb/reflect/index/vector"
)

// fileRows reads every row of k's vectors.f32.
func fileRows(t *testing.T, k kb) []vector.Row {
	t.Helper()
	f, err := vector.Open(filepath.Join(k.idx, "vectors.f32"))
	if err != nil {
		t.Fatalf("vectors.f32: %v", err)
	}
	defer f.Close()
	out := make([]vector.Row, f.Len())
	for i := range out {
		out[i] = vector.Row{Key: f.Key(i), Vec: slices.Clone(f.Vector(i))}
	}
	return out
}

func sameRows(a, b []vector.Row) bool {
	return slices.EqualFunc(a, b, func(x, y vector.Row) bool { return x.Key == y.Key && slices.Equal(x.Vec, y.Vec) })
}

// blobCounts returns the vectors table's rows and how many hold floats.
func blobCounts(t *testing.T, db interface {
	QueryRow(string, ...any) *sql.Row
}) (rows, floats int) {
	t.Helper()
	if err := db.QueryRow(`SELECT count(*), count(CASE WHEN length(v) > 0 THEN 1 END) FROM vectors`).Scan(&rows, &floats); err != nil {
		t.Fatal(err)
	}
	return rows, floats
}

// The hash embedder's vectors are kept in vectors.f32 alone: the table
// has a row per learning and no floats, and the file holds what the
// embedder makes of each learning's markdown. A model's vectors stay in
// the table, as making them again would call the model.
func TestHashVectorsOnlyInFile(t *testing.T) {
	ctx := context.Background()
	k := newKB(t)
	for _, id := range []string{"lrn-a", "lrn-b", "lrn-c"} {
		k.write(t, simple(id, "redis sentinel words of "+id))
	}
	e := hashEmbedder(t, 32)
	ix := openWith(t, k, WithEmbedder(e))
	if rows, floats := blobCounts(t, ix.db); rows != 3 || floats != 0 {
		t.Fatalf("vectors table: %d rows, %d with floats; want 3 and 0", rows, floats)
	}
	rows := fileRows(t, k)
	if len(rows) != 3 {
		t.Fatalf("vectors.f32 has %d rows, want 3", len(rows))
	}
	for _, r := range rows {
		var path string
		if err := ix.db.QueryRow(`SELECT path FROM docs WHERE n = ?`, int64(r.Key)).Scan(&path); err != nil {
			t.Fatal(err)
		}
		f, err := readFields(path)
		if err != nil {
			t.Fatal(err)
		}
		want, err := e.Embed(ctx, []string{embedText(f[0], f[1], f[2], f[3])})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(r.Vec, want[0]) {
			t.Errorf("row %d of vectors.f32 is not the hash vector of %s", r.Key, path)
		}
	}
	if p, err := ix.VectorFileProblem(ctx); err != nil || p != "" {
		t.Errorf("VectorFileProblem = %q, %v; want none", p, err)
	}

	m := newKB(t)
	m.write(t, simple("lrn-pets", "a cat named Bailey"))
	mx := openWith(t, m, WithEmbedder(conceptEmbedder{name: embed.ProviderOllama}))
	if rows, floats := blobCounts(t, mx.db); rows != 1 || floats != 1 {
		t.Errorf("a model's vectors table: %d rows, %d with floats; want 1 and 1", rows, floats)
	}
}

// What a crash can do to vectors.f32 when the table keeps no floats
// (hash embedder): the file lost, an export lost after a targeted update
// committed (the file one learning behind), or its floats damaged. The
// next update makes the file again from the documents, row for row what
// it was.
func TestHashVectorsRemadeAfterCrash(t *testing.T) {
	ctx := context.Background()
	k := newKB(t)
	for _, id := range []string{"lrn-a", "lrn-b", "lrn-c", "lrn-d"} {
		k.write(t, simple(id, "postgres pool words of "+id))
	}
	ix := openWith(t, k, WithEmbedder(hashEmbedder(t, 32)))
	path := filepath.Join(k.idx, "vectors.f32")
	before := fileRows(t, k)
	remade := func(what string, want []vector.Row) {
		t.Helper()
		if p, err := ix.VectorFileProblem(ctx); err != nil || p == "" {
			t.Fatalf("%s: VectorFileProblem = %q, %v; want the problem reported", what, p, err)
		}
		update(t, ix, UpdateOptions{})
		if p, err := ix.VectorFileProblem(ctx); err != nil || p != "" {
			t.Errorf("%s: after an update VectorFileProblem = %q, %v", what, p, err)
		}
		if got := fileRows(t, k); !sameRows(got, want) {
			t.Errorf("%s: vectors.f32 made again differs from the one indexed (%d rows, want %d)", what, len(got), len(want))
		}
		fileMatchesTable(t, ix, k)
	}

	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	remade("file removed", before)

	old, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := put(ctx, ix, learningOf("Pool sizing", "postgres pool sizing words"), nil, t0); err != nil {
		t.Fatal(err)
	}
	after := fileRows(t, k)
	if len(after) != len(before)+1 {
		t.Fatalf("after a put vectors.f32 has %d rows, want %d", len(after), len(before)+1)
	}
	ix.closeVectors()
	writeRaw(t, path, string(old))
	remade("export lost", after)

	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	off := bytes.Index(data, encodeVector(after[1].Vec))
	if off < 0 {
		t.Fatal("row 1's floats not found in vectors.f32")
	}
	copy(data[off:], []byte{0, 0, 0xc0, 0x7f}) // a NaN in row 1
	ix.closeVectors()
	writeRaw(t, path, string(data))
	remade("floats damaged", after)
}

// textCounter is an embedder counting the texts it embeds.
type textCounter struct {
	embed.Embedder
	texts int
}

func (e *textCounter) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	e.texts += len(texts)
	return e.Embedder.Embed(ctx, texts)
}

// A full reindex with the hash embedder embeds each learning once: the
// vectors go to the new vectors.f32 as they are made, which then holds
// the table's rows, and no temp file is left behind.
func TestFullReindexEmbedsOnce(t *testing.T) {
	k := newKB(t)
	for _, id := range []string{"lrn-a", "lrn-b", "lrn-c", "lrn-d", "lrn-e"} {
		k.write(t, simple(id, "kafka consumer words of "+id))
	}
	e := &textCounter{Embedder: hashEmbedder(t, 32)}
	ix := openWith(t, k, WithEmbedder(e))
	e.texts = 0
	update(t, ix, UpdateOptions{Full: true})
	if e.texts != 5 {
		t.Errorf("a full reindex of 5 learnings embedded %d texts, want 5", e.texts)
	}
	fileMatchesTable(t, ix, k)
	entries, err := os.ReadDir(k.idx)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("a full reindex left %s behind", e.Name())
		}
	}
}
