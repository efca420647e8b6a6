// Package knowledge is the knowledge base's domain: the operations that change
// learnings — put (add or update), forget, the near-duplicate check that
// keeps a lesson from being written twice, the fold of near-duplicates a
// sync brought in, edit (a whole document checked before it is written),
// update (a patch of the fields given), marks (feedback counted in the
// document), the drainer's signals (confirmed, refuted, stale; signals.go)
// and supersession (both ends linked in one index change). The
// operations to come (review, import) belong here too.
//
// The markdown under documents/ is the source of truth. Base writes and
// deletes documents through package store, then tells the index what
// changed (index.Change), so the file and the index change together. The
// index is a cache that reads documents and never writes or deletes one
// (ARCHITECTURE §2; internal/layers checks it).
package knowledge
