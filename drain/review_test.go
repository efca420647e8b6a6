package drain

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/reflectkb/reflect/drain/writer"
	"github.com/reflectkb/reflect/index"
	"github.com/reflectkb/reflect/knowledge"
	"github.com/reflectkb/reflect/queue"
	"github.com/reflectkb/reflect/transcript"
)

// scriptedWriter answers every transcript with the same drafts, under the
// name of a configured writer.
type scriptedWriter struct {
	name   string
	drafts []writer.Draft
}

func (w scriptedWriter) Name() string { return w.name }
func (w scriptedWriter) Write(context.Context, *transcript.Condensed) (*writer.Output, error) {
	return &writer.Output{Learnings: w.drafts}, nil
}

var poolDraft = writer.Draft{Title: "Postgres pool exhaustion needs pgbouncer",
	KeyInsight: "Put pgbouncer in transaction mode in front of Postgres when workers exhaust max_connections.", Confidence: "high"}

func (e *drainEnv) openBase(t testing.TB) *knowledge.Base {
	t.Helper()
	ix, err := index.Open(context.Background(), filepath.Join(e.kb, "documents"), filepath.Join(e.kb, "index"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	return knowledge.New(ix)
}

// What an LLM writer drafts lands pending; what the builtin writer writes
// is active, unless drain.review is set either way.
func TestDrainReviewPendingByWriter(t *testing.T) {
	t.Parallel()
	on, off := true, false
	for _, c := range []struct {
		writer  string
		review  *bool
		pending bool
	}{
		{"claude", nil, true}, {"command", nil, true}, {"builtin", nil, false},
		{"builtin", &on, true}, {"claude", &off, false},
	} {
		t.Run(fmt.Sprintf("%s-%v", c.writer, c.review != nil), func(t *testing.T) {
			e := newDrainEnv(t)
			e.enqueue(t, "../transcript/testdata/claude-session.jsonl", queue.HarnessClaude, "s1")
			rep := e.run(t, Options{Writer: scriptedWriter{c.writer, []writer.Draft{poolDraft}}, Review: c.review})
			if len(rep.Entries) != 1 || len(rep.Entries[0].Learnings) != 1 {
				t.Fatalf("report: %+v", rep)
			}
			l := e.read(t, rep.Entries[0].Learnings[0])
			if l.Pending() != c.pending || rep.Review != c.pending || rep.Entries[0].Written[0].Pending != c.pending {
				t.Errorf("status %q, report review %v; want pending %v", l.Status, rep.Review, c.pending)
			}
		})
	}
}

// A rejected draft's content is not written again by a later drain, even
// reworded in case and punctuation only; other drafts of the same entry are.
func TestDrainSkipsRejectedDraft(t *testing.T) {
	t.Parallel()
	e := newDrainEnv(t)
	e.enqueue(t, "../transcript/testdata/claude-session.jsonl", queue.HarnessClaude, "s1")
	rep := e.run(t, Options{Writer: scriptedWriter{"claude", []writer.Draft{poolDraft}}})
	id := rep.Entries[0].Learnings[0]
	k := e.openBase(t)
	if _, err := k.Reject(context.Background(), knowledge.NewRejections(e.state), id); err != nil {
		t.Fatal(err)
	}
	if docs := e.documents(t); len(docs) != 0 {
		t.Fatalf("after reject: %q", docs)
	}
	again := poolDraft
	again.Title = "postgres POOL exhaustion needs PgBouncer!"
	other := writer.Draft{Title: "Vite dev server must bind 0.0.0.0 inside Docker", KeyInsight: "Run vite --host 0.0.0.0 in a container.", Confidence: "medium"}
	e.enqueue(t, "../transcript/testdata/codex-rollout.jsonl", queue.HarnessCodex, "s2")
	rep = e.run(t, Options{Writer: scriptedWriter{"claude", []writer.Draft{again, other}}})
	en := rep.Entries[0]
	if en.Refused != 1 || len(en.Learnings) != 1 || e.read(t, en.Learnings[0]).Title != other.Title {
		t.Errorf("second drain: refused %d, wrote %q; want the rejected draft refused and the other written", en.Refused, en.Learnings)
	}
}

// A drain writing drafts while a review approves them loses none: every
// draft written is on disk at the end, with the content last written, and
// each approval holds or was superseded by a newer pending write.
func TestReviewWhileDrainWritesLosesNothing(t *testing.T) {
	t.Parallel()
	e := newDrainEnv(t)
	const n = 30
	drafts := make([]writer.Draft, n)
	for i := range drafts {
		drafts[i] = writer.Draft{Title: fmt.Sprintf("Service %03d needs flag zeta%03d", i, i),
			KeyInsight: fmt.Sprintf("Start service%03d with --zeta%03d or it exits at boot.", i, i), Confidence: "medium"}
	}
	drainBase, reviewBase := e.openBase(t), e.openBase(t)
	ctx := context.Background()
	var mu sync.Mutex
	var written []string
	count := func() int { mu.Lock(); defer mu.Unlock(); return len(written) }
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i, d := range drafts {
			// Each draft twice: the second a rewrite of the same
			// learning (a near-duplicate update) racing an approval.
			for round := 0; round < 2; round++ {
				d.Tags = []string{fmt.Sprintf("round%d", round)}
				res, err := writeLearnings(ctx, drainBase.Index(), &transcript.Condensed{}, []writer.Draft{d}, queue.Record{}, time.Now(), nil, func(string) {}, draftOptions{pending: true})
				if err != nil || len(res.learnings) != 1 {
					t.Errorf("draft %d: %+v, %v", i, res, err)
					return
				}
				if round == 1 {
					// Approved meanwhile, the learning gets the rewrite
					// as a proposal beside it, applied to it on approval.
					id := res.learnings[0].ID
					if u := res.learnings[0].Updates; u != "" {
						id = u
					}
					mu.Lock()
					written = append(written, id)
					mu.Unlock()
				}
			}
		}
	}()
	approved := 0
	for done := false; !done; {
		done = count() == n // after the writer's last write: this pass is the final one
		pending, err := reviewBase.Pending(ctx)
		if err != nil {
			t.Fatal(err)
		}
		ids := make([]string, len(pending))
		for i, l := range pending {
			ids[i] = l.ID
		}
		if len(ids) > 0 {
			// A draft the drain rewrote meanwhile is still pending:
			// only an id gone from disk would be an error here.
			ls, err := reviewBase.Approve(ctx, ids...)
			if err != nil {
				t.Fatalf("approve %q: %v", ids, err)
			}
			approved += len(ls)
		}
		if !done {
			time.Sleep(time.Millisecond)
		}
	}
	wg.Wait()
	pending, err := reviewBase.Pending(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range pending {
		if _, err := reviewBase.Approve(ctx, l.ID); err != nil {
			t.Fatal(err)
		}
	}
	if docs := e.documents(t); len(docs) != n {
		t.Fatalf("%d documents after the race, want %d", len(docs), n)
	}
	for i, id := range written {
		l := e.read(t, id)
		if l.Pending() || l.Title != drafts[i].Title || !slices.Contains(l.Tags, "round1") {
			t.Errorf("%s: status %q, title %q, tags %q; want approved, the last write's tags kept", id, l.Status, l.Title, l.Tags)
		}
	}
	if approved == 0 {
		t.Error("no approval ran while the drain wrote: the test raced nothing")
	}
}
