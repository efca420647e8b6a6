package knowledge

import (
	"github.com/reflectkb/reflect/index"
	"github.com/reflectkb/reflect/store"
)

// Base is the knowledge base: the documents of an index's store, written
// through that store and then indexed by that index.
type Base struct {
	ix *index.Index
	st *store.Store
}

// New returns the knowledge base whose documents ix covers. It holds no
// resource of its own: closing ix is the caller's.
func New(ix *index.Index) *Base {
	return &Base{ix: ix, st: ix.Store()}
}

// Store is the documents store: read through it; change documents through
// the Base's operations, which keep the index in step.
func (k *Base) Store() *store.Store { return k.st }

// Index is the index that caches the documents.
func (k *Base) Index() *index.Index { return k.ix }
