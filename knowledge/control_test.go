package knowledge

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/reflectkb/reflect/index"
	"github.com/reflectkb/reflect/store"
)

func heldOf(t *testing.T, k *Base, text, id string) (index.Result, bool) {
	t.Helper()
	for _, r := range search(t, k, index.Query{Text: text, Limit: 10}) {
		if r.ID == id {
			return r, true
		}
	}
	return index.Result{}, false
}

func TestMarkCountsAndHolds(t *testing.T) {
	ctx := context.Background()
	d := newDirs(t)
	k := d.open(t)
	l := cookieLearning()
	if _, err := k.Put(ctx, l, nil, t0); err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"helpful", "helpful", "wrong"} {
		if _, err := k.Mark(ctx, l.ID, m); err != nil {
			t.Fatalf("Mark %s: %v", m, err)
		}
	}
	got, err := k.Store().Read(l.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Feedback == nil || *got.Feedback != (store.Feedback{Helpful: 2, Wrong: 1}) || got.Held() != "wrong" {
		t.Errorf("feedback %+v, held %q", got.Feedback, got.Held())
	}
	if !got.Updated.Equal(t0) {
		t.Errorf("a mark moved updated to %v", got.Updated)
	}
	r, ok := heldOf(t, k, "SameSite state cookie", l.ID)
	if !ok || r.Held != "wrong" || r.Feedback != "helpful 2, wrong 1" {
		t.Errorf("search: found %v, %+v", ok, r)
	}
	if _, err := k.Mark(ctx, l.ID, "clear"); err != nil {
		t.Fatal(err)
	}
	if r, _ := heldOf(t, k, "SameSite state cookie", l.ID); r.Held != "" || r.Feedback != "" {
		t.Errorf("after clear: %+v", r)
	}
	data, _ := os.ReadFile(d.docPath(l.ID))
	if strings.Contains(string(data), "feedback") {
		t.Errorf("a cleared learning keeps a feedback field:\n%s", data)
	}
	if _, err := k.Mark(ctx, l.ID, "great"); !errors.Is(err, ErrUnknownMark) {
		t.Errorf("Mark great = %v", err)
	}
	if _, err := k.Mark(ctx, "lrn-nope", "wrong"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Mark of an unknown id = %v", err)
	}
}

