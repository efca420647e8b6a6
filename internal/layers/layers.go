package layers

import (
	"bufio"
	"fmt"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Markers around the allow-list table in ARCHITECTURE.md.
const (
	beginMarker = "<!-- layers:begin -->"
	endMarker   = "<!-- layers:end -->"
)

// Rules maps a package (relative to the module root, or a "dir/*" pattern)
// to the project packages it may import. "*" allows any; an entry "!pkg"
// forbids pkg whatever else the row allows.
type Rules map[string][]string

// ParseRules reads the allow-list table between the layers markers: each row
// is | `package` | what it owns | comma-separated packages it may import |.
func ParseRules(r io.Reader) (Rules, error) {
	rules := Rules{}
	in := false
	sc := bufio.NewScanner(r)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		switch {
		case text == beginMarker:
			in = true
			continue
		case text == endMarker:
			if len(rules) == 0 {
				return nil, fmt.Errorf("line %d: the layers table is empty", line)
			}
			return rules, nil
		case !in || !strings.HasPrefix(text, "|"):
			continue
		}
		cells := strings.Split(strings.Trim(text, "|"), "|")
		if len(cells) < 3 {
			return nil, fmt.Errorf("line %d: want | package | owns | may import |, got %q", line, text)
		}
		pkg := strings.Trim(strings.TrimSpace(cells[0]), "`")
		if pkg == "package" || strings.HasPrefix(pkg, "---") {
			continue // header and separator rows
		}
		var allowed []string
		for _, a := range strings.Split(cells[len(cells)-1], ",") {
			if a = strings.Trim(strings.TrimSpace(a), "`"); a != "" && a != "—" {
				allowed = append(allowed, a)
			}
		}
		rules[pkg] = allowed
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return nil, fmt.Errorf("no %q … %q table found", beginMarker, endMarker)
}

// rowFor returns the rule row that governs pkg: its own row, else the
// nearest "dir/*" pattern above it.
func (r Rules) rowFor(pkg string) ([]string, bool) {
	if a, ok := r[pkg]; ok {
		return a, true
	}
	for dir := path.Dir(pkg); dir != "."; dir = path.Dir(dir) {
		if a, ok := r[dir+"/*"]; ok {
			return a, true
		}
	}
	return nil, false
}

// allows reports whether an allow-list entry admits the imported package.
func allows(entry, imported string) bool {
	switch {
	case entry == "*":
		return true
	case strings.HasSuffix(entry, "/*"):
		return strings.HasPrefix(imported, strings.TrimSuffix(entry, "*"))
	default:
		return entry == imported
	}
}

// Violation is one import the table does not allow, or a package it lacks.
type Violation struct {
	Package, File, Import string
}

func (v Violation) String() string {
	if v.Import == "" {
		return fmt.Sprintf("%s: package %s has no row in ARCHITECTURE.md §2; add one", v.File, v.Package)
	}
	return fmt.Sprintf("%s: %s imports %s, which its row in ARCHITECTURE.md §2 does not allow", v.File, v.Package, v.Import)
}

// Imports maps each package (relative to the module root) to the project
// packages its non-test files import, and the first file importing each.
type Imports map[string]map[string]string

// Check returns every import in imps that rules do not allow, sorted.
func Check(rules Rules, imps Imports) []Violation {
	var out []Violation
	for pkg, deps := range imps {
		allowed, ok := rules.rowFor(pkg)
		if !ok {
			out = append(out, Violation{Package: pkg, File: pkg + "/"})
			continue
		}
		for dep, file := range deps {
			ok := false
			for _, a := range allowed {
				if deny, isDeny := strings.CutPrefix(a, "!"); isDeny {
					if allows(deny, dep) {
						ok = false
						break
					}
					continue
				}
				if allows(a, dep) {
					ok = true
				}
			}
			if !ok {
				out = append(out, Violation{Package: pkg, File: file, Import: dep})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
}

// ScanModule parses the import blocks of every non-test Go file under root
// (skipping testdata, hidden directories and node_modules) and returns the
// imports of packages inside module.
func ScanModule(root, module string) (Imports, error) {
	imps := Imports{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, filepath.Dir(p))
		if err != nil {
			return err
		}
		pkg := filepath.ToSlash(rel)
		if imps[pkg] == nil {
			imps[pkg] = map[string]string{}
		}
		for _, spec := range f.Imports {
			ip, err := strconv.Unquote(spec.Path.Value)
			if err != nil {
				return fmt.Errorf("%s: %w", p, err)
			}
			dep, ok := strings.CutPrefix(ip, module+"/")
			if !ok {
				continue
			}
			if _, seen := imps[pkg][dep]; !seen {
				imps[pkg][dep] = filepath.ToSlash(filepath.Join(rel, name))
			}
		}
		return nil
	})
	return imps, err
}

// ModulePath reads the module path from root/go.mod.
func ModulePath(root string) (string, error) {
	data, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if m, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
			return strings.Trim(strings.TrimSpace(m), `"`), nil
		}
	}
	return "", fmt.Errorf("%s/go.mod names no module", root)
}
