package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// keyDoc is a file outside documents/ that parses as a learning: what a
// teammate's push links documents/<id>.md to (a private key would be read
// the same way by anything that follows the link).
func keyDoc(id string) string {
	return "---\nid: " + id + "\ntitle: Deploy notes\ntype: learning\nconfidence: high\nkey_insight: read this\ncreated: 2026-11-22T11:05:00Z\n---\n" +
		"-----BEGIN OPENSSH PRIVATE KEY-----\nSECRETKEYMATERIAL\n-----END OPENSSH PRIVATE KEY-----\n"
}

// withinAMinute fails the test when fn blocks: a FIFO or /dev/zero behind
// a learning's name must be refused, not waited on or read without end.
func withinAMinute(t *testing.T, what string, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { fn(); close(done) }()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatalf("%s did not return", what)
	}
}

func TestShowRefusesWhatIsNotARegularFile(t *testing.T) {
	t.Parallel()
	kb := tempKB(t)
	if err := os.MkdirAll(kb.docs, 0o755); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(filepath.Dir(kb.docs), "..", "id_rsa")
	if err := os.WriteFile(outside, []byte(keyDoc("lrn-deploy-notes-a1a1a1")), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(kb.docs, "lrn-deploy-notes-a1a1a1.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(kb.docs, "lrn-zero-b2b2b2.md")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(kb.docs, "lrn-fifo-c3c3c3.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"show", "lrn-deploy-notes-a1a1a1"}, {"show", "--json", "lrn-deploy-notes-a1a1a1"},
		{"show", "lrn-zero-b2b2b2"}, {"show", "--json", "lrn-zero-b2b2b2"},
		{"show", "lrn-fifo-c3c3c3"}, {"show", "--json", "lrn-fifo-c3c3c3"},
	} {
		withinAMinute(t, strings.Join(args, " "), func() {
			code, stdout, stderr := kb.run(t, "", false, args...)
			if code == 0 || strings.Contains(stdout+stderr, "SECRETKEYMATERIAL") {
				t.Errorf("%v: exit %d, stdout %q, stderr %q; want a refusal that shows nothing of the target", args, code, stdout, stderr)
			}
			if !strings.Contains(stderr, "regular file") {
				t.Errorf("%v: stderr %q should say only regular files are read", args, stderr)
			}
		})
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
