package main

import (
	"errors"
	"fmt"

	"github.com/reflectkb/reflect/internal/shortid"
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

// shortener returns a function giving each id its short form among the
// documents on disk (see shortid.Short); ids are shown in full when the
// directory cannot be read.
func (f *Factory) shortener() func(id string) string {
	full := func(id string) string { return id }
	c, err := f.Config()
	if err != nil {
		return full
	}
	ids, err := store.Open(c.DocumentsDir()).IDs()
	if err != nil {
		return full
	}
	return func(id string) string { return shortid.Short(id, ids, store.IDKind) }
}
