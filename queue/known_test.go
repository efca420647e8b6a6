package queue

import (
	"errors"
	"testing"
)

func TestKnownAgreesWithEnqueue(t *testing.T) {
	t.Parallel()
	q := newTestQueue(t)
	dir := t.TempDir()
	pending := writeTranscript(t, dir, "pending.jsonl", "a\n")
	done := writeTranscript(t, dir, "done.jsonl", "bb\n")
	poisoned := writeTranscript(t, dir, "poisoned.jsonl", "ccc\n")
	fresh := writeTranscript(t, dir, "fresh.jsonl", "dddd\n")
	if ok, _, err := q.Enqueue(testRecord(pending, "s-pending")); !ok || err != nil {
		t.Fatal(ok, err)
	}
	for path, outcome := range map[string]string{done: "written 1", poisoned: OutcomePoisoned} {
		size, sum, err := HashFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := q.MarkProcessed(Processed{Path: path, Size: size, SHA256: sum, Outcome: outcome}); err != nil {
			t.Fatal(err)
		}
	}
	k, err := q.Known()
	if err != nil {
		t.Fatal(err)
	}
	if !k.Pending("s-pending", "/elsewhere") || !k.Pending("", pending) || k.Pending("s-other", fresh) {
		t.Error("Pending disagrees with the queue")
	}
	hash := func(path string) func() (string, error) {
		return func() (string, error) { _, s, err := HashFile(path); return s, err }
	}
	// Covered decides as Enqueue does: a poisoned entry covers its content.
	for path, want := range map[string]bool{done: true, poisoned: true, fresh: false} {
		got, err := k.Covered(path, int64(len(map[string]string{done: "bb\n", poisoned: "ccc\n", fresh: "dddd\n"}[path])), hash(path))
		if err != nil || got != want {
			t.Errorf("Covered(%s) = %v, %v; want %v", path, got, err, want)
		}
		_, reason, err := q.Enqueue(testRecord(path, ""))
		if err != nil || (reason == ReasonAlreadyReflected) != want {
			t.Errorf("Enqueue(%s): %q, %v; Known said covered=%v", path, reason, err, want)
		}
	}
	// Another size is new content: no hash is taken.
	if got, err := k.Covered(done, 99, func() (string, error) { return "", errors.New("hashed") }); got || err != nil {
		t.Errorf("another size: %v, %v", got, err)
	}
}
