package webui

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The learning page lists a learning's questions, escaped and redacted
// like every field: a hand-edited file never went through the redactor.
func TestLearningPageShowsQuestions(t *testing.T) {
	t.Parallel()
	c := kb(t)
	seedKB(t, c)
	const token = "ghp_0123456789abcdefghijklmnopqrstuvwxyzAB"
	doc := "---\nid: lrn-flaky-tests-f6f6f6\ntitle: Tests share a temp dir\ntype: learning\nconfidence: high\n" +
		"questions: [\"why do my tests pass one by one but fail together?\", \"is <img src=x onerror=alert(1)> the culprit?\", \"does " + token + " expire?\"]\n" +
		"key_insight: give each test its own t.TempDir()\ncreated: 2026-11-22T11:05:00Z\n---\nParallel tests clobbered one fixture.\n"
	if err := os.WriteFile(filepath.Join(c.DocumentsDir(), "lrn-flaky-tests-f6f6f6.md"), []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	ts, _ := testServer(t, c)
	res, body := get(t, login(t, ts.URL), ts.URL+"/learning/lrn-flaky-tests-f6f6f6")
	if res.StatusCode != http.StatusOK {
		t.Fatalf("learning page: %d\n%s", res.StatusCode, body)
	}
	for _, want := range []string{"<dt>questions</dt>", "<li>why do my tests pass one by one but fail together?</li>",
		"&lt;img src=x onerror=alert(1)&gt;", "REDACTED"} {
		if !strings.Contains(body, want) {
			t.Errorf("learning page lacks %q", want)
		}
	}
	if strings.Contains(body, token) || strings.Contains(body, "<img") {
		t.Errorf("learning page shows a question unredacted or unescaped:\n%s", body)
	}
}
