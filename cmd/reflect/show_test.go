package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reflectkb/reflect/store/storetest"
)

func TestShowRefusesWhatIsNotARegularFile(t *testing.T) {
	t.Parallel()
	kb := tempKB(t)
	h := storetest.Place(t, kb.docs, "0000")
	for id, why := range map[string]string{h.Link: "symbolic link", h.DevZero: "symbolic link", h.FIFO: "FIFO", h.Oversize: "more than"} {
		for _, args := range [][]string{{"show", id}, {"show", "--json", id}} {
			storetest.Promptly(t, strings.Join(args, " "), func() {
				code, stdout, stderr := kb.run(t, "", false, args...)
				if code == 0 || strings.Contains(stdout+stderr, storetest.Secret) {
					t.Errorf("%v: exit %d, stdout %.300q, stderr %.300q; want a refusal that shows nothing of the file", args, code, stdout, stderr)
				}
				if !strings.Contains(stderr, why) {
					t.Errorf("%v: stderr %q should say why (%s)", args, stderr, why)
				}
			})
		}
	}
}

// A hand-edited or synced learning never went through the redactor on
// write: show redacts what it prints, as text and as JSON.
func TestShowRedactsAHandEditedLearning(t *testing.T) {
	t.Parallel()
	kb := tempKB(t)
	if err := os.MkdirAll(kb.docs, 0o755); err != nil {
		t.Fatal(err)
	}
	const token = "ghp_0123456789abcdefghijklmnopqrstuvwxyzAB"
	doc := "---\nid: lrn-deploy-token-d4d4d4\ntitle: Deploy token\ntype: learning\nconfidence: high\nkey_insight: use " + token +
		"\ncreated: 2026-11-22T11:05:00Z\n---\nexport GITHUB_TOKEN=" + token + "\n"
	if err := os.WriteFile(filepath.Join(kb.docs, "lrn-deploy-token-d4d4d4.md"), []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"show", "lrn-deploy-token-d4d4d4"}, {"show", "--json", "lrn-deploy-token-d4d4d4"}} {
		code, stdout, stderr := kb.run(t, "", false, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		if strings.Contains(stdout, token) || !strings.Contains(stdout, "REDACTED") || !strings.Contains(stdout, "lrn-deploy-token-d4d4d4") {
			t.Errorf("%v printed %q; want the token redacted and the id kept", args, stdout)
		}
	}
}

// show prints a learning's questions, as text (the file's frontmatter) and
// as JSON, redacted either way.
func TestShowPrintsQuestions(t *testing.T) {
	t.Parallel()
	kb := tempKB(t)
	if err := os.MkdirAll(kb.docs, 0o755); err != nil {
		t.Fatal(err)
	}
	const token = "ghp_0123456789abcdefghijklmnopqrstuvwxyzAB"
	doc := "---\nid: lrn-flaky-tests-f7f7f7\ntitle: Tests share a temp dir\ntype: learning\nconfidence: high\n" +
		"questions: [\"why do my tests pass one by one but fail together?\", \"does " + token + " expire?\"]\n" +
		"key_insight: give each test its own t.TempDir()\ncreated: 2026-11-22T11:05:00Z\n---\nParallel tests clobbered one fixture.\n"
	if err := os.WriteFile(filepath.Join(kb.docs, "lrn-flaky-tests-f7f7f7.md"), []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := kb.run(t, "", false, "show", "f7f7f7")
	if code != 0 || !strings.Contains(stdout, "questions: [") || !strings.Contains(stdout, "why do my tests pass one by one but fail together?") ||
		strings.Contains(stdout, token) {
		t.Errorf("show: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	code, stdout, stderr = kb.run(t, "", false, "show", "--json", "f7f7f7")
	if code != 0 {
		t.Fatalf("show --json: exit %d: %s", code, stderr)
	}
	var v struct {
		Learning struct {
			Questions []string `json:"questions"`
		} `json:"learning"`
	}
	if err := json.Unmarshal([]byte(stdout), &v); err != nil {
		t.Fatal(err)
	}
	if q := v.Learning.Questions; len(q) != 2 || q[0] != "why do my tests pass one by one but fail together?" ||
		strings.Contains(q[1], token) || !strings.Contains(q[1], "REDACTED") {
		t.Errorf("show --json questions = %q", q)
	}
}
