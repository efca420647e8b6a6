package store

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/reflectkb/reflect/internal/shortid"
	"github.com/reflectkb/reflect/internal/testfs"
)

func newLearning(title string) *Learning {
	return &Learning{
		ID:         NewID(title, "insight"),
		Title:      title,
		Confidence: "high",
		KeyInsight: "insight",
		Created:    time.Date(2026, 11, 22, 11, 5, 0, 0, time.UTC),
		Body:       "## Problem\n" + title + "\n",
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	return names
}

func asDocError(t *testing.T, err error) *DocError {
	t.Helper()
	var de *DocError
	if !errors.As(err, &de) {
		t.Fatalf("error %T %v is not a *DocError", err, err)
	}
	return de
}

func TestReadFileRefusesHugeFileBySize(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "lrn-huge.md")
	writeFile(t, path, "")
	if err := os.Truncate(path, 50<<20); err != nil { // sparse: no 50 MB written
		t.Fatal(err)
	}
	// Unreadable, so that (when not running as root) reading before
	// checking the size would fail with a permission error instead.
	if err := os.Chmod(path, 0); err != nil {
		t.Fatal(err)
	}
	_, err := ReadFile(path)
	de := asDocError(t, err)
	if de.Path != path {
		t.Errorf("Path = %q, want %q", de.Path, path)
	}
	if !strings.Contains(de.Reason, "52428800 bytes") || !strings.Contains(err.Error(), path) {
		t.Errorf("error %q should give the size and the path", err)
	}
}

func TestReadFileJustOverLimit(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "lrn-x.md")
	writeFile(t, path, strings.Repeat("x", MaxDocumentSize+1))
	de := asDocError(t, func() error { _, err := ReadFile(path); return err }())
	if !strings.Contains(de.Reason, "1048577 bytes") {
		t.Errorf("reason %q", de.Reason)
	}
}

func TestReadFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := filepath.Join(dir, "lrn-oauth-state-cookie-samesite-1a2b3c.md")
	writeFile(t, good, string(readTestdata(t, "design-example.md")))
	l, err := ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	if l.Path != good || l.ID != "lrn-oauth-state-cookie-samesite-1a2b3c" {
		t.Errorf("ReadFile = id %q path %q", l.ID, l.Path)
	}

	t.Run("id does not match file name", func(t *testing.T) {
		path := filepath.Join(dir, "lrn-renamed.md")
		writeFile(t, path, string(readTestdata(t, "design-example.md")))
		_, err := ReadFile(path)
		de := asDocError(t, err)
		if de.Path != path {
			t.Errorf("Path = %q", de.Path)
		}
		for _, w := range []string{`"lrn-oauth-state-cookie-samesite-1a2b3c"`, "lrn-renamed"} {
			if !strings.Contains(de.Reason, w) {
				t.Errorf("reason %q does not name %s", de.Reason, w)
			}
		}
	})
	t.Run("parse error carries the path", func(t *testing.T) {
		path := filepath.Join(dir, "lrn-broken.md")
		writeFile(t, path, "---\nid: lrn-broken\ntitle: t\ncreated: 2026-01-01T00:00:00Z\n---\n")
		_, err := ReadFile(path)
		de := asDocError(t, err)
		if de.Path != path || !strings.Contains(de.Reason, "missing confidence") {
			t.Errorf("error = %+v", de)
		}
		if want := path + ": missing confidence"; !strings.HasPrefix(err.Error(), want) {
			t.Errorf("Error() = %q, want prefix %q", err.Error(), want)
		}
	})
	t.Run("missing file", func(t *testing.T) {
		_, err := ReadFile(filepath.Join(dir, "lrn-none.md"))
		if !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("err = %v, want fs.ErrNotExist", err)
		}
	})
	t.Run("directory", func(t *testing.T) {
		path := filepath.Join(dir, "lrn-dir.md")
		if err := os.Mkdir(path, 0o700); err != nil {
			t.Fatal(err)
		}
		_, err := ReadFile(path)
		if de := asDocError(t, err); de.Path != path || de.Reason != "is a directory" {
			t.Errorf("error = %+v", de)
		}
	})
	t.Run("fifo does not block", func(t *testing.T) {
		path := filepath.Join(dir, "lrn-fifo.md")
		if err := testfs.Mkfifo(path); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
		done := make(chan error, 1)
		go func() { _, err := ReadFile(path); done <- err }()
		select {
		case err := <-done:
			if de := asDocError(t, err); !strings.Contains(de.Reason, "not a regular file") {
				t.Errorf("error = %+v", de)
			}
		case <-time.After(time.Minute): // a blocked read never returns; a loaded machine can be slow
			// Unblock the reader so the test binary can exit.
			if f, err := os.OpenFile(path, os.O_WRONLY, 0); err == nil {
				f.Close()
			}
			t.Fatal("ReadFile blocked on a FIFO")
		}
	})
}

