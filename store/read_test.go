package store_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reflectkb/reflect/store"
	"github.com/reflectkb/reflect/store/storetest"
)

func TestReadDocumentRefusesWhatIsNotARegularFile(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "documents")
	h := storetest.Place(t, dir, "0000")
	st := store.Open(dir)
	for id, why := range map[string]string{h.Link: "symbolic link", h.DevZero: "symbolic link", h.FIFO: "FIFO", h.Oversize: "more than"} {
		storetest.Promptly(t, id, func() {
			data, err := store.ReadDocument(st.Path(id))
			var de *store.DocError
			if !errors.As(err, &de) || data != nil {
				t.Errorf("%s: ReadDocument = %d bytes, %v; want a *DocError and nothing read", id, len(data), err)
				return
			}
			if de.Path != st.Path(id) || !strings.Contains(de.Reason, why) {
				t.Errorf("%s: %v; want the path and why (%s)", id, err, why)
			}
			if _, err := st.Read(id); !errors.As(err, &de) {
				t.Errorf("%s: Store.Read = %v, want a *DocError", id, err)
			}
			if _, err := st.ReadRaw(id); !errors.As(err, &de) {
				t.Errorf("%s: Store.ReadRaw = %v, want a *DocError", id, err)
			}
		})
	}
}

func TestReadDocumentRefusesALinkedSidecar(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	target := filepath.Join(t.TempDir(), "elsewhere.yaml")
	if err := os.WriteFile(target, []byte("document_id: lrn-x-a1a1a1\nentities: []\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	st := store.Open(dir)
	if err := os.Symlink(target, st.SidecarPath("lrn-x-a1a1a1")); err != nil {
		t.Fatal(err)
	}
	var de *store.DocError
	if _, err := st.ReadSidecar("lrn-x-a1a1a1"); !errors.As(err, &de) {
		t.Errorf("ReadSidecar through a link = %v, want a *DocError", err)
	}
}

func TestReadDocumentReadsARegularFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	st := store.Open(dir)
	want := storetest.Doc("lrn-ok-e5e5e5", "## Problem\n")
	if err := os.WriteFile(st.Path("lrn-ok-e5e5e5"), []byte(want), 0o644); err != nil {
		t.Fatal(err)
	}
	data, err := st.ReadRaw("lrn-ok-e5e5e5")
	if err != nil || string(data) != want {
		t.Fatalf("ReadRaw = %q, %v", data, err)
	}
	if _, err := st.ReadRaw("lrn-gone-f6f6f6"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("a missing id: %v, want ErrNotFound", err)
	}
	if _, err := store.ReadDocument(filepath.Join(dir, "none.md")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing file: %v, want fs.ErrNotExist", err)
	}
}

func TestRedactReadKeepsTheID(t *testing.T) {
	t.Parallel()
	l := &store.Learning{ID: "lrn-deploy-notes-a1a1a1", Title: "Deploy notes", KeyInsight: "token ghp_0123456789abcdefghijklmnopqrstuvwxyzAB works"}
	rs := l.RedactRead()
	if l.ID != "lrn-deploy-notes-a1a1a1" {
		t.Errorf("id became %q", l.ID)
	}
	if strings.Contains(l.KeyInsight, "ghp_") || len(rs) == 0 {
		t.Errorf("not redacted: %q %v", l.KeyInsight, rs)
	}
}
