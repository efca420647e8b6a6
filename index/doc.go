// Package index owns the derived search catalog under index/: a SQLite
// database (WAL) holding reflect's own BM25F postings, a trigram table for
// identifiers, paths and error codes, the entity graph, the vectors, and
// the content hashes that make reindexing incremental.
//
// Everything here can be rebuilt from documents/ at any time, so the index
// never holds the only copy of anything. It reads documents and never
// writes or deletes one: package knowledge does, through store, and then
// tells the index what changed (Change; internal/layers checks the rule).
// The index holds no second copy of what a hot path can do without: the
// markdown is the only copy of a learning's body (a snippet or an
// embedding reads it back: text.go). Each structure is kept for what it
// buys:
//
//   - docs: id, path, size/mtime/hash (an update skips unchanged files by
//     a stat and a hash), and the metadata a result shows and ranking
//     weighs (title, key insight, confidence, scope, project, tags,
//     updated, cites), so a search never opens a markdown file for them;
//     hold, helpful and feedback (schema 16) are the user's marks and
//     supersession as recall needs them: a held learning is never
//     injected, and the prompt hook reads no document to know it.
//     docs_tail indexes each id's part after its last '-' (1.5 MB at
//     100,000), so printing a result's short id reads the few ids that
//     share its tail instead of listing documents/ (shortids.go).
//   - postings + norms (postings.go): the only word index, gap- and
//     mask-encoded (one to three bytes an entry), keyed by chunk so that
//     removing a learning scans its chunk instead of keeping a copy of its
//     terms; postings_term holds the same rows keyed by term, so a search
//     reads a stem's chunks from adjacent leaves (51 MB at 100,000
//     learnings; a recalling prompt then takes a fifth less CPU and 12 to
//     21 MB less memory); norms keeps each learning's field lengths once,
//     not per term.
//     A search scores it chunk by chunk, skipping the learnings that
//     cannot reach its top k (prune.go).
//   - stats: field lengths per learning, summed into the corpus totals
//     after an update.
//   - tri: a trigram FTS5 table over the identifiers only (not the text),
//     so "ERR_SSL_PROTOCOL_ERROR" or "callback/cookie.go" match as
//     substrings, which word postings cannot do; its content table is read
//     by row for the trigram rerank.
//   - the entity graph (package graph) and vectors (vectors.go): the graph
//     and vector signals of fusion. The vectors table holds a model
//     embedder's floats, the copy vectors.f32 is exported from; for the
//     hash embedder it holds only which learnings have a vector (an empty
//     blob each), since its vectors are made again from the markdown at
//     no cost worth a second copy, and vectors.f32 is their only copy.
//   - commands: the keys of the shell commands each learning records as
//     failing ("go test", "npm ci"), keyed by command, so the pre-tool hook
//     finds the learnings about a command with one lookup (commands.go).
//   - docs_project: an index of docs by project and update time, for the
//     session-start briefing of a project's learnings.
//
// User text reaches FTS5 only after QuoteQuery has turned it into quoted
// terms: raw query syntax from a user or an agent never reaches SQLite.
package index
