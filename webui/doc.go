// Package webui is `reflect ui`: a local web view of the knowledge base
// (search, one learning, the entity graph, activity) served on 127.0.0.1.
//
// Security model (docs/ui.md): every request needs the random token the
// server prints in its URL, exchanged on first use for an HttpOnly,
// SameSite=Strict cookie, because other local users can reach localhost
// ports; a Host header other than the listen address or localhost is
// refused (DNS rebinding); changes are POST only and carry a CSRF token;
// the Content-Security-Policy allows scripts from the server only, so
// learning text, which may hold anything, is escaped by html/template and
// could not run even if it were not.
//
// The package returns handlers and errors and prints nothing; the
// reflect-ui binary (cmd/reflect-ui) serves it.
package webui