func TestPutSupersedesLinksBothWays(t *testing.T) {
	ctx := context.Background()
	d := newDirs(t)
	k := d.open(t)
	old := cookieLearning()
	if _, err := k.Put(ctx, old, nil, t0); err != nil {
		t.Fatal(err)
	}
	nl := cookieLearning()
	nl.Title = "OAuth state cookie: use SameSite=Lax, or None with Secure"
	nl.ID = store.NewID(nl.Title, nl.KeyInsight)
	nl.Supersedes = old.ID
	res, err := k.Put(ctx, nl, nil, t0.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if res.Supersedes != old.ID {
		t.Errorf("result %+v", res)
	}
	got, _ := k.Store().Read(old.ID)
	if got.SupersededBy != nl.ID {
		t.Errorf("superseded_by = %q", got.SupersededBy)
	}
	if r, ok := heldOf(t, k, "SameSite state cookie", old.ID); !ok || r.Held != "superseded" {
		t.Errorf("the old learning in search: %v %+v", ok, r)
	}
	// A writer naming a learning that does not exist links nothing.
	other := cookieLearning()
	other.Title = "Another cookie lesson entirely"
	other.ID = store.NewID(other.Title, other.KeyInsight)
	other.Supersedes = "lrn-no-such-learning"
	if res, err := k.Put(ctx, other, nil, t0); err != nil || res.Supersedes != "" {
		t.Fatalf("Put = %+v, %v", res, err)
	}
	if got, _ := k.Store().Read(other.ID); got.Supersedes != "" {
		t.Errorf("a dangling supersedes was kept: %q", got.Supersedes)
	}
}

func TestEditValidatesAndKeepsTheFile(t *testing.T) {
	ctx := context.Background()
	d := newDirs(t)
	k := d.open(t)
	l := cookieLearning()
	if _, err := k.Put(ctx, l, nil, t0); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(d.docPath(l.ID))
	for name, doc := range map[string]string{
		"broken frontmatter": strings.Replace(string(before), "confidence: high", "confidence: [", 1),
		"bad confidence":     strings.Replace(string(before), "confidence: high", "confidence: sure", 1),
		"id changed":         strings.Replace(string(before), "id: "+l.ID, "id: lrn-other", 1),
	} {
		if _, err := k.Edit(ctx, l.ID, []byte(doc), t0.Add(time.Hour)); err == nil {
			t.Errorf("%s: Edit accepted it", name)
		}
		if after, _ := os.ReadFile(d.docPath(l.ID)); string(after) != string(before) {
			t.Errorf("%s: the file changed:\n%s", name, after)
		}
	}
	edited := strings.Replace(string(before), "tags: [oauth, cookies]", "tags: [oauth]", 1)
	edited = strings.Replace(edited, "was lost", "was lost after the redirect; token ghp_"+strings.Repeat("a", 36), 1)
	res, err := k.Edit(ctx, l.ID, []byte(edited), t0.Add(time.Hour))
	if err != nil {
		t.Fatalf("Edit: %v", err)
	}
	got, _ := k.Store().Read(l.ID)
	if len(got.Tags) != 1 || !strings.Contains(got.Body, "after the redirect") || strings.Contains(got.Body, "ghp_") {
		t.Errorf("edited learning: tags %v body %q", got.Tags, got.Body)
	}
	if len(res.Redacted) == 0 || !got.Updated.Equal(t0.Add(time.Hour)) {
		t.Errorf("result %+v, updated %v", res, got.Updated)
	}
	if r := search(t, k, index.Query{Text: "after the redirect", Limit: 3}); len(r) == 0 || r[0].ID != l.ID {
		t.Errorf("the edit is not indexed: %v", ids(r))
	}
	if _, err := k.Edit(ctx, "lrn-nope", []byte(edited), t0); err == nil {
		t.Error("Edit of an unknown id succeeded")
	}
}

func TestUpdateRewritesTheExistingLearning(t *testing.T) {
	ctx := context.Background()
	d := newDirs(t)
	k := d.open(t)
	l := cookieLearning()
	if _, err := k.Put(ctx, l, nil, t0); err != nil {
		t.Fatal(err)
	}
	patch := &store.Learning{KeyInsight: "Strict drops the state cookie on the IdP's cross-site redirect; use Lax.", Tags: []string{"idp"}}
	res, err := k.Update(ctx, l.ID, patch, nil, t0.Add(time.Hour))
	if err != nil || res.Action != "updated" {
		t.Fatalf("Update = %+v, %v", res, err)
	}
	got, _ := k.Store().Read(l.ID)
	if got.KeyInsight != patch.KeyInsight || got.Title != l.Title || len(got.Tags) != 3 || got.Body != l.Body {
		t.Errorf("updated learning %+v", got)
	}
	if n := counts(t, k).Learnings; n != 1 {
		t.Errorf("%d learnings, want 1", n)
	}
	if _, err := k.Update(ctx, "lrn-nope", patch, nil, t0); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Update of an unknown id = %v", err)
	}
}

// Update replaces a learning's questions as it does its symptoms: a patch
// that names some sets them, one that names none keeps the old ones.
func TestUpdateReplacesQuestions(t *testing.T) {
	ctx := context.Background()
	d := newDirs(t)
	k := d.open(t)
	l := cookieLearning()
	l.Questions = []string{"why does login bounce me back?"}
	if _, err := k.Put(ctx, l, nil, t0); err != nil {
		t.Fatal(err)
	}
	if _, err := k.Update(ctx, l.ID, &store.Learning{KeyInsight: "Use Lax."}, nil, t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if got, _ := k.Store().Read(l.ID); strings.Join(got.Questions, "|") != "why does login bounce me back?" {
		t.Errorf("a patch without questions dropped them: %q", got.Questions)
	}
	patch := &store.Learning{Questions: []string{"why am I kicked out after signing in?", "is it the samesite thing?"}}
	res, err := k.Update(ctx, l.ID, patch, nil, t0.Add(2*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := k.Store().Read(l.ID); strings.Join(got.Questions, "|") != "why am I kicked out after signing in?|is it the samesite thing?" {
		t.Errorf("questions = %q, want the patch's", got.Questions)
	}
	if _, ok := heldOf(t, k, "kicked out after signing in", l.ID); !ok || res.Action != "updated" {
		t.Errorf("the new questions are not searched (update %+v)", res)
	}
}
