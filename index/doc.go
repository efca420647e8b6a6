// Package index owns the derived search catalog under index/: a SQLite
// database (WAL) with an FTS5 table weighted per field (BM25F), a trigram
// table for identifiers, paths and error codes, and the content hashes that
// make reindexing incremental.
//
// Everything here can be rebuilt from documents/ at any time, so the index
// never holds the only copy of anything. User text reaches FTS5 only after
// QuoteQuery has turned it into quoted terms: raw query syntax from a user
// or an agent never reaches SQLite.
package index
