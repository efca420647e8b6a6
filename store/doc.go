// Package store owns learning documents and their entity sidecars on disk:
// parsing (goldmark + YAML frontmatter), validation, ids and slugs, and
// atomic writes under documents/.
//
// It never touches the index or the network, and it never drops fields it
// does not know: unknown frontmatter keys survive a read-modify-write. A
// malformed document is reported as a *DocError carrying its path and the
// reason; callers skip it and go on.
package store
