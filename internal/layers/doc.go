// Package layers keeps the shape of the module: its test reads the allow-list
// table in ARCHITECTURE.md (§2) and fails when a package imports a project
// package its row does not name. The check parses import blocks only, so it
// needs no build and sees every file whatever its build tags.
package layers
