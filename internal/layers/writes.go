package layers

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"sort"
	"strings"
)

// The index is a cache of documents/ (ARCHITECTURE §2): it reads
// documents and never writes or deletes one; package knowledge does,
// through store. An import rule cannot say that, since the index must
// import store to read, so DocumentWrites looks at the calls themselves.

// storeReads are the name prefixes of the methods of store.Store (the
// type that touches documents/) that only read. Any other method counts
// as a write, so a new writing method is caught before anyone thinks to
// list it. store's functions work on values in memory, except those
// named with a prefix of storeWrites.
var (
	storeReads  = []string{"Read", "Scan", "IDs", "Resolve", "Path", "SidecarPath", "NeedingReview"}
	storeWrites = []string{"Write", "Delete", "Remove", "Rename", "Create"}
)

// fsutilReads are the name prefixes of internal/fsutil's functions that
// do not change the file system; the others write or create.
var fsutilReads = []string{"Read", "OpenRegular", "Temp", "SafeName"}

// fileChanges are the functions that change the file system. Handed a
// document's path (a call of store.Store's Path or SidecarPath, its Dir,
// or a store.FileInfo's Path), they write or delete a document.
var fileChanges = map[string]bool{
	"os.Remove": true, "os.RemoveAll": true, "os.Rename": true, "os.WriteFile": true,
	"os.Create": true, "os.CreateTemp": true, "os.OpenFile": true, "os.Chmod": true,
	"os.Chtimes": true, "os.Truncate": true, "os.Symlink": true, "os.Link": true,
	"os.Mkdir": true, "os.MkdirAll": true, "os.Lchown": true, "os.Chown": true,
}

// Write is a call that changes a document.
type Write struct {
	Pos  token.Position
	Call string
}

func (w Write) String() string {
	return fmt.Sprintf("%s: %s changes documents/; the index only reads them (write through package knowledge)", w.Pos, w.Call)
}

// DocumentWrites returns the places in files (one package, type-checked
// into info) that write or delete a document: any use (a call, or a method
// value) of a method of storePath's Store that is not a read (storeReads)
// or of a function of storePath named as a write (storeWrites), and any
// file system change (fileChanges, or a
// function of the package fsutilPath not in fsutilReads) handed a path
// from the store. reads counts the uses of store's other functions and
// methods, so a caller can tell that the check looked.
func DocumentWrites(fset *token.FileSet, files []*ast.File, info *types.Info, storePath, fsutilPath string) (writes []Write, reads int) {
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.Ident:
				fn, ok := info.Uses[n].(*types.Func)
				if !ok || fn.Pkg() == nil || fn.Pkg().Path() != storePath {
					break
				}
				switch recv := fn.Type().(*types.Signature).Recv(); {
				case recv == nil && hasPrefix(fn.Name(), storeWrites),
					recv != nil && typeName(recv.Type()) == "Store" && !hasPrefix(fn.Name(), storeReads):
					writes = append(writes, Write{Pos: fset.Position(n.Pos()), Call: funcName(fn)})
				default:
					reads++
				}
			case *ast.CallExpr:
				fn := callee(info, n)
				if fn == nil || fn.Pkg() == nil {
					break
				}
				if fileChanges[funcName(fn)] || fn.Pkg().Path() == fsutilPath && !hasPrefix(fn.Name(), fsutilReads) {
					for _, a := range n.Args {
						if mentionsDocument(info, a, storePath) {
							writes = append(writes, Write{Pos: fset.Position(n.Pos()), Call: funcName(fn) + " on a document's path"})
							break
						}
					}
				}
			}
			return true
		})
	}
	sort.Slice(writes, func(i, j int) bool { return writes[i].String() < writes[j].String() })
	return writes, reads
}

// funcName is pkg.Func or pkg.Type.Method.
func funcName(fn *types.Func) string {
	if recv := fn.Type().(*types.Signature).Recv(); recv != nil {
		return fn.Pkg().Name() + "." + typeName(recv.Type()) + "." + fn.Name()
	}
	return fn.Pkg().Name() + "." + fn.Name()
}

func hasPrefix(name string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// callee is the function or method a call names, or nil (a conversion, a
// builtin, a call of a function value).
func callee(info *types.Info, call *ast.CallExpr) *types.Func {
	var id *ast.Ident
	switch fun := ast.Unparen(call.Fun).(type) {
	case *ast.Ident:
		id = fun
	case *ast.SelectorExpr:
		if sel, ok := info.Selections[fun]; ok {
			fn, _ := sel.Obj().(*types.Func)
			return fn
		}
		id = fun.Sel
	case *ast.IndexExpr: // a generic function instantiated explicitly
		return callee(info, &ast.CallExpr{Fun: fun.X})
	default:
		return nil
	}
	fn, _ := info.Uses[id].(*types.Func)
	return fn
}

func typeName(t types.Type) string {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	if n, ok := t.(*types.Named); ok {
		return n.Obj().Name()
	}
	return t.String()
}

// mentionsDocument reports whether expr uses a path store hands out: a
// call of a store method named Path or SidecarPath, or a field named Dir
// or Path of a store type.
func mentionsDocument(info *types.Info, expr ast.Expr, storePath string) bool {
	found := false
	ast.Inspect(expr, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok || found {
			return !found
		}
		s, ok := info.Selections[sel]
		if !ok || s.Obj().Pkg() == nil || s.Obj().Pkg().Path() != storePath {
			return true
		}
		switch name := s.Obj().Name(); {
		case s.Kind() == types.MethodVal && (name == "Path" || name == "SidecarPath"),
			s.Kind() == types.FieldVal && (name == "Dir" || name == "Path"):
			found = true
		}
		return !found
	})
	return found
}
