package index

import (
	"context"
	"testing"
)

// A learning's questions (doc2query) are searched with its tags and
// symptoms: a prompt in the words of someone who has the problem finds a
// learning that never uses them.
func TestQuestionsAreSearched(t *testing.T) {
	k := newKB(t)
	k.write(t, doc{ID: "lrn-busy-timeout", Title: "SQLite database is locked with several writers",
		KeyInsight: "Open with WAL and busy_timeout=5000.",
		Extra:      "questions: [\"why do my background jobs randomly crash when they save at once?\"]\n",
		Body:       "## Problem\nConcurrent writers fail.\n"})
	k.write(t, doc{ID: "lrn-other", Title: "Widget rendering quirk", Body: "The widget flickers.\n"})
	ix := k.open(t)
	res, err := ix.Search(context.Background(), Query{Text: "background jobs crash when saving"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) == 0 || res[0].ID != "lrn-busy-timeout" || res[0].Why.BM25 <= 0 {
		t.Fatalf("a question's words should find the learning lexically: %+v", res)
	}
}
