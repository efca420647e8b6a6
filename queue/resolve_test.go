package queue

import (
	"errors"
	"strings"
	"testing"

	"github.com/reflectkb/reflect/internal/shortid"
)

func TestResolveShortIDs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	q, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	mustEnqueue(t, q, testRecord(writeTranscript(t, dir, "a.jsonl", "{}\n"), "a"))
	mustEnqueue(t, q, testRecord(writeTranscript(t, dir, "b.jsonl", "{}\n"), "b"))
	recs, _ := mustList(t, q)
	if len(recs) != 2 {
		t.Fatalf("queued %d", len(recs))
	}
	id := recs[0].ID
	tail := id[strings.LastIndexByte(id, '-')+1:]
	for _, ref := range []string{id, tail, tail[:8]} {
		if got, err := q.Resolve(ref); err != nil || got != id {
			t.Errorf("Resolve(%q) = %q, %v; want %q", ref, got, err, id)
		}
	}
	// Both ids start with q- and today's date.
	var ae *shortid.AmbiguousError
	if _, err := q.Resolve(id[:6]); !errors.As(err, &ae) || len(ae.Candidates) != 2 {
		t.Errorf("Resolve(%q) err = %v, want ambiguous between 2", id[:6], err)
	}
	if _, err := q.Resolve("zzzz"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Resolve(zzzz) err = %v, want ErrNotFound", err)
	}
	// Drop by short id through Resolve.
	got, _ := q.Resolve(tail)
	if err := q.Drop(got); err != nil {
		t.Fatal(err)
	}
	if recs, _ = mustList(t, q); len(recs) != 1 || recs[0].ID == id {
		t.Errorf("after drop: %v", recs)
	}
}
