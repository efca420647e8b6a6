package main

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// TestPackageDoc keeps `go doc ./cmd/reflect` a description of the command:
// only doc.go carries a package comment (go doc joins every file's), and it
// starts by saying what reflect is.
func TestPackageDoc(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.PackageClauseOnly|parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		doc := ""
		if f.Doc != nil {
			doc = strings.TrimSpace(f.Doc.Text())
		}
		switch {
		case name == "doc.go" && !strings.HasPrefix(doc, "Reflect gives coding agents"):
			t.Errorf("doc.go's package comment starts %.40q, want the command's description", doc)
		case name != "doc.go" && doc != "":
			t.Errorf("%s has a package comment (%.40q): go doc would show it with doc.go's; make it a plain comment", name, doc)
		}
	}
}
