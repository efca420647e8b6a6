package knowledge

import (
	"context"
	"testing"

	"github.com/reflectkb/reflect/store"
)

// DuplicateOf names an existing learning that says the same under another
// id, and nothing when the learning's own id exists (Put updates it) or
// when nothing comes close.
func TestDuplicateOf(t *testing.T) {
	ctx := context.Background()
	k := newDirs(t).open(t)
	orig := cookieLearning()
	if _, err := k.Put(ctx, orig, nil, t0); err != nil {
		t.Fatal(err)
	}
	if got := k.DuplicateOf(ctx, cookieLearning()); got != "" {
		t.Errorf("DuplicateOf(the same id) = %q, want none: Put updates it", got)
	}
	reworded := cookieLearning()
	reworded.Title = "The OAuth state cookie must be SameSite=Lax"
	reworded.ID = store.NewID(reworded.Title, reworded.KeyInsight)
	if reworded.ID == orig.ID {
		t.Fatal("the reworded learning kept the id")
	}
	if got := k.DuplicateOf(ctx, reworded); got != orig.ID {
		t.Errorf("DuplicateOf(a reworded repeat) = %q, want %s", got, orig.ID)
	}
	other := &store.Learning{Title: "Vite ignores .env.local until restarted", KeyInsight: "Restart the dev server after editing env files.",
		Confidence: "high", Created: t0}
	other.ID = store.NewID(other.Title, other.KeyInsight)
	if got := k.DuplicateOf(ctx, other); got != "" {
		t.Errorf("DuplicateOf(an unrelated learning) = %q, want none", got)
	}
}
