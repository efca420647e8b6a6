//go:build !sqlite_fts5

package fts5tag

// The compiler prints this constant in its error, which is the point: the
// build fails with the command to type instead.
const _ int = "reflect needs the build tag sqlite_fts5: go install -tags sqlite_fts5 github.com/reflectkb/reflect/cmd/reflect@latest (in a clone: make install)"
