package index

import "context"

// Change is a change to documents/ that its caller (package knowledge,
// which writes and deletes documents; the index only reads them) is about
// to make. BeginChange, taken before the first write, notes what documents/
// holds (dirprobe.go), so that Commit, after the writes, indexes exactly
// those documents (a targeted update, targeted.go) and can still show that
// nothing else changed in documents/ meanwhile.
type Change struct {
	ix    *Index
	pre   dirProbe
	given givenDocs
}

// BeginChange is called before writing or deleting the documents (and
// sidecars) of ids. Close the Change when done with it.
func (ix *Index) BeginChange(ids ...string) *Change {
	return &Change{ix: ix, pre: ix.probeDocs(ix.ownNames(ids))}
}

// Commit brings the index in line with the documents of ids, which the
// caller wrote or deleted since BeginChange; ids may be fewer than
// BeginChange's (a forget that stopped part way).
func (c *Change) Commit(ctx context.Context, ids ...string) error {
	return c.ix.updateDocs(ctx, ids, c.pre, c.given)
}

// Wrote hands Commit the document of id as its writer wrote it, so that
// Commit need not parse again what is unchanged on disk (written.go).
func (c *Change) Wrote(id string, w *Written) {
	if c.given == nil {
		c.given = givenDocs{}
	}
	c.given[c.ix.store.Path(id)] = w
}

// Close releases what BeginChange holds (a watch on documents/).
func (c *Change) Close() { c.pre.close() }
