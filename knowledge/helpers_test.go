package knowledge

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reflectkb/reflect/index"
	"github.com/reflectkb/reflect/store"
)

var t0 = time.Date(2026, 11, 22, 11, 5, 0, 0, time.UTC)

func cookieLearning() *store.Learning {
	title := "OAuth state cookie must be SameSite=Lax"
	insight := "A SameSite=Strict state cookie is dropped on the cross-site redirect back from the IdP."
	return &store.Learning{
		ID:         store.NewID(title, insight),
		Title:      title,
		KeyInsight: insight,
		Confidence: "high",
		Tags:       []string{"oauth", "cookies"},
		Scope:      "project",
		Project:    "auth-service",
		Created:    t0,
		Body:       "## Problem\nThe state cookie set in `callback/cookie.go` was lost; Chrome logged ERR_BLOCKED_BY_CLIENT.\n",
	}
}

// dirs are a test's learnings directory: documents/ and index/.
type dirs struct{ docs, idx string }

func newDirs(t testing.TB) dirs {
	t.Helper()
	root := t.TempDir()
	d := dirs{docs: filepath.Join(root, "documents"), idx: filepath.Join(root, "index")}
	if err := os.MkdirAll(d.docs, 0o700); err != nil {
		t.Fatal(err)
	}
	return d
}

func (d dirs) docPath(id string) string { return filepath.Join(d.docs, id+".md") }

// open opens the knowledge base of d; its index closes when the test ends.
func (d dirs) open(t testing.TB) *Base {
	t.Helper()
	ix, err := index.Open(context.Background(), d.docs, d.idx)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { ix.Close() })
	return New(ix)
}

func writeRaw(t testing.TB, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// addFrontmatter adds raw YAML lines at the end of a document's
// frontmatter, as a person editing the file would.
func addFrontmatter(t testing.TB, path, lines string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	head, body, ok := strings.Cut(strings.TrimPrefix(string(data), "---\n"), "\n---\n")
	if !ok {
		t.Fatalf("%s has no frontmatter:\n%s", path, data)
	}
	writeRaw(t, path, "---\n"+head+"\n"+lines+"---\n"+body)
}

func search(t testing.TB, k *Base, q index.Query) []index.Result {
	t.Helper()
	res, err := k.Index().Search(context.Background(), q)
	if err != nil {
		t.Fatalf("Search(%q): %v", q.Text, err)
	}
	return res
}

func ids(res []index.Result) []string {
	var out []string
	for _, r := range res {
		out = append(out, r.ID)
	}
	return out
}

func counts(t testing.TB, k *Base) index.Counts {
	t.Helper()
	c, err := k.Index().Count(context.Background())
	if err != nil {
		t.Fatalf("Count: %v", err)
	}
	return c
}
