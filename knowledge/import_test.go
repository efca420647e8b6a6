package knowledge

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"testing"

	"github.com/reflectkb/reflect/store"
)

func ruleLearning(title, insight, project, file string, line int) *store.Learning {
	l := &store.Learning{
		Title: title, KeyInsight: insight, Type: "rule", Confidence: "high",
		Scope: "project", Project: project, Created: t0, Body: insight + "\n",
		Source: &store.Source{File: file, Line: line},
	}
	l.ID = store.NewID(title, insight+"\n"+project)
	return l
}

func actions(ims []Imported) []string {
	var out []string
	for _, im := range ims {
		out = append(out, im.Action)
	}
	return out
}

func TestImportTwiceAddsNothing(t *testing.T) {
	d := newDirs(t)
	k := d.open(t)
	ctx := context.Background()
	batch := func() []*store.Learning {
		return []*store.Learning{
			ruleLearning("Run tests with pnpm test", "Run tests: pnpm test", "shop", "AGENTS.md", 7),
			ruleLearning("Never rename a shipped migration", "Migrations run in filename order", "shop", "CLAUDE.md", 17),
		}
	}
	got, err := k.Import(ctx, batch(), false, t0)
	if err != nil {
		t.Fatal(err)
	}
	if a := actions(got); a[0] != ImportAdded || a[1] != ImportAdded {
		t.Fatalf("first import: %v", a)
	}
	if c := counts(t, k); c.Learnings != 2 {
		t.Fatalf("%d docs indexed, want 2", c.Learnings)
	}
	got, err = k.Import(ctx, batch(), false, t0)
	if err != nil {
		t.Fatal(err)
	}
	if a := actions(got); a[0] != ImportUnchanged || a[1] != ImportUnchanged {
		t.Errorf("second import: %v, want unchanged", a)
	}
	// The rule moved down its file: the learning follows, no second one.
	moved := batch()
	moved[0].Source.Line = 9
	got, _ = k.Import(ctx, moved, false, t0)
	if got[0].Action != ImportUpdated {
		t.Errorf("moved rule: %s, want updated", got[0].Action)
	}
	if l, err := k.Store().Read(moved[0].ID); err != nil || l.Source.Line != 9 {
		t.Errorf("moved rule reads %+v, %v", l, err)
	}
	if c := counts(t, k); c.Learnings != 2 {
		t.Errorf("%d docs after re-imports, want 2", c.Learnings)
	}
}

func TestImportDryRunWritesNothing(t *testing.T) {
	d := newDirs(t)
	k := d.open(t)
	got, err := k.Import(context.Background(), []*store.Learning{ruleLearning("Run tests with pnpm test", "Run tests: pnpm test", "shop", "AGENTS.md", 7)}, true, t0)
	if err != nil || len(got) != 1 || got[0].Action != ImportAdded {
		t.Fatalf("dry run: %+v, %v", got, err)
	}
	if c := counts(t, k); c.Learnings != 0 {
		t.Errorf("dry run indexed %d docs", c.Learnings)
	}
	if _, err := k.Store().Read(got[0].ID); err == nil {
		t.Error("dry run wrote the document")
	}
}

func TestImportMergesNearDuplicates(t *testing.T) {
	d := newDirs(t)
	k := d.open(t)
	ctx := context.Background()
	existing := cookieLearning()
	if _, err := k.Put(ctx, existing, nil, t0); err != nil {
		t.Fatal(err)
	}
	same := ruleLearning(existing.Title, existing.KeyInsight+" Always.", "auth-service", "AGENTS.md", 3)
	other := ruleLearning(existing.Title, existing.KeyInsight+" Always.", "billing", "AGENTS.md", 3)
	twice := ruleLearning("Keep components small", "Split presentational parts out", "auth-service", "CLAUDE.md", 4)
	twiceAgain := ruleLearning("Keep components small", "Split presentational parts out", "auth-service", "CLAUDE.md", 4)
	got, err := k.Import(ctx, []*store.Learning{same, other, twice, twiceAgain}, false, t0)
	if err != nil {
		t.Fatal(err)
	}
	if got[0].Action != ImportMerged || got[0].DuplicateOf != existing.ID {
		t.Errorf("same project's near-duplicate: %+v", got[0])
	}
	if got[1].Action != ImportAdded {
		t.Errorf("another project's rule: %+v, want added", got[1])
	}
	if got[2].Action != ImportAdded || got[3].Action != ImportMerged || got[3].DuplicateOf != twice.ID {
		t.Errorf("a rule repeated in the batch: %+v %+v", got[2], got[3])
	}
	if c := counts(t, k); c.Learnings != 3 {
		t.Errorf("%d docs, want 3 (existing, other, twice)", c.Learnings)
	}
}

// An import writes no sidecar for a new rule; its entities are the ones
// the sidecar held (ReadSidecarOf, the index). A sidecar an earlier import
// wrote is rewritten when its rule is, so none is left stale; an update
// through Update keeps the entities of the rule as it was, as with a file.
func TestImportWritesNoSidecarButKeepsTheEntities(t *testing.T) {
	d := newDirs(t)
	k := d.open(t)
	ctx := context.Background()
	rule := func(line int) *store.Learning {
		return ruleLearning("Run the tests", "Run `pnpm test` before pushing ERR_PUSH_REJECTED", "shop", "AGENTS.md", line)
	}
	if _, err := k.Import(ctx, []*store.Learning{rule(7)}, false, t0); err != nil {
		t.Fatal(err)
	}
	id := rule(7).ID
	if _, err := os.Stat(k.Store().SidecarPath(id)); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("a sidecar was written: %v", err)
	}
	l, err := k.Store().Read(id)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := k.Store().ReadSidecarOf(l)
	if err != nil || len(sc.Entities) != 2 || sc.Entities[0].Name != "ERR_PUSH_REJECTED" || sc.Entities[1].Name != "pnpm test" {
		t.Fatalf("entities of the imported rule: %+v, %v", sc, err)
	}
	// A sidecar of an earlier import, stale: the moved rule rewrites it.
	stale := &store.Sidecar{DocumentID: id, Entities: []store.Entity{{Name: "stale", Type: "tool"}}}
	if err := k.Store().WriteSidecar(stale); err != nil {
		t.Fatal(err)
	}
	if got, err := k.Import(ctx, []*store.Learning{rule(9)}, false, t0); err != nil || got[0].Action != ImportUpdated {
		t.Fatalf("moved rule: %+v, %v", got, err)
	}
	if got, err := k.Store().ReadSidecar(id); err != nil || len(got.Entities) != 2 || got.Entities[0].Name != "ERR_PUSH_REJECTED" {
		t.Fatalf("sidecar after the moved rule: %+v, %v", got, err)
	}
	// Without a file, Update keeps the entities of the text it replaces.
	if err := os.Remove(k.Store().SidecarPath(id)); err != nil {
		t.Fatal(err)
	}
	if _, err := k.Update(ctx, id, &store.Learning{Body: "Run the whole suite.\n"}, nil, t0); err != nil {
		t.Fatal(err)
	}
	if got, err := k.Store().ReadSidecar(id); err != nil || len(got.Entities) != 2 || got.Entities[1].Name != "pnpm test" {
		t.Fatalf("sidecar after Update: %+v, %v", got, err)
	}
}
