package knowledge

import (
	"bytes"
	"context"
	"errors"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/reflectkb/reflect/index"
	"github.com/reflectkb/reflect/store"
)

// SetQuestions writes a learning's questions and nothing else: the rest of
// the document is byte for byte what it was (updated kept, no sidecar
// made), the questions are redacted, and the index finds the learning by
// a question's words at once.
func TestSetQuestions(t *testing.T) {
	ctx := context.Background()
	d := newDirs(t)
	k := d.open(t)
	l := cookieLearning()
	if _, err := k.Put(ctx, l, nil, t0); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(k.Store().SidecarPath(l.ID)); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(d.docPath(l.ID))
	if err != nil {
		t.Fatal(err)
	}
	if len(search(t, k, index.Query{Text: "bounces wombat", Limit: 5})) != 0 {
		t.Fatal("found before it had questions")
	}
	secret := "ghp_" + strings.Repeat("a1B2", 9)
	res, err := k.SetQuestions(ctx, l.ID, []string{"why does login bounce me to the wombat page?", "token " + secret + " in the log"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Redacted) == 0 || len(res.Changes) != 1 || res.Changes[0].Field != "questions" {
		t.Errorf("result %+v", res)
	}
	after, err := os.ReadFile(d.docPath(l.ID))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(after, []byte(secret)) {
		t.Fatalf("the secret reached disk:\n%s", after)
	}
	questionsLine := regexp.MustCompile(`(?m)^questions: .*\n`)
	if got := questionsLine.ReplaceAll(after, nil); !bytes.Equal(got, before) {
		t.Errorf("other fields changed:\n--- before\n%s--- after\n%s", before, after)
	}
	got, err := k.Store().Read(l.ID)
	if err != nil || len(got.Questions) != 2 || !got.Updated.Equal(t0) {
		t.Fatalf("read back %+v, %v", got, err)
	}
	if _, err := os.Stat(k.Store().SidecarPath(l.ID)); !os.IsNotExist(err) {
		t.Errorf("a sidecar was written: %v", err)
	}
	found := search(t, k, index.Query{Text: "bounces wombat", Limit: 5})
	if len(found) != 1 || found[0].ID != l.ID {
		t.Errorf("search by a question's words: %+v", found)
	}
	if _, err := k.SetQuestions(ctx, "lrn-gone-000000", []string{"q"}); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("questions for a learning that does not exist: %v, want ErrNotFound", err)
	}
}
