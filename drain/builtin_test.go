package drain

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reflectkb/reflect/drain/writer"
	"github.com/reflectkb/reflect/queue"
	"github.com/reflectkb/reflect/store"
)

// The builtin writer over the transcript fixtures.

func TestRunBuiltinClaudeFixture(t *testing.T) {
	t.Parallel()
	e := newDrainEnv(t)
	rec := e.enqueue(t, "../transcript/testdata/claude-session.jsonl", queue.HarnessClaude, "8f14e45f-ceea-467f-a8e0-2c1d1b1e6a01")
	size, sum, err := queue.HashFile(rec.TranscriptPath)
	if err != nil {
		t.Fatal(err)
	}
	e.setenv("REFLECT_WRITER", "builtin")

	rep := e.run(t, Options{})
	if !rep.Ran || rep.Reason != "" || rep.Writer != "builtin" || rep.WriterWhy != "builtin, set by env REFLECT_WRITER" {
		t.Fatalf("report: ran %v (%s), writer %s (%s)", rep.Ran, rep.Reason, rep.Writer, rep.WriterWhy)
	}
	if len(rep.Entries) != 1 {
		t.Fatalf("entries: %+v", rep.Entries)
	}
	en := rep.Entries[0]
	if en.ID != rec.ID || en.Outcome != OutcomeWritten || en.Error != "" || en.RawBytes != size || en.SentChars == 0 || en.Harness != "claude" {
		t.Fatalf("entry: %+v", en)
	}
	if rep.Waiting != 0 || rep.Today.Entries != 1 || rep.Today.USD != 0 {
		t.Errorf("waiting %d, today %+v", rep.Waiting, rep.Today)
	}

	// The SameSite fix and the --insecure correction, as documents.
	var sameSite, insecure string
	for _, id := range en.Learnings {
		l := e.read(t, id)
		text := l.Title + " " + l.KeyInsight
		switch {
		case strings.Contains(text, "SameSite=Lax"):
			sameSite = id
			if l.Source == nil || l.Source.Harness != "claude" || l.Source.SessionID != rec.SessionID || l.Source.Trigger != "stop" {
				t.Errorf("SameSite learning provenance: %+v", l.Source)
			}
			if len(l.Cites) != 1 || l.Cites[0].Path != "callback/cookie.go" {
				t.Errorf("SameSite cites: %+v", l.Cites)
			}
		case strings.Contains(text, "--insecure"):
			insecure = id
		}
	}
	if sameSite == "" || insecure == "" {
		t.Fatalf("learnings %q lack the SameSite fix or the --insecure correction", en.Learnings)
	}
	if got := e.documents(t); !equalSets(got, en.Learnings) {
		t.Errorf("documents %q, want exactly the learnings %q", got, en.Learnings)
	}
	for _, id := range en.Learnings {
		if _, err := os.Stat(filepath.Join(e.kb, "documents", id+".entities.yaml")); err != nil {
			t.Errorf("no sidecar for %s: %v", id, err)
		}
	}

	// Indexed: a reader finds them.
	if !hasResult(e.search(t, "SameSite"), sameSite) {
		t.Errorf("search SameSite does not find %s", sameSite)
	}
	if !hasResult(e.search(t, "insecure self-signed cert"), insecure) {
		t.Errorf("search insecure does not find %s", insecure)
	}

	// Acked: gone from the queue, in the ledger at the size and hash reflected.
	if recs := e.pending(t); len(recs) != 0 {
		t.Errorf("queue still holds %+v", recs)
	}
	led := e.processed(t)
	if len(led) != 1 || led[0].Path != rec.TranscriptPath || led[0].Size != size || led[0].SHA256 != sum ||
		led[0].Outcome != fmt.Sprintf("written %d", len(en.Learnings)) {
		t.Errorf("processed.jsonl: %+v", led)
	}
	if costs := e.costLines(t); len(costs) != 1 || costs[0].Entry != rec.ID || costs[0].Writer != "builtin" ||
		costs[0].Outcome != OutcomeWritten || costs[0].Learnings != len(en.Learnings) || costs[0].CostUSD != 0 {
		t.Errorf("drain-cost.jsonl: %+v", costs)
	}
	last, err := LastRun(e.state)
	if err != nil || last == nil || !last.Ran || len(last.Entries) != 1 || last.Entries[0].ID != rec.ID ||
		last.Entries[0].Outcome != OutcomeWritten || last.Finished.IsZero() {
		t.Errorf("last-drain.json: %+v, %v", last, err)
	}
	if log := e.lines(t, "drain.log"); len(log) != 1 || !strings.Contains(log[0], rec.ID) || !strings.Contains(log[0], "outcome=written") {
		t.Errorf("drain.log: %q", log)
	}
	if _, err := os.Stat(filepath.Join(e.state, "drain.pid")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("drain.pid left behind: %v", err)
	}
	// The transcript is queued no more: its content is covered.
	if queued, reason, err := e.queue(t).Enqueue(queue.Record{TranscriptPath: rec.TranscriptPath, SessionID: rec.SessionID,
		Trigger: queue.TriggerSessionEnd, Harness: queue.HarnessClaude}); queued || reason != queue.ReasonAlreadyReflected || err != nil {
		t.Errorf("Enqueue after the drain = %v, %q, %v; want %q", queued, reason, err, queue.ReasonAlreadyReflected)
	}

	assertNoSecrets(t, e.state, e.kb)
}

