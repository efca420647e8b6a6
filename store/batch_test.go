package store

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// WriteAll writes what Write and WriteSidecar write one by one, byte for
// byte, in order, and returns those bytes; a learning that fails stops it
// with everything before it staged and nothing after.
func TestBatchWriteAllIsWriteOneByOne(t *testing.T) {
	var ls, one []*Learning
	for i := range 40 {
		ls = append(ls, newLearning(fmt.Sprintf("Rule %d: call handler%d through its client", i, i)))
		one = append(one, newLearning(fmt.Sprintf("Rule %d: call handler%d through its client", i, i)))
	}
	ls[25].Confidence, one[25].Confidence = "certain", "certain" // invalid
	side := func(l *Learning) *Sidecar { return &Sidecar{DocumentID: l.ID, Entities: ExtractEntities(l)} }
	prep := func(l *Learning) { l.Tags = append(l.Tags, "imported") }

	a := Open(filepath.Join(t.TempDir(), "documents"))
	b := a.Batch()
	enc, err := b.WriteAll(ls, prep, side)
	if err == nil || len(enc) != 25 {
		t.Fatalf("WriteAll = %d staged, %v; want 25 and the error of learning 25", len(enc), err)
	}
	if _, err := b.Commit(); err != nil {
		t.Fatal(err)
	}

	ref := Open(filepath.Join(t.TempDir(), "documents"))
	rb := ref.Batch()
	for i, l := range one[:25] {
		prep(l)
		data, err := rb.Write(l)
		if err != nil {
			t.Fatal(err)
		}
		sc := side(l)
		scData, err := rb.WriteSidecar(sc)
		if err != nil {
			t.Fatal(err)
		}
		if got := enc[i]; string(got.Data) != string(data) || string(got.SidecarData) != string(scData) || !reflect.DeepEqual(got.Sidecar, sc) {
			t.Errorf("learning %d: WriteAll staged other bytes than Write and WriteSidecar", i)
		}
	}
	if _, err := rb.Commit(); err != nil {
		t.Fatal(err)
	}
	if got, want := dirNames(t, a.Dir), dirNames(t, ref.Dir); !reflect.DeepEqual(got, want) || len(got) != 50 {
		t.Fatalf("documents/ holds %d files %v, want the 50 of writing one by one", len(got), got)
	}
	for _, name := range dirNames(t, a.Dir) {
		x, _ := os.ReadFile(filepath.Join(a.Dir, name))
		y, _ := os.ReadFile(filepath.Join(ref.Dir, name))
		if string(x) != string(y) {
			t.Errorf("%s differs from writing one by one", name)
		}
	}
}
