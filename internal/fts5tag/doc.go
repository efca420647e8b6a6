// Package fts5tag stops a build without the sqlite_fts5 tag at compile time.
//
// go-sqlite3 compiles SQLite without FTS5 unless the tag is set, and every
// reflect command needs FTS5: a tagless 'go build' or 'go install …@latest'
// would otherwise produce a binary whose every command fails with "no such
// module: fts5". The index package imports this one, so such a build fails
// instead, within a second and before SQLite's C code is compiled, with an
// error that says what to type.
package fts5tag