func TestRunBuiltinCodexFixture(t *testing.T) {
	t.Parallel()
	e := newDrainEnv(t)
	rec := e.enqueue(t, "../transcript/testdata/codex-rollout.jsonl", queue.HarnessCodex, "019aad50-a7e6-7422-b7a8-0b384290624f")
	rep := e.run(t, Options{Writer: writer.Builtin{}, WriterWhy: "test"})
	if !rep.Ran || len(rep.Entries) != 1 {
		t.Fatalf("report: %+v", rep)
	}
	en := rep.Entries[0]
	if en.Outcome != OutcomeWritten || len(en.Learnings) != 1 || en.Harness != "codex" {
		t.Fatalf("entry: %+v", en)
	}
	l := e.read(t, en.Learnings[0])
	if !strings.Contains(l.Title+l.KeyInsight, "inject a clock") || l.Source.Harness != "codex" ||
		len(l.Cites) != 1 || l.Cites[0].Path != "refresh/token.go" {
		t.Errorf("learning: %+v", l)
	}
	if !hasResult(e.search(t, "inject clock time.Now"), l.ID) {
		t.Errorf("search does not find %s", l.ID)
	}
	if recs := e.pending(t); len(recs) != 0 {
		t.Errorf("queue still holds %+v", recs)
	}
	if led := e.processed(t); len(led) != 1 || led[0].Path != rec.TranscriptPath || led[0].Outcome != "written 1" {
		t.Errorf("processed.jsonl: %+v", led)
	}
	if costs := e.costLines(t); len(costs) != 1 || costs[0].Outcome != OutcomeWritten {
		t.Errorf("drain-cost.jsonl: %+v", costs)
	}
	if last, err := LastRun(e.state); err != nil || last == nil || len(last.Entries) != 1 {
		t.Errorf("last-drain.json: %+v, %v", last, err)
	}
	assertNoSecrets(t, e.state, e.kb)
}

// A secret a writer echoes (in any field, in a form the redactor knows:
// a labelled KEY=value or a vendor key shape) never reaches disk either.
// A bare 40-character AWS secret with no label cannot be told from any
// other base64 text; the condenser redacts it where it has its label, so
// a writer never sees it bare.
func TestRunRedactsWriterOutput(t *testing.T) {
	t.Parallel()
	e := newDrainEnv(t)
	e.enqueue(t, "../transcript/testdata/claude-session.jsonl", queue.HarnessClaude, "s-leak")
	const id, secret = "AKIAIOSFODNN7EXAMPLE", "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
	leak := writer.Draft{
		Title:      "AWS key " + id + " must stay out of tests",
		KeyInsight: "The env had " + secret + " in it.",
		Problem:    "export AWS_ACCESS_KEY_ID=" + id, Solution: "unset " + secret,
		Category: id, Tags: []string{id}, Symptoms: []string{secret}, Questions: []string{"why is " + secret + " refused?"},
		Entities:  []store.Entity{{Name: id, Type: "config", Description: "set with " + secret}},
		Relations: []store.Relationship{{Source: id, Target: "env", Type: "configured_in", Description: secret, Strength: 3}},
	}
	rep := e.run(t, Options{Writer: &fixedWriter{drafts: []writer.Draft{leak}}})
	if len(rep.Entries) != 1 || rep.Entries[0].Outcome != OutcomeWritten {
		t.Fatalf("entries: %+v", rep.Entries)
	}
	assertNoSecrets(t, e.state, e.kb)
}
