package bench

import (
	"github.com/reflectkb/reflect/store"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// readKB returns the documents of a generated KB by file name.
func readKB(t *testing.T, dir string) map[string]string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = string(data)
	}
	return out
}

// share is the fraction of docs holding word as a whole word.
func share(docs map[string]string, word string) float64 {
	re := regexp.MustCompile(`(?i)\b` + word + `\b`)
	n := 0
	for _, d := range docs {
		if re.MatchString(d) {
			n++
		}
	}
	return float64(n) / float64(len(docs))
}

// Without everyday words the padding is Generate's, byte for byte; with
// them, everyday words such as "order" and "database" are in some of the
// learnings, as in real notes, where the plain padding has none.
func TestGenerateEveryday(t *testing.T) {
	plain, same, everyday := t.TempDir(), t.TempDir(), t.TempDir()
	if err := Generate(plain, 300, 1); err != nil {
		t.Fatal(err)
	}
	if err := GenerateEveryday(same, 300, 1, nil); err != nil {
		t.Fatal(err)
	}
	words := EverydayWords()
	if len(words) < 1000 || words[0] != "the" {
		t.Fatalf("EverydayWords: %d words starting %v", len(words), words[:min(3, len(words))])
	}
	if err := GenerateEveryday(everyday, 300, 1, words); err != nil {
		t.Fatal(err)
	}
	a, b, c := readKB(t, plain), readKB(t, same), readKB(t, everyday)
	if len(a) != 300 || len(b) != 300 || len(c) != 300 {
		t.Fatalf("generated %d, %d, %d learnings, want 300 each", len(a), len(b), len(c))
	}
	for name, d := range a {
		if b[name] != d {
			t.Fatalf("%s differs between Generate and GenerateEveryday without words", name)
		}
	}
	for _, w := range []string{"order", "database", "loop"} {
		if s := share(a, w); s != 0 {
			t.Errorf("plain padding: %q in %.2f of the learnings, want none (the test's premise)", w, s)
		}
		if s := share(c, w); s == 0 || s > 0.5 {
			t.Errorf("everyday padding: %q in %.3f of the learnings, want some and not most", w, s)
		}
	}
	for name, d := range c {
		if !strings.HasPrefix(d, "---\n") {
			t.Fatalf("%s: not a learning document", name)
		}
	}
}

// With question words every padding learning gets three or four questions
// drawing on them, and is otherwise the learning it would have been.
func TestGeneratePaddingQuestions(t *testing.T) {
	plain, asked := t.TempDir(), t.TempDir()
	if err := Generate(plain, 200, 1); err != nil {
		t.Fatal(err)
	}
	words := []string{"why", "my", "keeps", "locally", "suddenly"}
	if err := GeneratePadding(asked, 200, 1, Padding{QuestionWords: words}); err != nil {
		t.Fatal(err)
	}
	a, b := readKB(t, plain), readKB(t, asked)
	if len(b) != 200 {
		t.Fatalf("generated %d learnings, want 200", len(b))
	}
	why := 0
	for name, d := range b {
		l, err := store.Parse([]byte(d))
		if err != nil {
			t.Fatal(err)
		}
		if n := len(l.Questions); n < 3 || n > 4 {
			t.Errorf("%s: %d questions, want 3 or 4", name, n)
		}
		if strings.Contains(strings.Join(l.Questions, " "), "why") {
			why++
		}
		p, err := store.Parse([]byte(a[name]))
		if err != nil {
			t.Fatalf("%s: not in the plain padding: %v", name, err)
		}
		l.Questions = nil
		if got, _ := l.Marshal(); string(got) != a[name] {
			t.Errorf("%s: questions changed the rest of the learning (title %q, plain %q)", name, l.Title, p.Title)
		}
	}
	if why < 100 {
		t.Errorf("the commonest question word is in %d of 200 learnings' questions, want most", why)
	}
}

// A set's question words are those of at least three learnings' questions,
// most frequent first.
func TestQuestionWords(t *testing.T) {
	s := &RecallSet{Questions: map[string][]string{
		"a": {"Why does it hang?", "why again"},
		"b": {"why is the worker stuck"},
		"c": {"why won't it start", "the worker again"},
		"d": {"worker"},
	}}
	got := strings.Join(s.QuestionWords(), " ")
	if got != "why worker" {
		t.Errorf("QuestionWords = %q, want %q (again, the, it: in two learnings only)", got, "why worker")
	}
	if (&RecallSet{}).QuestionWords() != nil {
		t.Error("a set without questions has question words")
	}
}
