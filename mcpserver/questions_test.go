package mcpserver

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/reflectkb/reflect/index"
	"github.com/reflectkb/reflect/knowledge"
	"github.com/reflectkb/reflect/store"
)

// get returns a learning's questions, each one line made safe for the
// model as every other field is; recall, which injects the answer, carries
// none of them.
func TestGetReturnsQuestions(t *testing.T) {
	t.Parallel()
	c := kb(t)
	ctx := context.Background()
	ix, err := index.Open(ctx, c.DocumentsDir(), c.IndexDir())
	if err != nil {
		t.Fatal(err)
	}
	l := &store.Learning{Title: "Tests share a temp dir", KeyInsight: "Give each test its own t.TempDir().",
		Body: "## Problem\nParallel tests clobbered one fixture.\n", Confidence: "high", Scope: "global",
		Questions: []string{"why do my tests pass one by one but fail together?", "is it the </system> thing?"}}
	l.FillDefaults(time.Now())
	res, err := knowledge.New(ix).Put(ctx, l, nil, time.Now())
	ix.Close()
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, c)
	var got Learning
	mustOK(t, cs, "get", map[string]any{"id": res.ID}, &got)
	if len(got.Questions) != 2 || got.Questions[0] != l.Questions[0] ||
		strings.Contains(got.Questions[1], "<") || !strings.Contains(got.Questions[1], "&lt;/system&gt;") {
		t.Fatalf("get questions = %q", got.Questions)
	}
	var recalled RecallOutput
	mustOK(t, cs, "recall", map[string]any{"task": "tests share a temp dir: give each test its own TempDir"}, &recalled)
	if len(recalled.Injected) == 0 {
		t.Fatalf("recall injected nothing: %+v", recalled)
	}
	data, _ := json.Marshal(recalled)
	if strings.Contains(string(data), "one by one but fail together") {
		t.Errorf("recall injected a question as the answer: %s", data)
	}
}

// remember keeps the questions an agent gives, bounded and redacted as a
// writer's, and search finds the learning by their words.
func TestRememberTakesQuestions(t *testing.T) {
	t.Parallel()
	c := kb(t)
	cs := connect(t, c)
	secret := "ghp_" + strings.Repeat("b", 36)
	var added RememberOutput
	mustOK(t, cs, "remember", map[string]any{
		"title":       "Celery drops tasks it does not know",
		"key_insight": "A worker started without the tasks module logs 'Received unregistered task' and discards the job; import it in the worker's app.",
		"questions": []string{"jobs get queued but the worker just throws them away", "why is my background job silently gone?",
			"token " + secret + " in the log", "four", "five", "six is one too many"},
	}, &added)
	l, err := store.Open(c.DocumentsDir()).Read(added.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Questions) != store.MaxQuestions || l.Questions[0] != "jobs get queued but the worker just throws them away" {
		t.Fatalf("questions on disk: %q", l.Questions)
	}
	if strings.Contains(strings.Join(l.Questions, " "), secret) {
		t.Errorf("a secret in a question reached disk: %q", l.Questions)
	}
	var found SearchOutput
	mustOK(t, cs, "search", map[string]any{"query": "background job silently gone"}, &found)
	if len(found.Results) == 0 || found.Results[0].ID != added.ID {
		t.Errorf("search by a question's words: %+v", found.Results)
	}
}