func TestWriteRead(t *testing.T) {
	t.Parallel()
	s := Open(filepath.Join(t.TempDir(), "documents")) // created on first write
	l := newLearning("Use ripgrep, not grep")
	l.Created = time.Date(2026, 11, 22, 12, 5, 0, 999, time.FixedZone("CET", 3600))
	if err := s.Write(l); err != nil {
		t.Fatal(err)
	}
	if l.Type != "learning" {
		t.Errorf("Write left Type %q, want learning", l.Type)
	}
	wantTime := time.Date(2026, 11, 22, 11, 5, 0, 0, time.UTC)
	if l.Created != wantTime || l.Updated != wantTime {
		t.Errorf("Write: Created %v Updated %v, want both %v (UTC, whole seconds)", l.Created, l.Updated, wantTime)
	}
	if want := filepath.Join(s.Dir, l.ID+".md"); l.Path != want || s.Path(l.ID) != want {
		t.Errorf("Path %q, want %q", l.Path, want)
	}
	if got := dirNames(t, s.Dir); !reflect.DeepEqual(got, []string{l.ID + ".md"}) {
		t.Errorf("directory holds %v after Write, want only the document", got)
	}

	got, err := s.Read(l.ID)
	if err != nil {
		t.Fatal(err)
	}
	assertLearningEqual(t, got, l, wantTime, wantTime)

	// Overwrite in place: still one file, new content.
	got.Title = "Use ripgrep instead of grep"
	got.Updated = time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	if err := s.Write(got); err != nil {
		t.Fatal(err)
	}
	if names := dirNames(t, s.Dir); !reflect.DeepEqual(names, []string{l.ID + ".md"}) {
		t.Errorf("directory holds %v after rewrite", names)
	}
	again, err := ReadFile(s.Path(l.ID))
	if err != nil {
		t.Fatal(err)
	}
	if again.Title != "Use ripgrep instead of grep" || !again.Updated.Equal(got.Updated) || !again.Created.Equal(wantTime) {
		t.Errorf("after rewrite: %+v", again)
	}
}

// Files written by Write end with a newline even when the body given does
// not; l is updated to match what was written.
func TestWriteEndsBodyWithNewline(t *testing.T) {
	t.Parallel()
	s := Open(t.TempDir())
	for _, tt := range []struct{ body, want string }{
		{"no newline", "no newline\n"},
		{"one\n", "one\n"},
		{"crlf\r\n", "crlf\r\n"},
		{"", ""},
	} {
		l := newLearning("body " + tt.body)
		l.Body = tt.body
		if err := s.Write(l); err != nil {
			t.Fatal(err)
		}
		if l.Body != tt.want {
			t.Errorf("Write left Body %q, want %q", l.Body, tt.want)
		}
		data, err := os.ReadFile(l.Path)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(string(data), "---\n"+tt.want) {
			t.Errorf("file ends %q, want body %q", data, tt.want)
		}
	}
}

func TestWriteManyLeavesNoTempFiles(t *testing.T) {
	t.Parallel()
	s := Open(t.TempDir())
	var want []string
	for _, title := range []string{"one", "two", "three", "four", "five"} {
		l := newLearning(title)
		for i := 0; i < 3; i++ {
			if err := s.Write(l); err != nil {
				t.Fatal(err)
			}
		}
		want = append(want, l.ID+".md")
	}
	sort.Strings(want)
	if got := dirNames(t, s.Dir); !reflect.DeepEqual(got, want) {
		t.Errorf("directory holds %v, want exactly %v", got, want)
	}
}

