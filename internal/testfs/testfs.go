// Package testfs holds the system calls tests use that only some systems
// have (named pipes, checking that a killed process is gone), so the tests
// that use them still compile (and go vet) on the others, where the call
// reports errors.ErrUnsupported or the test skips.
package testfs
