package layers

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestReflectLinksNoManPageGenerator keeps ARCHITECTURE §2's rule that the
// reflect binary does not link cobra/doc: its markdown-to-roff renderer
// (go-md2man over blackfriday) initialises its tables in every hook
// process. `reflect docs` renders through internal/manpage instead.
func TestReflectLinksNoManPageGenerator(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "list", "-deps", "-tags", "sqlite_fts5", "./cmd/reflect")
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, &stderr)
	}
	for _, dep := range strings.Fields(string(out)) {
		for _, banned := range []string{"github.com/spf13/cobra/doc", "github.com/cpuguy83/go-md2man", "github.com/russross/blackfriday"} {
			if dep == banned || strings.HasPrefix(dep, banned+"/") {
				t.Errorf("cmd/reflect links %s; render pages with internal/manpage", dep)
			}
		}
	}
}
