package index

import (
	"bytes"

	"github.com/reflectkb/reflect/store"
)

// Written is a document its writer (package knowledge) just put in place,
// as it wrote it: the bytes of the file and of its sidecar, and what they
// were made from. The index never takes the writer's word for what is on
// disk: it reads each file as always, and only when the bytes it read are
// the bytes written does it take the learning and sidecar instead of
// parsing them again. A file changed since (by hand, by sync) differs in
// its bytes and is parsed as any other.
type Written struct {
	Data        []byte          // the document's bytes
	Learning    *store.Learning // what Data was encoded from
	SidecarData []byte          // the sidecar's bytes; nil: none written
	Sidecar     *store.Sidecar  // what SidecarData was encoded from
}

// givenDocs are the documents a Change's writer handed over, by path.
type givenDocs map[string]*Written

// learning is the writer's learning for the file at path, when data, read
// from it, is what the writer wrote; a copy, as deriveRows redacts it.
func (g givenDocs) learning(path string, data []byte) *store.Learning {
	w := g[path]
	if w == nil || w.Learning == nil || !bytes.Equal(w.Data, data) {
		return nil
	}
	l := *w.Learning
	l.Path = path
	return &l
}

// sidecar is the writer's sidecar of the learning at path, when data, read
// from the sidecar's file, is what the writer wrote.
func (g givenDocs) sidecar(path string, data []byte) *store.Sidecar {
	w := g[path]
	if w == nil || w.Sidecar == nil || w.SidecarData == nil || !bytes.Equal(w.SidecarData, data) {
		return nil
	}
	sc := *w.Sidecar
	sc.Entities = append([]store.Entity(nil), sc.Entities...)
	sc.Relationships = append([]store.Relationship(nil), sc.Relationships...)
	return &sc
}
