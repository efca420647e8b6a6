package index

import (
	"context"
	"errors"
	"fmt"
	"io/fs"

	"github.com/reflectkb/reflect/index/vector"
)

// vectors.i8 holds vectors.f32's rows quantized to int8, which a search
// scans before rescoring its best candidates from the floats (package
// vector, searchCodes): it is derived from vectors.f32 alone, written and
// patched with it by the vector package, and names the version of the
// file it was made from. Missing or stale codes only slow searches down
// (they scan the floats); an update that finds them so makes them anew
// (exportVectors), and doctor checks them row by row.

// rewriteCodes makes vectors.i8 anew from vectors.f32 and drops this
// Index's mapping, which holds the old codes or none.
func (ix *Index) rewriteCodes() error {
	if err := vector.WriteCodes(ix.vectorsPath()); err != nil {
		return fmt.Errorf("vectors: %w", err)
	}
	ix.closeVectors()
	return nil
}

// VectorCodesProblem describes what is wrong with vectors.i8, or returns
// "" when it matches vectors.f32 row for row (or there is no vector file
// to match): missing, made from another version of vectors.f32, damaged,
// or holding codes that are not its rows'. It reads both files whole.
// Searches are right either way: they scan the floats instead, slower.
func (ix *Index) VectorCodesProblem(ctx context.Context) (string, error) {
	if ix.opts.embedder == nil {
		return "", nil
	}
	f, err := vector.Open(ix.vectorsPath())
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", nil
	case err != nil:
		return "", nil // VectorFileProblem's to report
	}
	defer f.Close()
	if p := f.CodesProblem(); p != "" {
		return p, nil
	}
	if n := f.CodesMismatch(); n != 0 {
		return fmt.Sprintf("%s: %d row(s) do not match their vectors", vector.CodesPath(ix.vectorsPath()), n), nil
	}
	return "", nil
}

// RewriteVectorCodes makes vectors.i8 anew from vectors.f32 (doctor's
// repair for a problem VectorCodesProblem found).
func (ix *Index) RewriteVectorCodes(ctx context.Context) error {
	if ix.opts.embedder == nil {
		return nil
	}
	return ix.rewriteCodes()
}
