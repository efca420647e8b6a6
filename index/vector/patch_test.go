package vector

import (
	"errors"
	"slices"
	"testing"
)

// Patch appends rows and zeroes removed ones in place: a reader that
// opened the file before keeps its rows and count, a reader opening it
// after sees the new count, the appended rows and the tombstones, and a
// file that is not what the caller says is left alone.
func TestPatch(t *testing.T) {
	h := Header{Dim: 8, Embedder: "hash", EmbedderVersion: "v1/8"}
	rows := randomRows(10, h.Dim, 1)
	path := writeFile(t, h, rows)
	before := openFile(t, path)
	more := randomRows(3, h.Dim, 2)
	for i := range more {
		more[i].Key = rows[len(rows)-1].Key + uint64(i) + 1
	}
	if err := Patch(path, h, len(rows), []int{2, 5}, more); err != nil {
		t.Fatal(err)
	}
	if before.Len() != len(rows) || before.Key(9) != rows[9].Key {
		t.Errorf("the earlier reader's view changed: %d rows", before.Len())
	}
	after := openFile(t, path)
	if after.Len() != len(rows)+len(more) || after.Tombstones() != 2 {
		t.Fatalf("after the patch: %d rows, %d tombstones", after.Len(), after.Tombstones())
	}
	for i := range after.Len() {
		want := append(append([]Row{}, rows...), more...)[i]
		got := after.Vector(i)
		switch {
		case after.Key(i) != want.Key:
			t.Errorf("row %d key %d, want %d", i, after.Key(i), want.Key)
		case i == 2 || i == 5:
			if slices.ContainsFunc(got, func(x float32) bool { return x != 0 }) {
				t.Errorf("row %d not zeroed", i)
			}
		case !slices.Equal(got, want.Vec):
			t.Errorf("row %d changed", i)
		}
		if j, ok := after.Find(want.Key); !ok || j != i {
			t.Errorf("Find(%d) = %d, %v", want.Key, j, ok)
		}
	}
	// The caller's count is stale, or the rows are not above the last key.
	if err := Patch(path, h, len(rows), nil, more); !errors.Is(err, ErrInvalid) {
		t.Errorf("stale count: %v", err)
	}
	if err := Patch(path, h, len(rows)+len(more), nil, more); !errors.Is(err, ErrInvalid) {
		t.Errorf("keys not above the last: %v", err)
	}
	if f := openFile(t, path); f.Len() != len(rows)+len(more) {
		t.Errorf("a refused patch changed the file: %d rows", f.Len())
	}
}