func TestWriteInvalid(t *testing.T) {
	t.Parallel()
	s := Open(t.TempDir())
	tests := []struct {
		name   string
		mutate func(*Learning)
		want   string
	}{
		{"no title", func(l *Learning) { l.Title = "" }, "missing title"},
		{"escaping id", func(l *Learning) { l.ID = "../escape" }, "may only hold"},
		{"bad confidence", func(l *Learning) { l.Confidence = "certain" }, `confidence "certain"`},
		{"no created", func(l *Learning) { l.Created = time.Time{} }, "missing created"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := newLearning("valid")
			tt.mutate(l)
			err := s.Write(l)
			if de := asDocError(t, err); !strings.Contains(de.Reason, tt.want) {
				t.Errorf("reason %q, want %q", de.Reason, tt.want)
			}
		})
	}
	if names := dirNames(t, s.Dir); len(names) != 0 {
		t.Errorf("invalid writes left %v", names)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(s.Dir), "escape.md")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a write escaped the store: %v", err)
	}
}

func TestReadNotFound(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	s := Open(filepath.Join(root, "documents"))
	writeFile(t, filepath.Join(root, "outside.md"), string(readTestdata(t, "valid.md")))
	for _, id := range []string{"lrn-none", "../outside", "", ".hidden", "a/b"} {
		if _, err := s.Read(id); !errors.Is(err, ErrNotFound) {
			t.Errorf("Read(%q) = %v, want ErrNotFound", id, err)
		}
	}
}

func TestScan(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := Open(dir)
	files := map[string]string{
		"lrn-b.md":                         "bb",
		"lrn-a.md":                         "a",
		"lrn-a.entities.yaml":              "document_id: lrn-a\n",
		".hidden.md":                       "x",
		".lrn-a.md.tmp-12345":              "x", // a temp file of an interrupted atomic write
		"notes.txt":                        "x",
		"README":                           "x",
		"lrn-c.md.bak":                     "x",
		"lrn-c.MD":                         "x",
		"sub/lrn-nested.md":                "x",
		"lrn-z.entities.yaml":              "document_id: lrn-z\n",
		"lrn-orphan-sidecar.entities.yaml": "x",
	}
	for name, content := range files {
		writeFile(t, filepath.Join(dir, name), content)
	}
	if err := os.Mkdir(filepath.Join(dir, "lrn-dir.md"), 0o700); err != nil {
		t.Fatal(err)
	}
	got, err := s.Scan()
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, f := range got {
		ids = append(ids, f.ID)
		if f.Path != filepath.Join(dir, f.ID+".md") {
			t.Errorf("%s: Path %q", f.ID, f.Path)
		}
		if f.Size != int64(len(files[f.ID+".md"])) {
			t.Errorf("%s: Size %d, want %d", f.ID, f.Size, len(files[f.ID+".md"]))
		}
		if f.ModTime.IsZero() {
			t.Errorf("%s: no ModTime", f.ID)
		}
	}
	if want := []string{"lrn-a", "lrn-b"}; !reflect.DeepEqual(ids, want) {
		t.Errorf("Scan ids %v, want %v (sorted, documents only)", ids, want)
	}
}

func TestScanMissingDir(t *testing.T) {
	t.Parallel()
	s := Open(filepath.Join(t.TempDir(), "no", "such", "dir"))
	got, err := s.Scan()
	if err != nil || len(got) != 0 {
		t.Errorf("Scan of a missing dir = %v, %v; want empty, nil", got, err)
	}
}

func TestScanDirIsAFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "documents")
	writeFile(t, path, "not a directory")
	if _, err := Open(path).Scan(); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("Scan of a file = %v, want an error naming %s", err, path)
	}
}

