// Package graph owns the entity graph of the search index: which entities
// (files, functions, tools, libraries, errors, config keys, concepts) each
// learning mentions, the relations between them, and their communities.
//
// It keeps four tables in the index's catalog (Schema): entities, mentions,
// relations and communities. Entities come from a learning's sidecar when it
// has one, and otherwise from Extract, a heuristic tuned for precision over
// recall: a wrong entity links unrelated learnings, a missing one only
// costs a little recall that BM25 usually covers. Rebuild groups entities
// into communities with gonum's Louvain at reindex time; Expand turns the
// entities named in a query into a ranked list of learnings for fusion;
// List and Related serve 'reflect graph' and 'reflect show'.
//
// Everything here is derived from documents/ and can be rebuilt at any
// time. The package never opens, creates or migrates the database itself,
// never commits or rolls back: the caller (package index) owns the
// connection and the transaction, and passes either in. It never touches
// the documents, the network or any table but its own.
package graph
