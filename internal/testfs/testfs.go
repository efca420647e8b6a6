// Package testfs holds the file-system calls tests use that only some
// systems have, so the tests that use them still compile (and go vet) on
// the others, where the call reports errors.ErrUnsupported and the test
// skips.
package testfs
