package drain

import (
	"context"
	"testing"
	"time"

	"github.com/reflectkb/reflect/drain/writer"
	"github.com/reflectkb/reflect/queue"
	"github.com/reflectkb/reflect/store"
	"github.com/reflectkb/reflect/transcript"
)

var dt0 = time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)

// handPool is the learning the user wrote that poolDraft near-duplicates.
func handPool(t *testing.T, e *drainEnv) *store.Learning {
	t.Helper()
	l := &store.Learning{Title: poolDraft.Title, KeyInsight: "Put pgbouncer in transaction mode in front of Postgres when the workers exhaust max_connections.",
		Confidence: "high", Type: "mini", Scope: "global", Body: "## Solution\nWritten by hand.\n",
		Feedback: &store.Feedback{Helpful: 1}}
	l.FillDefaults(dt0)
	if _, err := e.openBase(t).Put(context.Background(), l, nil, dt0); err != nil {
		t.Fatal(err)
	}
	return l
}

// proposals returns the pending drafts that propose an update of id.
func proposals(t *testing.T, e *drainEnv, id string) []*store.Learning {
	t.Helper()
	pending, err := e.openBase(t).Pending(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var out []*store.Learning
	for _, l := range pending {
		if l.Updates == id {
			out = append(out, l)
		}
	}
	return out
}

// Under review, an LLM writer's near-duplicate of an active learning (one
// the user wrote or approved) leaves that learning as it is, still
// injected, and lands as a pending draft naming it; a second drain's
// rewording rewrites that draft rather than adding another. (On the old
// code the learning itself was rewritten and made pending.)
func TestDrainProposesUpdateOfActiveLearning(t *testing.T) {
	t.Parallel()
	e := newDrainEnv(t)
	hand := handPool(t, e)
	e.enqueue(t, "../transcript/testdata/claude-session.jsonl", queue.HarnessClaude, "s1")
	rep := e.run(t, Options{Writer: scriptedWriter{"claude", []writer.Draft{poolDraft}}})
	if len(rep.Entries) != 1 || len(rep.Entries[0].Written) != 1 {
		t.Fatalf("report: %+v", rep)
	}
	w := rep.Entries[0].Written[0]
	if w.ID == hand.ID || !w.Pending || w.Updates != hand.ID {
		t.Errorf("written %+v; want a pending draft of its own that updates %s", w, hand.ID)
	}
	got := e.read(t, hand.ID)
	if got.Pending() || got.Held() != "" || got.KeyInsight != hand.KeyInsight || got.Body != hand.Body {
		t.Errorf("the active learning changed: status %q, insight %q, body %q", got.Status, got.KeyInsight, got.Body)
	}
	if ps := proposals(t, e, hand.ID); len(ps) != 1 || ps[0].KeyInsight != poolDraft.KeyInsight {
		t.Fatalf("proposals: %+v", ps)
	}

	again := poolDraft
	again.KeyInsight = "Put pgbouncer in transaction mode in front of Postgres once workers exhaust max_connections."
	e.enqueue(t, "../transcript/testdata/codex-rollout.jsonl", queue.HarnessCodex, "s2")
	rep = e.run(t, Options{Writer: scriptedWriter{"claude", []writer.Draft{again}}})
	if len(rep.Entries) != 1 || len(rep.Entries[0].Written) != 1 || rep.Entries[0].Written[0].ID != w.ID {
		t.Errorf("second drain wrote %+v; want the proposal %s rewritten", rep.Entries[0].Written, w.ID)
	}
	ps := proposals(t, e, hand.ID)
	if len(ps) != 1 || ps[0].KeyInsight != again.KeyInsight {
		t.Fatalf("proposals after the second drain: %+v; want one, with the new insight", ps)
	}
	if docs := e.documents(t); len(docs) != 2 {
		t.Errorf("documents %q: want the learning and one proposal", docs)
	}

	// Approval applies it to the learning, which keeps what is the user's.
	if _, err := e.openBase(t).Approve(context.Background(), ps[0].ID); err != nil {
		t.Fatal(err)
	}
	got = e.read(t, hand.ID)
	if got.KeyInsight != again.KeyInsight || got.Pending() || got.Type != "mini" || got.Feedback == nil || got.Feedback.Helpful != 1 {
		t.Errorf("after approval: %+v", got)
	}
	if docs := e.documents(t); len(docs) != 1 {
		t.Errorf("documents after approval %q: want the learning alone", docs)
	}
}

// A writer's "update <id>" of an active learning is proposed the same way;
// of a pending draft it rewrites the draft, as before.
func TestDrainUpdateAnswerUnderReview(t *testing.T) {
	t.Parallel()
	e := newDrainEnv(t)
	hand := handPool(t, e)
	upd := writer.Draft{Title: "Pgbouncer saves a Postgres pool", KeyInsight: "Transaction pooling lets 500 workers share 20 connections.",
		Confidence: "high", Update: hand.ID}
	cands := []writer.Candidate{{ID: hand.ID, Title: hand.Title}}
	res, err := writeLearnings(context.Background(), e.openBase(t).Index(), &transcript.Condensed{}, []writer.Draft{upd}, queue.Record{}, dt0, cands, func(string) {}, draftOptions{pending: true})
	if err != nil || len(res.learnings) != 1 || res.learnings[0].Updates != hand.ID || res.learnings[0].ID == hand.ID {
		t.Fatalf("update answer: %+v, %v", res, err)
	}
	if got := e.read(t, hand.ID); got.Title != hand.Title || got.Pending() {
		t.Errorf("the active learning changed: %+v", got)
	}
	draft := res.learnings[0].ID
	// The writer answers update for the pending proposal itself: the
	// draft is rewritten and still proposes the same update.
	upd2 := upd
	upd2.KeyInsight, upd2.Update = "Transaction pooling lets 800 workers share 20 connections.", draft
	cands = append(cands, writer.Candidate{ID: draft, Title: upd.Title})
	res, err = writeLearnings(context.Background(), e.openBase(t).Index(), &transcript.Condensed{}, []writer.Draft{upd2}, queue.Record{}, dt0, cands, func(string) {}, draftOptions{pending: true})
	if err != nil || len(res.learnings) != 1 || res.learnings[0].ID != draft {
		t.Fatalf("update of the pending draft: %+v, %v", res, err)
	}
	if got := e.read(t, draft); got.KeyInsight != upd2.KeyInsight || got.Updates != hand.ID || !got.Pending() {
		t.Errorf("the pending draft after its update: insight %q, updates %q, status %q", got.KeyInsight, got.Updates, got.Status)
	}
}

// Without review (drain.review off) the writer's update rewrites the
// learning in place, as it always did.
func TestDrainUpdateWithoutReview(t *testing.T) {
	t.Parallel()
	e := newDrainEnv(t)
	hand := handPool(t, e)
	off := false
	e.enqueue(t, "../transcript/testdata/claude-session.jsonl", queue.HarnessClaude, "s1")
	rep := e.run(t, Options{Writer: scriptedWriter{"claude", []writer.Draft{poolDraft}}, Review: &off})
	if len(rep.Entries) != 1 || len(rep.Entries[0].Written) != 1 || rep.Entries[0].Written[0].ID != hand.ID {
		t.Fatalf("report: %+v", rep)
	}
	if got := e.read(t, hand.ID); got.KeyInsight != poolDraft.KeyInsight || got.Pending() {
		t.Errorf("without review: %+v", got)
	}
	if docs := e.documents(t); len(docs) != 1 {
		t.Errorf("documents %q", docs)
	}
}
