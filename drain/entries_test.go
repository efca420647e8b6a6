package drain

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/reflectkb/reflect/drain/writer"
	"github.com/reflectkb/reflect/queue"
	"github.com/reflectkb/reflect/transcript"
)

// The life of a queue entry through a drain: locked out, nothing to write,
// deleted or growing transcripts, requeued, timed.

// Another drain holding drain.lock makes Run return at once, untouched.
func TestRunLockedReportsHolder(t *testing.T) {
	t.Parallel()
	e := newDrainEnv(t)
	e.enqueue(t, "../transcript/testdata/claude-session.jsonl", queue.HarnessClaude, "s-1")
	entered, release := make(chan struct{}), make(chan struct{})
	w := &blockingWriter{entered: entered, release: release}
	done := make(chan *Report)
	c := e.config(t)
	go func() {
		rep, _ := Run(context.Background(), withConfig(c, Options{Writer: w}))
		done <- rep
	}()
	<-entered
	pid := strings.TrimSpace(readRecorded(t, e.state, "drain.pid"))
	if pid != strconv.Itoa(os.Getpid()) {
		t.Errorf("drain.pid = %q", pid)
	}
	rep := e.run(t, Options{Writer: &fixedWriter{}})
	if rep.Ran || rep.Reason != "another drain is running (pid "+pid+")" || len(rep.Entries) != 0 {
		t.Errorf("second drain: %+v", rep)
	}
	close(release)
	if first := <-done; first == nil || len(first.Entries) != 1 || first.Entries[0].Outcome != OutcomeWritten {
		t.Errorf("first drain: %+v", first)
	}
}

type blockingWriter struct{ entered, release chan struct{} }

func (*blockingWriter) Name() string { return "blocking" }

func (w *blockingWriter) Write(ctx context.Context, c *transcript.Condensed) (*writer.Output, error) {
	close(w.entered)
	<-w.release
	return &writer.Output{Learnings: fixedDrafts[:1]}, nil
}

// An empty writer answer is "nothing": acked, counted, no documents.
func TestRunNothingToWrite(t *testing.T) {
	t.Parallel()
	e := newDrainEnv(t)
	rec := e.enqueue(t, "../transcript/testdata/codex-rollout.jsonl", queue.HarnessCodex, "s-none")
	w := &fixedWriter{}
	rep := e.run(t, Options{Writer: w})
	if len(rep.Entries) != 1 || rep.Entries[0].Outcome != OutcomeNothing || w.calls != 1 {
		t.Fatalf("entries %+v, calls %d", rep.Entries, w.calls)
	}
	if len(e.pending(t)) != 0 || len(e.documents(t)) != 0 {
		t.Errorf("queue %+v, documents %q", e.pending(t), e.documents(t))
	}
	if led := e.processed(t); len(led) != 1 || led[0].Path != rec.TranscriptPath || led[0].Outcome != "nothing 0" {
		t.Errorf("processed.jsonl: %+v", led)
	}
	if rep.Today.Entries != 1 {
		t.Errorf("today %+v", rep.Today)
	}
}

// Guards a fixed bug: an entry whose transcript was deleted is never removed from the
// queue. entry.go acks it with a ledger entry that has no sha256, which
// Ack refuses ("path and sha256 are required"); the ack error is then
// overwritten by "transcript no longer exists". Every drain claims the
// entry again, and max_per_run such entries at the head of the queue block
// everything behind them forever.
func TestRunDropsEntryOfDeletedTranscript(t *testing.T) {
	t.Parallel()
	e := newDrainEnv(t)
	e.setenv("REFLECT_DRAIN_MAX_PER_RUN", "2")
	for i := 0; i < 2; i++ {
		gone := e.enqueue(t, "../transcript/testdata/claude-session.jsonl", queue.HarnessClaude, fmt.Sprintf("s-gone-%d", i))
		if err := os.Remove(gone.TranscriptPath); err != nil {
			t.Fatal(err)
		}
	}
	live := e.enqueue(t, "../transcript/testdata/codex-rollout.jsonl", queue.HarnessCodex, "s-live")
	w := &fixedWriter{drafts: fixedDrafts}
	rep := e.run(t, Options{Writer: w})
	if len(rep.Entries) != 2 || rep.Entries[0].Outcome != OutcomeSkipped || rep.Entries[1].Outcome != OutcomeSkipped || w.calls != 0 {
		t.Fatalf("first drain: %+v", rep.Entries)
	}
	if recs := e.pending(t); len(recs) != 1 || recs[0].ID != live.ID {
		t.Errorf("after the first drain the queue holds %d entries, want only the live one: %+v", len(recs), recs)
	}
	rep = e.run(t, Options{Writer: w})
	if len(rep.Entries) != 1 || rep.Entries[0].ID != live.ID || rep.Entries[0].Outcome != OutcomeWritten {
		t.Errorf("second drain: %+v; the live entry behind the deleted ones is never reached", rep.Entries)
	}
}

// growingWriter appends a turn to the transcript while it "thinks", as a
// live session does between Stop hooks.
type growingWriter struct {
	writer.Writer
	path string
}

func (g *growingWriter) Write(ctx context.Context, c *transcript.Condensed) (*writer.Output, error) {
	f, err := os.OpenFile(g.path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return nil, err
	}
	fmt.Fprintln(f, cUser(`"one more thing: also log the callback latency"`))
	f.Close()
	return g.Writer.Write(ctx, c)
}

