package queue

import (
	"bytes"
	"fmt"
	"os"
	"testing"
)

// benchSetup builds the Stop-hook situation: a queue of 1,000 records for
// other sessions, a ledger of 1,000 other transcripts, and a 5 MB transcript
// that the ledger covers at its current size.
func benchSetup(b *testing.B) (*Queue, string) {
	b.Helper()
	q := newTestQueue(b)
	dir := b.TempDir()
	other := writeTranscript(b, dir, "other.jsonl", "x\n")
	var pending, ledger bytes.Buffer
	for i := range 1000 {
		r := testRecord(fmt.Sprintf("%s/other-%04d.jsonl", dir, i), fmt.Sprintf("other-%04d", i))
		r.ID = fmt.Sprintf("q-20261122T104200-%012x", i)
		r.QueuedAt = q.now().UTC()
		l, err := marshalLine(r)
		if err != nil {
			b.Fatal(err)
		}
		pending.Write(l)
		l, err = marshalLine(Processed{Path: other + fmt.Sprint(i), Size: 2, SHA256: "00", Outcome: "reflected", At: q.now()})
		if err != nil {
			b.Fatal(err)
		}
		ledger.Write(l)
	}
	if err := os.MkdirAll(q.dir, 0o700); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(q.pendingPath, pending.Bytes(), 0o600); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(q.processedPath, ledger.Bytes(), 0o600); err != nil {
		b.Fatal(err)
	}
	turn := `{"type":"assistant","message":{"content":"` + string(bytes.Repeat([]byte("z"), 1000)) + `"}}` + "\n"
	tr := writeTranscript(b, dir, "session.jsonl", string(bytes.Repeat([]byte(turn), 5<<20/len(turn))))
	markHashed(b, q, tr)
	return q, tr
}

// BenchmarkEnqueue measures the Stop-hook path. "covered-same-size" is the
// expensive skip: the ledger has the transcript at its current size, so
// Enqueue must hash 5 MB to confirm. "already-queued" is the common case
// (every Stop after the first of a session). "new-content" is a session
// that added turns since it was reflected: a stat and a size compare decide,
// and the record is appended.
func BenchmarkEnqueue(b *testing.B) {
	b.Run("covered-same-size", func(b *testing.B) {
		q, tr := benchSetup(b)
		for b.Loop() {
			if ok, reason, err := q.Enqueue(testRecord(tr, "session")); ok || reason != ReasonAlreadyReflected || err != nil {
				b.Fatalf("Enqueue = %v, %q, %v", ok, reason, err)
			}
		}
	})
	b.Run("already-queued", func(b *testing.B) {
		q, tr := benchSetup(b)
		if err := appendLine(tr, []byte("{}\n")); err != nil { // new turn
			b.Fatal(err)
		}
		mustEnqueue(b, q, testRecord(tr, "session"))
		for b.Loop() {
			if ok, reason, err := q.Enqueue(testRecord(tr, "session")); ok || reason != ReasonAlreadyQueued || err != nil {
				b.Fatalf("Enqueue = %v, %q, %v", ok, reason, err)
			}
		}
	})
	b.Run("new-content", func(b *testing.B) {
		q, tr := benchSetup(b)
		if err := appendLine(tr, []byte("{}\n")); err != nil {
			b.Fatal(err)
		}
		fi, err := os.Stat(q.pendingPath)
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			if ok, reason, err := q.Enqueue(testRecord(tr, "session")); !ok || err != nil {
				b.Fatalf("Enqueue = %v, %q, %v", ok, reason, err)
			}
			// Keep the queue at 1,000 records for the next round.
			b.StopTimer()
			if err := os.Truncate(q.pendingPath, fi.Size()); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
		}
	})
}
