// Package storetest builds, for the tests of every surface that reads
// learning files (the index, show, the MCP server, the web view), a
// documents/ directory holding what a teammate's push or a local tool
// could put there under learnings' names.
package storetest

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/reflectkb/reflect/internal/testfs"
	"testing"
	"time"

	"github.com/reflectkb/reflect/store"
)

// Secret is what the file behind the link holds: a surface that shows it
// followed the link.
const Secret = "SECRETKEYMATERIAL"

// Hostile are the ids of the hostile entries Place made.
type Hostile struct {
	// Link is documents/<id>.md -> a file outside that parses as a
	// learning with that id (a private key is read the same way).
	Link string
	// DevZero is a link to /dev/zero: reading it never ends.
	DevZero string
	// FIFO is a named pipe: opening it waits for a writer.
	FIFO string
	// Oversize is a regular learning over store.MaxDocumentSize.
	Oversize string
}

// IDs lists the four.
func (h Hostile) IDs() []string { return []string{h.Link, h.DevZero, h.FIFO, h.Oversize} }

// Doc is a learning file of id holding body.
func Doc(id, body string) string {
	return "---\nid: " + id + "\ntitle: Deploy notes\ntype: learning\nconfidence: high\nkey_insight: deploy notes for the cluster\ncreated: 2026-11-22T11:05:00Z\n---\n" + body
}

// Place makes the hostile entries in docs (created if missing); tag, four
// hex digits, keeps the ids of two calls apart.
func Place(t testing.TB, docs, tag string) Hostile {
	t.Helper()
	if err := os.MkdirAll(docs, 0o755); err != nil {
		t.Fatal(err)
	}
	h := Hostile{Link: "lrn-deploy-notes-" + tag + "a1", DevZero: "lrn-deploy-zero-" + tag + "b2",
		FIFO: "lrn-deploy-fifo-" + tag + "c3", Oversize: "lrn-deploy-big-" + tag + "d4"}
	path := func(id string) string { return filepath.Join(docs, id+".md") }
	outside := filepath.Join(filepath.Dir(docs), "id_rsa_"+tag)
	key := "-----BEGIN OPENSSH PRIVATE KEY-----\n" + Secret + "\n-----END OPENSSH PRIVATE KEY-----\n"
	if err := os.WriteFile(outside, []byte(Doc(h.Link, key)), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, path(h.Link)); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", path(h.DevZero)); err != nil {
		t.Fatal(err)
	}
	if err := testfs.Mkfifo(path(h.FIFO)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path(h.Oversize), []byte(Doc(h.Oversize, strings.Repeat("x", store.MaxDocumentSize))), 0o644); err != nil {
		t.Fatal(err)
	}
	return h
}

// Promptly runs fn and fails the test when it has not returned within a
// generous minute: a FIFO or /dev/zero must be refused, not waited on or
// read without end. It says nothing about speed.
func Promptly(t testing.TB, what string, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); fn() }()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatalf("%s did not return: it blocked on the file or read it without bound", what)
	}
}