// Turns added while the writer ran are not lost: the ack re-queues the
// transcript, and reflecting it again updates the same learnings.
func TestRunTranscriptGrowsDuringWrite(t *testing.T) {
	t.Parallel()
	e := newDrainEnv(t)
	rec := e.enqueue(t, "../transcript/testdata/claude-session.jsonl", queue.HarnessClaude, "s-live")
	before, _, err := queue.HashFile(rec.TranscriptPath)
	if err != nil {
		t.Fatal(err)
	}
	rep := e.run(t, Options{Writer: &growingWriter{Writer: writer.Builtin{}, path: rec.TranscriptPath}})
	if len(rep.Entries) != 1 || rep.Entries[0].Outcome != OutcomeWritten {
		t.Fatalf("entries: %+v", rep.Entries)
	}
	ids := rep.Entries[0].Learnings
	if led := e.processed(t); len(led) != 1 || led[0].Size != before {
		t.Errorf("the ledger must cover what was reflected (%d bytes), not what is on disk now: %+v", before, led)
	}
	recs := e.pending(t)
	if len(recs) != 1 || recs[0].ID == rec.ID || recs[0].TranscriptPath != rec.TranscriptPath || recs[0].Attempts != 0 || rep.Waiting != 1 {
		t.Fatalf("queue after the transcript grew: %+v (waiting %d); want a fresh record", recs, rep.Waiting)
	}
	rep = e.run(t, Options{Writer: writer.Builtin{}})
	if len(rep.Entries) != 1 || rep.Entries[0].Outcome != OutcomeWritten || !equalSets(rep.Entries[0].Learnings, ids) {
		t.Fatalf("second drain: %+v; want the same learnings %q updated", rep.Entries, ids)
	}
	if docs := e.documents(t); !equalSets(docs, ids) {
		t.Errorf("documents %q, want %q", docs, ids)
	}
	if len(e.pending(t)) != 0 || len(e.processed(t)) != 2 {
		t.Errorf("queue %+v, ledger %+v", e.pending(t), e.processed(t))
	}
}

// The transcript of one of reflect's own writer runs is acked as skipped:
// no writer run, no budget spent, nothing written.
func TestRunSkipsWriterTranscript(t *testing.T) {
	t.Parallel()
	e := newDrainEnv(t)
	prompt := writer.Prompt(&transcript.Condensed{Harness: "claude", Text: "USER: fix the login\n"})
	data := lines(
		`{"type":"user","sessionId":"w1","cwd":"/tmp/somewhere","message":{"role":"user","content":`+quote(prompt)+`}}`,
		cAsst(`[{"type":"text","text":"{\"learnings\":[]}"}]`),
	)
	rec := e.enqueueData(t, []byte(data), queue.HarnessClaude, "s-writer")
	w := &fixedWriter{drafts: fixedDrafts}
	rep := e.run(t, Options{Writer: w})
	if len(rep.Entries) != 1 || rep.Entries[0].Outcome != OutcomeSkipped || w.calls != 0 || rep.Today.Entries != 0 {
		t.Fatalf("entries %+v, calls %d, today %+v", rep.Entries, w.calls, rep.Today)
	}
	if led := e.processed(t); len(led) != 1 || led[0].Path != rec.TranscriptPath || led[0].Outcome != "skipped: "+transcript.SkipWriterRun {
		t.Errorf("processed.jsonl: %+v", led)
	}
	if len(e.pending(t)) != 0 || len(e.documents(t)) != 0 || len(e.costLines(t)) != 0 {
		t.Errorf("queue %+v, documents %q, cost %+v", e.pending(t), e.documents(t), e.costLines(t))
	}
}

// `reflect queue retry ID` on an entry waiting for its backoff makes it due
// at once, attempts kept.
func TestRunRequeueWaitingEntry(t *testing.T) {
	t.Parallel()
	e, rep := failingRun(t, fakeGarbage, "claude printed no JSON result")
	id := rep.Entries[0].ID
	if err := e.queue(t).Requeue(id); err != nil {
		t.Fatal(err)
	}
	writeScript(t, filepath.Join(filepath.Dir(mustLook(t, e, "claude")), "claude"), fakeSuccess)
	again := e.run(t, Options{})
	if len(again.Entries) != 1 || again.Entries[0].ID != id || again.Entries[0].Outcome != OutcomeWritten {
		t.Fatalf("re-armed entry: %+v", again.Entries)
	}
	if len(e.pending(t)) != 0 || len(e.documents(t)) != 1 {
		t.Errorf("queue %+v, documents %q", e.pending(t), e.documents(t))
	}
}

// The time a writer takes reaches drain-cost.jsonl, last-drain.json and
// drain.log: it used to read 0 whatever the writer took.
func TestRunRecordsEntryDuration(t *testing.T) {
	t.Parallel()
	e := newDrainEnv(t)
	e.enqueue(t, "../transcript/testdata/claude-session.jsonl", queue.HarnessClaude, "s-slow")
	const delay = 60 * time.Millisecond
	rep := e.run(t, Options{Writer: &fixedWriter{drafts: fixedDrafts[:1], delay: delay}})
	if len(rep.Entries) != 1 || rep.Entries[0].DurationMS < delay.Milliseconds() {
		t.Fatalf("entries %+v, want a duration of at least %v", rep.Entries, delay)
	}
	if costs := e.costLines(t); len(costs) != 1 || costs[0].DurationMS < delay.Milliseconds() {
		t.Errorf("drain-cost.jsonl: %+v", costs)
	}
	last, err := LastRun(e.state)
	if err != nil || last == nil || len(last.Entries) != 1 || last.Entries[0].DurationMS < delay.Milliseconds() {
		t.Errorf("last-drain.json: %+v, %v", last, err)
	}
	logLines := e.lines(t, "drain.log")
	if len(logLines) != 1 || strings.Contains(logLines[0], " ms=0") {
		t.Errorf("drain.log: %q", logLines)
	}
}
