package layers

import (
	"bytes"
	"encoding/json"
	"errors"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestIndexWritesNoDocument keeps ARCHITECTURE §2's rule that the index
// is a cache of documents/: no package under index/ writes or deletes a
// document (package knowledge does, through store). The packages are
// type-checked against the export data `go list -export` gives, so a call
// is judged by the function it names, not by how it is spelled.
func TestIndexWritesNoDocument(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	module, err := ModulePath(root)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "list", "-e", "-export", "-deps", "-tags", "sqlite_fts5",
		"-json=ImportPath,Dir,Export,GoFiles,Error", "./index/...")
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, &stderr)
	}
	type pkg struct {
		ImportPath, Dir, Export string
		GoFiles                 []string
		Error                   *struct{ Err string }
	}
	exports := map[string]string{}
	var mine []pkg
	for dec := json.NewDecoder(bytes.NewReader(out)); ; {
		var p pkg
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		if p.Error != nil {
			t.Fatalf("go list %s: %s", p.ImportPath, p.Error.Err)
		}
		exports[p.ImportPath] = p.Export
		if p.ImportPath == module+"/index" || strings.HasPrefix(p.ImportPath, module+"/index/") {
			mine = append(mine, p)
		}
	}
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		if e := exports[path]; e != "" {
			return os.Open(e)
		}
		return nil, errors.New("no export data for " + path)
	})
	reads := 0
	for _, p := range mine {
		var files []*ast.File
		for _, name := range p.GoFiles {
			f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, f)
		}
		info := &types.Info{Uses: map[*ast.Ident]types.Object{}, Selections: map[*ast.SelectorExpr]*types.Selection{}}
		conf := types.Config{Importer: imp}
		if _, err := conf.Check(p.ImportPath, fset, files, info); err != nil {
			t.Fatalf("type-check %s: %v", p.ImportPath, err)
		}
		w, r := DocumentWrites(fset, files, info, module+"/store", module+"/internal/fsutil")
		for _, v := range w {
			t.Error(v)
		}
		reads += r
	}
	if len(mine) < 3 || reads == 0 {
		t.Fatalf("checked %d packages under index/ and saw %d reads of store: the check is broken", len(mine), reads)
	}
}

// DocumentWrites finds a call of a store method that writes, a method
// value of one, and a file change handed a path from the store; reads and
// changes to other files pass.
func TestDocumentWritesFindsEachKind(t *testing.T) {
	t.Parallel()
	const storeSrc = `package store
type Store struct{ Dir string }
type FileInfo struct{ Path string }
func (s *Store) Path(id string) string { return s.Dir + "/" + id }
func (s *Store) Read(id string) (string, error) { return "", nil }
func (s *Store) Write(id string) error { return nil }
func (s *Store) Delete(id string) error { return nil }
func ReadDocument(p string) ([]byte, error) { return nil, nil }
func WriteRaw(p string) error { return nil }
type Learning struct{}
func (l *Learning) Redact() {}
`
	const indexSrc = `package index
import (
	"os"
	"path/filepath"

	"example.com/m/store"
)
func f(s *store.Store, fi store.FileInfo) {
	s.Read("a")
	store.ReadDocument("x")
	(&store.Learning{}).Redact()
	store.WriteRaw("x")
	os.Remove("vectors.f32")
	s.Write("a")
	del := s.Delete
	_ = del
	os.Remove(s.Path("a"))
	os.Rename(filepath.Join(s.Dir, "b"), "c")
	os.WriteFile(fi.Path, nil, 0o600)
}
`
	fset := token.NewFileSet()
	check := func(path, src string, imp types.Importer) (*types.Package, *ast.File, *types.Info) {
		t.Helper()
		f, err := parser.ParseFile(fset, path+".go", src, 0)
		if err != nil {
			t.Fatal(err)
		}
		info := &types.Info{Uses: map[*ast.Ident]types.Object{}, Selections: map[*ast.SelectorExpr]*types.Selection{}}
		p, err := (&types.Config{Importer: imp}).Check(path, fset, []*ast.File{f}, info)
		if err != nil {
			t.Fatalf("type-check %s: %v", path, err)
		}
		return p, f, info
	}
	storePkg, _, _ := check("example.com/m/store", storeSrc, importer.Default())
	_, f, info := check("example.com/m/index", indexSrc, importerFunc(func(path string) (*types.Package, error) {
		if path == "example.com/m/store" {
			return storePkg, nil
		}
		return importer.Default().Import(path)
	}))
	writes, reads := DocumentWrites(fset, []*ast.File{f}, info, "example.com/m/store", "example.com/m/internal/fsutil")
	var got []string
	for _, w := range writes {
		got = append(got, w.Call)
	}
	want := []string{
		"os.Remove on a document's path",
		"os.Rename on a document's path",
		"os.WriteFile on a document's path",
		"store.Store.Delete",
		"store.Store.Write",
		"store.WriteRaw",
	}
	if strings.Join(sorted(got), "\n") != strings.Join(want, "\n") {
		t.Errorf("DocumentWrites found\n%s\nwant\n%s", strings.Join(sorted(got), "\n"), strings.Join(want, "\n"))
	}
	if reads != 4 { // Read, ReadDocument, Redact, Path
		t.Errorf("reads = %d, want 4", reads)
	}
}

type importerFunc func(path string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }

func sorted(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}
