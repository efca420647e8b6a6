package index

import (
	"strings"

	"github.com/reflectkb/reflect/store"
)

// indexedFields are the texts of a learning that reflect indexes, in
// field order (title, key insight, tags, body; see fieldWeights). The
// project name is searchable with the tags and symptoms, so a session start
// in a repository finds that project's learnings by its name; so are the
// questions a writer says the learning answers (store.Learning.Questions).
//
// The catalog keeps none of this text beyond the title and key insight a
// search result shows: the markdown is the only copy, and a reader that
// needs a body (a snippet, an embedding) reads it back with readFields.
func indexedFields(l *store.Learning) [numFields]string {
	tags := strings.Join(append(append(append(append([]string{}, l.Tags...), l.Symptoms...), l.Questions...), l.Project), " ; ")
	return [numFields]string{l.Title, l.KeyInsight, tags, l.PlainBody()}
}

// readFields reads the learning at path and returns its indexed fields.
// The file may have changed since it was indexed; the next update sees
// that (its size, mtime or hash moved) and indexes it again.
func readFields(path string) ([numFields]string, error) {
	l, err := store.ReadFile(path)
	if err != nil {
		return [numFields]string{}, err
	}
	// Redacted as when it was indexed (deriveRows): its vector, and the
	// snippets searches print, carry no secret a hand edit put in the file.
	l.Redact() // the id may move; only the fields are used
	return indexedFields(l), nil
}

// QuotableFields returns the texts of r's learning that a prompt about it
// may repeat word for word — its title, key insight, symptoms (an error
// message as it was seen) and the questions it answers (in the words a user
// types) — redacted as they were indexed, and whether it has questions;
// nil when the file cannot be read. The prompt gate reads them for its best
// hit only.
func QuotableFields(r Result) (fields []string, questions bool) {
	l, err := store.ReadFile(r.Path)
	if err != nil {
		return nil, false
	}
	l.Redact()
	return append(append([]string{l.Title, l.KeyInsight}, l.Symptoms...), l.Questions...), len(l.Questions) > 0
}
