package knowledge

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"slices"
	"testing"

	"github.com/reflectkb/reflect/internal/fsutil"
	"github.com/reflectkb/reflect/store"
)

func TestImportMergesANearRepeatOfAnotherFileButNotOfItsOwn(t *testing.T) {
	k := newDirs(t).open(t)
	agents := ruleLearning("Run go test before committing", "Run go test ./... before every commit", "shop", "AGENTS.md", 3)
	sibling := ruleLearning("Run go vet before committing", "Run go vet ./... before every commit", "shop", "AGENTS.md", 4)
	copied := ruleLearning("Run go test before committing", "Run go test ./... before every commit to main", "shop", "CLAUDE.md", 9)
	got, err := k.Import(context.Background(), []*store.Learning{agents, sibling, copied}, false, t0)
	if err != nil {
		t.Fatal(err)
	}
	if a := actions(got); !slices.Equal(a, []string{ImportAdded, ImportAdded, ImportMerged}) {
		t.Fatalf("actions %v, want added, added (the same file's own distinction), merged", a)
	}
	if got[2].DuplicateOf != agents.ID || got[2].Share < NearDuplicateShare {
		t.Errorf("CLAUDE.md's copy: %+v, want merged into %s", got[2], agents.ID)
	}
	if c := counts(t, k); c.Learnings != 2 {
		t.Errorf("%d docs, want 2", c.Learnings)
	}
}

func TestImportMergesIntoTheSameProjectsLearningWhenAnotherProjectsSaysMore(t *testing.T) {
	k := newDirs(t).open(t)
	ctx := context.Background()
	// billing's learning has every term of the rule; shop's most of them.
	billing := ruleLearning("Pin the node version in CI", "Pin the node version in CI with .nvmrc", "billing", "AGENTS.md", 1)
	shop := ruleLearning("Pin the node version in CI", "Pin node in CI via .nvmrc and engines", "shop", "AGENTS.md", 1)
	for _, l := range []*store.Learning{billing, shop} {
		if _, err := k.Put(ctx, l, nil, t0); err != nil {
			t.Fatal(err)
		}
	}
	rule := ruleLearning("Pin the node version in CI", "Pin the node version in CI with .nvmrc", "shop", "CLAUDE.md", 5)
	got, err := k.Import(ctx, []*store.Learning{rule}, false, t0)
	if err != nil {
		t.Fatal(err)
	}
	if got[0].Action != ImportMerged || got[0].DuplicateOf != shop.ID {
		t.Errorf("got %+v, want merged into shop's %s (billing's is another project's)", got[0], shop.ID)
	}
}

func TestImportThatFailsPartWayKeepsWhatItWroteWholeAndIndexed(t *testing.T) {
	d := newDirs(t)
	k := d.open(t)
	var batch []*store.Learning
	for i := range 5 {
		batch = append(batch, ruleLearning(fmt.Sprintf("Rule number %d of the batch", i), fmt.Sprintf("Insight %d: q%d", i, i), "shop", "AGENTS.md", i+1))
	}
	batch[3].Confidence = "certain" // invalid: writing it fails
	got, err := k.Import(context.Background(), batch, false, t0)
	if err == nil || len(got) != 5 {
		t.Fatalf("Import = %d results, %v; want an error", len(got), err)
	}
	for i, l := range batch {
		_, rerr := k.Store().Read(l.ID)
		if (i < 3) != (rerr == nil) {
			t.Errorf("learning %d: read error %v", i, rerr)
		}
	}
	if c := counts(t, k); c.Learnings != 3 {
		t.Errorf("%d docs indexed, want the 3 written", c.Learnings)
	}
	es, _ := os.ReadDir(d.docs)
	for _, e := range es {
		if _, tmp := fsutil.TempOf(e.Name()); tmp {
			t.Errorf("temporary file %s left in documents/", e.Name())
		}
	}
}

// The prefix filter must find what comparing with every candidate finds.
func TestNearSetFindsWhatAnExhaustiveComparisonFinds(t *testing.T) {
	rng := rand.New(rand.NewSource(31))
	vocab := make([]string, 40)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("term%c%c", 'a'+i%26, 'a'+i/26)
	}
	text := func() string {
		n := 1 + rng.Intn(9)
		s := ""
		for range n {
			s += vocab[rng.Intn(12+rng.Intn(28))] + " "
		}
		return s
	}
	var texts []string
	for range 600 {
		texts = append(texts, text())
	}
	ns := newNearSet(texts)
	var sets []map[string]bool
	found := 0
	for i, tx := range texts {
		terms := ns.termsOf(tx, "")
		mine := termSet(tx)
		want, wantShare := -1, 0.0
		for j, s := range sets {
			if sim := jaccard(mine, s); sim >= NearDuplicateShare && sim > wantShare {
				want, wantShare = j, sim
			}
		}
		dup, share := ns.best(terms, func(*nearItem) bool { return true })
		switch {
		case want < 0 && dup != nil:
			t.Fatalf("text %d: found %s (%.2f), exhaustive finds none", i, dup.id, share)
		case want >= 0 && (dup == nil || share != wantShare):
			t.Fatalf("text %d: found %v (%.2f), exhaustive finds %d (%.2f)", i, dup, share, want, wantShare)
		case want >= 0:
			found++
		}
		ns.add(nearItem{id: fmt.Sprint(i), terms: terms})
		sets = append(sets, mine)
	}
	if found < 50 {
		t.Errorf("only %d near duplicates among the texts: the test shows little", found)
	}
}
