package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/reflectkb/reflect/index"
	"github.com/reflectkb/reflect/store"
)

// resolveLearning turns what the user typed (a full id, a unique prefix, or
// the 6-hex tail) into a learning id, with the errors worded for the
// command line.
func (f *Factory) resolveLearning(ref string) (string, error) {
	c, err := f.Config()
	if err != nil {
		return "", err
	}
	id, err := store.Open(c.DocumentsDir()).Resolve(ref)
	return id, learningRefError(ref, err)
}

func learningRefError(ref string, err error) error {
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("no learning %q; find ids with 'reflect list' or 'reflect search'", ref)
	}
	return err // nil, or an ambiguity listing the candidates
}

// shortener returns a function giving each of ids its short form (see
// index.ShortIDs: a few index lookups per id, however many learnings
// there are); ids are shown in full when the catalog cannot be read.
func shortener(ctx context.Context, ix *index.Index, ids []string) func(id string) string {
	short, err := ix.ShortIDs(ctx, ids)
	return func(id string) string {
		if s, ok := short[id]; ok && err == nil {
			return s
		}
		return id
	}
}
