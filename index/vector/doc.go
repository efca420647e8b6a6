// Package vector owns the vector store: a flat little-endian file of
// (document key, embedding) rows with a header naming the embedder, read
// through a read-only memory map; an exact top-k scan over it; and an
// optional HNSW tier that is only trusted after it proves its recall
// against the exact scan.
//
// It never modifies a vector file in place (a new file is written and
// renamed over the old one, so readers holding the old mapping stay valid)
// and never computes embeddings. Searcher never answers from an HNSW graph
// that has not passed the recall self-check.
package vector
