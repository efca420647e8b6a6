// Package security holds reflect's cross-cutting security regression tests
// (issue 13): secrets must not reach disk through any write path (hooks,
// armed files, the queue, logs, drain input and output, `reflect add`,
// ids and file names), and learning text must not be able to close the
// context block it is injected in. The package has no code of its own;
// the per-package tests (internal/redact, recall, store, cmd/reflect's
// security_*.txtar scripts) hold the unit-level cases.
package security
