package store

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// hostileDocs makes a documents directory holding, under learning names,
// what a teammate's push or a local tool could put there: a link to a
// private key that parses as a learning, a link to /dev/zero, a FIFO and
// an oversize file. It returns the directory and the names.
func hostileDocs(t *testing.T) (dir string, names map[string]string) {
	t.Helper()
	root := t.TempDir()
	dir = filepath.Join(root, "documents")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(root, "id_rsa")
	writeFile(t, secret, docWithID("lrn-key-a1a1a1", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmU=\n"))
	names = map[string]string{
		"symlink": "lrn-key-a1a1a1",
		"devzero": "lrn-zero-b2b2b2",
		"fifo":    "lrn-fifo-c3c3c3",
		"big":     "lrn-big-d4d4d4",
	}
	if err := os.Symlink(secret, filepath.Join(dir, names["symlink"]+".md")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(dir, names["devzero"]+".md")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, names["fifo"]+".md"), 0o644); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, names["big"]+".md"), docWithID(names["big"], strings.Repeat("x", MaxDocumentSize)))
	return dir, names
}

func docWithID(id, body string) string {
	return "---\nid: " + id + "\ntitle: Deploy notes\ntype: learning\nconfidence: high\nkey_insight: read this\ncreated: 2026-11-22T11:05:00Z\n---\n" + body
}

// promptly runs fn and fails the test when it has not returned after a
// generous wait: a FIFO or /dev/zero must be refused, not waited on.
func promptly(t *testing.T, what string, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { fn(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatalf("%s did not return: it blocked on the file or read it without bound", what)
	}
}

func TestReadDocumentRefusesWhatIsNotARegularFile(t *testing.T) {
	t.Parallel()
	dir, names := hostileDocs(t)
	st := Open(dir)
	for kind, id := range names {
		promptly(t, kind, func() {
			data, err := ReadDocument(st.Path(id))
			var de *DocError
			if !errors.As(err, &de) || data != nil {
				t.Errorf("%s: ReadDocument = %d bytes, %v; want a *DocError and nothing read", kind, len(data), err)
				return
			}
			if de.Path != st.Path(id) {
				t.Errorf("%s: error names %q", kind, de.Path)
			}
			if _, err := st.Read(id); !errors.As(err, &de) {
				t.Errorf("%s: Store.Read = %v, want a *DocError", kind, err)
			}
			if _, err := st.ReadRaw(id); !errors.As(err, &de) {
				t.Errorf("%s: Store.ReadRaw = %v, want a *DocError", kind, err)
			}
		})
	}
	_, err := ReadDocument(st.Path(names["symlink"]))
	if err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("a link's error should say it is one: %v", err)
	}
	_, err = ReadDocument(st.Path(names["fifo"]))
	if err == nil || !strings.Contains(err.Error(), "FIFO") {
		t.Errorf("a FIFO's error should say it is one: %v", err)
	}
}

func TestReadDocumentRefusesALinkedSidecar(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	target := filepath.Join(t.TempDir(), "elsewhere.yaml")
	writeFile(t, target, "document_id: lrn-x-a1a1a1\nentities: []\n")
	st := Open(dir)
	if err := os.Symlink(target, st.SidecarPath("lrn-x-a1a1a1")); err != nil {
		t.Fatal(err)
	}
	var de *DocError
	if _, err := st.ReadSidecar("lrn-x-a1a1a1"); !errors.As(err, &de) {
		t.Errorf("ReadSidecar through a link = %v, want a *DocError", err)
	}
}

func TestReadDocumentReadsARegularFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	st := Open(dir)
	want := docWithID("lrn-ok-e5e5e5", "## Problem\n")
	writeFile(t, st.Path("lrn-ok-e5e5e5"), want)
	data, err := st.ReadRaw("lrn-ok-e5e5e5")
	if err != nil || string(data) != want {
		t.Fatalf("ReadRaw = %q, %v", data, err)
	}
	if _, err := st.ReadRaw("lrn-gone-f6f6f6"); !errors.Is(err, ErrNotFound) {
		t.Errorf("a missing id: %v, want ErrNotFound", err)
	}
	if _, err := ReadDocument(filepath.Join(dir, "none.md")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing file: %v, want fs.ErrNotExist", err)
	}
}

func TestRedactReadKeepsTheID(t *testing.T) {
	t.Parallel()
	l := &Learning{ID: "lrn-deploy-notes-a1a1a1", Title: "Deploy notes", KeyInsight: "token ghp_0123456789abcdefghijklmnopqrstuvwxyzAB works",
		Body: "AKIAIOSFODNN7EXAMPLE\n"}
	rs := l.RedactRead()
	if l.ID != "lrn-deploy-notes-a1a1a1" {
		t.Errorf("id became %q", l.ID)
	}
	if strings.Contains(l.KeyInsight, "ghp_") || len(rs) == 0 {
		t.Errorf("not redacted: %q %v", l.KeyInsight, rs)
	}
}
