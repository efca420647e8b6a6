package drain

import (
	"os"
	"strings"
	"testing"

	"github.com/reflectkb/reflect/queue"
)

// The questions an LLM writer answers with (doc2query) reach the learning
// file, one line each and redacted, and are searched: a prompt in the words
// of someone who has the problem finds the learning.
func TestRunWritesAnLLMDraftsQuestions(t *testing.T) {
	t.Parallel()
	e := newDrainEnv(t)
	const secret = "ghp_0123456789abcdefghijklmnopqrstuvwxyzAB"
	e.setWriterEnv("ANSWER", `{"learnings":[{"title":"OAuth state cookie must be SameSite=Lax",`+
		`"key_insight":"A SameSite=Strict state cookie is dropped on the cross-site redirect back from the identity provider.",`+
		`"confidence":"high","category":"debugging","tags":["oauth"],"symptoms":["state mismatch after callback"],`+
		`"questions":["why does logging in\nbounce me back to the start page?","is the `+secret+` token wrong?"],`+
		`"entities":[],"relations":[],"cites":[],"update":"","supersedes":""}]}`)
	e.setenv("REFLECT_WRITER", "auto")
	fakeWriterPath(t, e, "codex", codexFake)
	e.enqueue(t, "../transcript/testdata/codex-rollout.jsonl", queue.HarnessCodex, "s-questions")

	rep := e.run(t, Options{})
	if rep.Writer != "codex" || len(rep.Entries) != 1 || rep.Entries[0].Outcome != OutcomeWritten || len(rep.Entries[0].Learnings) != 1 {
		t.Fatalf("writer %s, entries %+v", rep.Writer, rep.Entries)
	}
	l := e.read(t, rep.Entries[0].Learnings[0])
	if len(l.Questions) != 2 || l.Questions[0] != "why does logging in bounce me back to the start page?" ||
		strings.Contains(l.Questions[1], secret) || !strings.Contains(l.Questions[1], "REDACTED") {
		t.Fatalf("questions = %q", l.Questions)
	}
	data, err := os.ReadFile(l.Path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "\nquestions: [") || strings.Contains(string(data), secret) {
		t.Errorf("learning file:\n%s", data)
	}
	if !hasResult(e.search(t, "logging in bounces me back to the start page"), l.ID) {
		t.Error("the questions are not searched")
	}
}
