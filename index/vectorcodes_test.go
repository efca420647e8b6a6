package index

import (
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/reflectkb/reflect/index/vector"
)

// vectors.i8 missing (an index from before it existed) or made from
// another version of vectors.f32 (an older build rewrote or patched the
// file) is made anew by an incremental update, from vectors.f32 alone:
// 'reflect reindex' without --full. vectors.f32 is left as it was.
func TestUpdateMakesCodes(t *testing.T) {
	ctx := context.Background()
	k := newKB(t)
	for _, id := range []string{"lrn-a", "lrn-b", "lrn-c"} {
		k.write(t, simple(id, "words of "+id))
	}
	ix := openWith(t, k, WithEmbedder(hashEmbedder(t, 32)))
	path := filepath.Join(k.idx, "vectors.f32")
	codes := vector.CodesPath(path)
	for name, damage := range map[string]func(){
		"missing": func() {
			if err := os.Remove(codes); err != nil {
				t.Fatal(err)
			}
		},
		"stale": func() {
			if err := os.Chtimes(path, time.Now(), time.Now().Add(time.Hour)); err != nil {
				t.Fatal(err)
			}
		},
		// Codes of an older format (version 1: rows one after another)
		// are not used, and an update makes them anew.
		"older format": func() {
			data, err := os.ReadFile(codes)
			if err != nil {
				t.Fatal(err)
			}
			binary.LittleEndian.PutUint32(data[8:], vector.CodesFormatVersion-1)
			if err := os.WriteFile(codes, data, 0o600); err != nil {
				t.Fatal(err)
			}
		},
	} {
		before := statT(t, path)
		damage()
		p, err := ix.VectorCodesProblem(ctx)
		if err != nil || p == "" {
			t.Fatalf("%s: VectorCodesProblem = %q, %v", name, p, err)
		}
		got := watchExports(t)
		update(t, ix, UpdateOptions{})
		if len(*got) != 0 || !os.SameFile(before, statT(t, path)) {
			t.Errorf("%s: vectors.f32 was written again (exports %v)", name, *got)
		}
		if p, err := ix.VectorCodesProblem(ctx); p != "" || err != nil {
			t.Errorf("%s: after the update VectorCodesProblem = %q, %v", name, p, err)
		}
		fileMatchesTable(t, ix, k)
	}
}

// Codes whose rows do not match their vectors (a damaged disk) pass the
// cheap check a search makes but not doctor's, and RewriteVectorCodes
// repairs them. Searches stay right meanwhile: they rescore from the
// floats.
func TestDamagedCodesRepaired(t *testing.T) {
	ctx := context.Background()
	k := newKB(t)
	for _, id := range []string{"lrn-a", "lrn-b", "lrn-c"} {
		k.write(t, simple(id, "words of "+id))
	}
	ix := openWith(t, k, WithEmbedder(hashEmbedder(t, 32)))
	want := ids(search(t, ix, Query{Text: "words of lrn-b", Signals: Vector}))
	codes := vector.CodesPath(filepath.Join(k.idx, "vectors.f32"))
	data, err := os.ReadFile(codes)
	if err != nil {
		t.Fatal(err)
	}
	// A code of row 0: the last column of the last block (64 rows, padded)
	// is the file's last 64 bytes (vector.CodesFormatVersion 2).
	data[len(data)-64] ^= 0x55
	// Rewritten in place, as a bad disk would: same inode, size and time.
	st := statT(t, codes)
	if err := os.WriteFile(codes, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(codes, st.ModTime(), st.ModTime()); err != nil {
		t.Fatal(err)
	}
	p, err := ix.VectorCodesProblem(ctx)
	if err != nil || !strings.Contains(p, "1 row(s) do not match") {
		t.Fatalf("VectorCodesProblem = %q, %v", p, err)
	}
	if got := ids(search(t, ix, Query{Text: "words of lrn-b", Signals: Vector})); !slices.Equal(got, want) {
		t.Errorf("search over damaged codes: %v, want %v", got, want)
	}
	if err := ix.RewriteVectorCodes(ctx); err != nil {
		t.Fatal(err)
	}
	if p, err := ix.VectorCodesProblem(ctx); p != "" || err != nil {
		t.Errorf("after the repair VectorCodesProblem = %q, %v", p, err)
	}
}