func TestDelete(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	s := Open(filepath.Join(root, "documents"))
	l := newLearning("to be forgotten")
	keep := newLearning("to be kept")
	for _, x := range []*Learning{l, keep} {
		if err := s.Write(x); err != nil {
			t.Fatal(err)
		}
		sc := &Sidecar{DocumentID: x.ID, Entities: []Entity{{Name: "rg", Type: "tool"}}}
		if err := s.WriteSidecar(sc); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Delete(l.ID); err != nil {
		t.Fatal(err)
	}
	if want := []string{keep.ID + ".entities.yaml", keep.ID + ".md"}; !reflect.DeepEqual(dirNames(t, s.Dir), want) {
		t.Errorf("after Delete: %v, want %v", dirNames(t, s.Dir), want)
	}
	if _, err := s.Read(l.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("Read after Delete = %v, want ErrNotFound", err)
	}
	if _, err := s.ReadSidecar(l.ID); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadSidecar after Delete = %v, want fs.ErrNotExist", err)
	}
	if err := s.Delete(l.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("second Delete = %v, want ErrNotFound", err)
	}

	// A document without a sidecar deletes fine.
	if err := os.Remove(s.SidecarPath(keep.ID)); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(keep.ID); err != nil {
		t.Errorf("Delete without sidecar: %v", err)
	}

	outside := filepath.Join(root, "outside.md")
	writeFile(t, outside, "keep me")
	for _, id := range []string{"lrn-unknown", "../outside", "", "a/b"} {
		if err := s.Delete(id); !errors.Is(err, ErrNotFound) {
			t.Errorf("Delete(%q) = %v, want ErrNotFound", id, err)
		}
	}
	if _, err := os.Stat(outside); err != nil {
		t.Errorf("Delete reached outside the store: %v", err)
	}
}

func TestSidecarReadWrite(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	s := Open(filepath.Join(root, "documents"))
	sc, err := ParseSidecar(readTestdata(t, "design-example.entities.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.WriteSidecar(sc); err != nil {
		t.Fatal(err)
	}
	if want := []string{sc.DocumentID + ".entities.yaml"}; !reflect.DeepEqual(dirNames(t, s.Dir), want) {
		t.Errorf("directory %v, want %v", dirNames(t, s.Dir), want)
	}
	got, err := s.ReadSidecar(sc.DocumentID)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, sc) {
		t.Errorf("ReadSidecar = %+v, want %+v", got, sc)
	}

	if _, err := s.ReadSidecar("lrn-none"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing sidecar: %v, want fs.ErrNotExist", err)
	}

	// A broken sidecar names its path.
	writeFile(t, s.SidecarPath("lrn-bad"), "document_id: lrn-bad\nentities: [{name: x, type: gadget}]\n")
	_, err = s.ReadSidecar("lrn-bad")
	if de := asDocError(t, err); de.Path != s.SidecarPath("lrn-bad") || !strings.Contains(de.Reason, `type "gadget"`) {
		t.Errorf("error = %+v", de)
	}

	// Ids name files: none may leave the directory, reading or writing.
	writeFile(t, filepath.Join(root, "secret.entities.yaml"), "document_id: secret\n")
	if _, err := s.ReadSidecar("../secret"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadSidecar(../secret) = %v, want fs.ErrNotExist", err)
	}
	err = s.WriteSidecar(&Sidecar{DocumentID: "../escaped"})
	if de := asDocError(t, err); !strings.Contains(de.Reason, `document_id "../escaped"`) {
		t.Errorf("WriteSidecar(../escaped) = %v", err)
	}
	if _, err := os.Stat(filepath.Join(root, "escaped.entities.yaml")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("WriteSidecar wrote outside the store: %v", err)
	}
}

func TestResolve(t *testing.T) {
	t.Parallel()
	s := Open(t.TempDir())
	a, b := newLearning("OAuth state cookie"), newLearning("OAuth token refresh")
	for _, l := range []*Learning{a, b} {
		if err := s.Write(l); err != nil {
			t.Fatal(err)
		}
	}
	tail := a.ID[len(a.ID)-6:]
	for _, ref := range []string{a.ID, tail, "oauth-state", "lrn-oauth-s"} {
		if got, err := s.Resolve(ref); err != nil || got != a.ID {
			t.Errorf("Resolve(%q) = %q, %v; want %q", ref, got, err, a.ID)
		}
	}
	var ae *shortid.AmbiguousError
	if _, err := s.Resolve("oauth"); !errors.As(err, &ae) || len(ae.Candidates) != 2 {
		t.Errorf("Resolve(oauth) err = %v, want ambiguous between 2", err)
	}
	if _, err := s.Resolve("nothing"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Resolve(nothing) err = %v, want ErrNotFound", err)
	}
}
