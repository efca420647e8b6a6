// Package vector owns the vector store: a flat little-endian file of
// (document key, embedding) rows with a header naming the embedder, read
// through a read-only memory map, and an exact top-k scan over it that
// hands the pages it has scored back to the page cache. Beside it, a codes
// file holds every row quantized to int8 (codes.go), which the scan reads
// first, rescoring only the candidates it cannot rule out from the floats
// (searchcodes.go), with the same result.
//
// A rewrite is a new file renamed over the old one, so readers holding
// the old mapping stay valid; in place, Patch only appends rows and
// zeroes removed ones, under a file lock readers take shared. It never
// computes embeddings.
package vector
