package drain

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"github.com/reflectkb/reflect/drain/writer"
	"github.com/reflectkb/reflect/transcript"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reflectkb/reflect/index"
	"github.com/reflectkb/reflect/queue"
)

// writeLongSession writes a Claude Code transcript of about size bytes
// that looks like a long working day: many turns, file reads and test runs
// with long outputs, failures that the assistant explains and fixes with an
// edit and a rerun, user corrections, "remember" instructions, injected
// <reflect-learnings> blocks and environment dumps holding secrets.
func writeLongSession(tb testing.TB, dir string, size int) string {
	tb.Helper()
	path := filepath.Join(dir, "long-session.jsonl")
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	w := bufio.NewWriter(f)
	rng := rand.New(rand.NewSource(42))
	const sid = "5c0ffee0-1111-4222-8333-444455556666"
	ts := time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC)
	written, n, parent := 0, 0, ""
	put := func(typ string, msg map[string]any, extra map[string]any) {
		n++
		uuid := fmt.Sprintf("u%06d", n)
		ts = ts.Add(time.Duration(1+rng.Intn(20)) * time.Second)
		rec := map[string]any{
			"isSidechain": false, "userType": "external", "cwd": "/home/dev/shop", "sessionId": sid,
			"version": "2.1.240", "gitBranch": "feat/checkout", "parentUuid": parent, "type": typ,
			"uuid": uuid, "timestamp": ts.Format(time.RFC3339Nano), "message": msg,
		}
		for k, v := range extra {
			rec[k] = v
		}
		parent = uuid
		line, err := json.Marshal(rec)
		if err != nil {
			tb.Fatal(err)
		}
		k, _ := w.Write(append(line, '\n'))
		written += k
	}
	user := func(text string, extra map[string]any) {
		put("user", map[string]any{"role": "user", "content": text}, extra)
	}
	assistant := func(content ...map[string]any) {
		put("assistant", map[string]any{"id": fmt.Sprintf("msg_%d", n), "type": "message", "role": "assistant",
			"model": "claude-sonnet-5", "content": content, "stop_reason": "tool_use"}, nil)
	}
	text := func(s string) map[string]any { return map[string]any{"type": "text", "text": s} }
	tool := func(id, name string, input map[string]any) map[string]any {
		return map[string]any{"type": "tool_use", "id": id, "name": name, "input": input}
	}
	result := func(id, out string, isErr bool) {
		put("user", map[string]any{"role": "user", "content": []map[string]any{
			{"type": "tool_result", "tool_use_id": id, "content": out, "is_error": isErr}}},
			map[string]any{"toolUseResult": map[string]any{"stdout": out, "stderr": "", "interrupted": false}})
	}
	testLog := func(lines int, pkg string) string {
		var b strings.Builder
		for i := 0; i < lines; i++ {
			fmt.Fprintf(&b, "=== RUN   Test%sCase%d\n--- PASS: Test%sCase%d (0.%02ds)\n", pkg, i, pkg, i, rng.Intn(100))
		}
		return b.String()
	}
	source := func(lines int, pkg string) string {
		var b strings.Builder
		fmt.Fprintf(&b, "package %s\n\nimport (\n\t\"context\"\n\t\"fmt\"\n)\n\n", pkg)
		for i := 0; i < lines; i++ {
			fmt.Fprintf(&b, "func (s *Service) Handle%d(ctx context.Context, req *Request%d) (*Response%d, error) {\n\tif req == nil {\n\t\treturn nil, fmt.Errorf(\"%s: empty request %d\")\n\t}\n\treturn s.next.Handle%d(ctx, req)\n}\n\n", i, i, i, pkg, i, i)
		}
		return b.String()
	}
	pkgs := []string{"cart", "checkout", "payment", "inventory", "shipping", "tax", "users", "orders"}
	progs := []string{"go test ./%s/...", "go vet ./%s/...", "golangci-lint run ./%s/...", "make test PKG=%s"}
	user("Today: finish the checkout flow end to end, keep the public API stable", nil)
	for turn := 0; written < size; turn++ {
		pkg := pkgs[rng.Intn(len(pkgs))]
		user(fmt.Sprintf("step %d: implement the %s handlers and keep the tests green", turn, pkg), nil)
		if turn%7 == 3 {
			user("<reflect-learnings>\nRelevant learnings from past sessions (reflect):\n- [lrn-postgres-pool-1a2b3c] (high) Postgres pool exhaustion needs pgbouncer\n</reflect-learnings>", map[string]any{"isMeta": true})
		}
		id := fmt.Sprintf("toolu_%d", n)
		assistant(text("Let me read the current handlers first."), tool(id, "Read", map[string]any{"file_path": "/home/dev/shop/" + pkg + "/handlers.go"}))
		result(id, source(40+rng.Intn(80), pkg), false)
		for call := 0; call < 3 && written < size; call++ {
			cmd := fmt.Sprintf(progs[rng.Intn(len(progs))], pkg)
			id = fmt.Sprintf("toolu_%d", n)
			assistant(text("Running the checks."), tool(id, "Bash", map[string]any{"command": cmd, "description": "Run checks"}))
			if rng.Intn(5) != 0 {
				result(id, testLog(40+rng.Intn(120), pkg)+"ok  \tshop/"+pkg+"\t0.8s", false)
				continue
			}
			// A failure, explained, fixed by an edit, and a rerun that passes.
			result(id, "Exit code 1\n"+testLog(30+rng.Intn(60), pkg)+fmt.Sprintf("--- FAIL: Test%sRefund (0.01s)\n    refund_test.go:%d: undefined: %s.NewClient%d", pkg, rng.Intn(300), pkg, turn), true)
			if turn%10 == 4 {
				user(fmt.Sprintf("no, use make test-integration PKG=%s instead, plain go test skips the db fixtures", pkg), nil)
				cmd = "make test-integration PKG=" + pkg
			}
			eid := fmt.Sprintf("toolu_%d", n)
			assistant(text(fmt.Sprintf("The test fails because %s.NewClient%d was renamed, so the constructor call is stale. Updating it.", pkg, turn)),
				tool(eid, "Edit", map[string]any{"file_path": fmt.Sprintf("/home/dev/shop/%s/client.go", pkg),
					"old_string": strings.Repeat("old line\n", 20), "new_string": fmt.Sprintf("return %s.NewClient%d(cfg)", pkg, turn)}))
			result(eid, fmt.Sprintf("The file /home/dev/shop/%s/client.go has been updated.", pkg), false)
			rid := fmt.Sprintf("toolu_%d", n)
			assistant(tool(rid, "Bash", map[string]any{"command": cmd, "description": "Rerun"}))
			result(rid, testLog(40+rng.Intn(80), pkg)+"ok  \tshop/"+pkg+"\t1.1s", false)
		}
		if turn%25 == 12 {
			user("remember: always run make generate after changing the proto files", nil)
		}
		if turn%30 == 20 {
			id = fmt.Sprintf("toolu_%d", n)
			assistant(tool(id, "Bash", map[string]any{"command": "env | grep AWS"}))
			result(id, "AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE\nAWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", false)
		}
		put("assistant", map[string]any{"id": fmt.Sprintf("msg_%d", n), "type": "message", "role": "assistant", "model": "claude-sonnet-5",
			"content": []map[string]any{text(fmt.Sprintf("Step %d done: the %s handlers build and their tests pass.", turn, pkg))}, "stop_reason": "end_turn"}, nil)
	}
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	return path
}

// timedWriter measures the time spent in the writer it wraps.
type timedWriter struct {
	w     writer.Writer
	spent time.Duration
}

func (t *timedWriter) Name() string { return t.w.Name() }

func (t *timedWriter) Write(ctx context.Context, c *transcript.Condensed) (*writer.Output, error) {
	start := time.Now()
	defer func() { t.spent += time.Since(start) }()
	return t.w.Write(ctx, c)
}

// BenchmarkDrainEntry5MB measures what the drainer adds to a writer run for
// one entry of a 5 MB transcript: hashing, the ledger check, condensing,
// writing and indexing the learnings, and the ack. The writer's own time
// is reported apart (writer-ms/op) and subtracted (overhead-ms/op). The
// knowledge base persists across iterations, so after the first the
// learnings are updates of existing documents.
func BenchmarkDrainEntry5MB(b *testing.B) {
	transcript := writeLongSession(b, b.TempDir(), 5<<20)
	fi, err := os.Stat(transcript)
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name string
		w    writer.Writer
	}{
		{"builtin", writer.Builtin{}},
		{"fixed-drafts", &fixedWriter{drafts: fixedDrafts}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			ctx := context.Background()
			e := newDrainEnv(b)
			c := e.config(b)
			q := e.queue(b)
			ix, err := index.Open(ctx, c.DocumentsDir(), c.IndexDir())
			if err != nil {
				b.Fatal(err)
			}
			defer ix.Close()
			tw := &timedWriter{w: bc.w}
			b.SetBytes(fi.Size())
			b.ReportAllocs()
			b.ResetTimer()
			learnings := 0
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				os.Remove(filepath.Join(e.state, "processed.jsonl"))
				rec := e.enqueuePath(b, transcript, queue.HarnessClaude, "long")
				b.StartTimer()
				en := (&entryRun{opts: withConfig(c, Options{Now: time.Now}), q: q, ix: ix, w: tw, rec: rec}).run(ctx)
				if en.Outcome != OutcomeWritten {
					b.Fatalf("entry: %+v", en)
				}
				learnings = len(en.Learnings)
			}
			b.StopTimer()
			perOp := float64(b.Elapsed().Nanoseconds()) / float64(b.N) / 1e6
			writer := float64(tw.spent.Nanoseconds()) / float64(b.N) / 1e6
			b.ReportMetric(writer, "writer-ms/op")
			b.ReportMetric(perOp-writer, "overhead-ms/op")
			b.ReportMetric(float64(learnings), "learnings/op")
		})
	}
}

// TestDrainNumbers logs what the writer is sent (chars/4 as tokens) before
// and after condensing, and where the time of one 5 MB entry goes. Run
// with -v for the numbers; the assertions only guard the orders of
// magnitude.
func TestDrainNumbers(t *testing.T) {
	long := writeLongSession(t, t.TempDir(), 5<<20)
	tokens := func(n int64) int64 { return n / 4 }
	for _, tc := range []struct{ name, path string }{
		{"claude fixture", "../transcript/testdata/claude-session.jsonl"},
		{"codex fixture", "../transcript/testdata/codex-rollout.jsonl"},
		{"synthetic 5 MB claude", long},
	} {
		c, err := transcript.Condense(tc.path, "", transcript.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		text, prompt := int64(len(c.Text)), int64(len(writer.Prompt(c)))
		t.Logf("%-22s raw %8d chars (~%7d tokens) → condensed %6d chars (~%5d tokens, %6.1f× fewer); full writer prompt %6d chars (~%5d tokens); %d events, %d dropped",
			tc.name, c.RawBytes, tokens(c.RawBytes), text, tokens(text), float64(c.RawBytes)/float64(text), prompt, tokens(prompt), len(c.Events), c.Dropped)
		if text == 0 || text > transcript.DefaultMaxChars {
			t.Errorf("%s: condensed text is %d chars", tc.name, text)
		}
	}

	// One 5 MB entry, stage by stage, into an empty knowledge base and then
	// again as an update of the same learnings.
	ctx := context.Background()
	e := newDrainEnv(t)
	c := e.config(t)
	ix, err := index.Open(ctx, c.DocumentsDir(), c.IndexDir())
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	q := e.queue(t)
	for _, round := range []string{"new", "update"} {
		os.Remove(filepath.Join(e.state, "processed.jsonl"))
		rec := e.enqueuePath(t, long, queue.HarnessClaude, "long")
		var stages []string
		total := time.Now()
		stage := func(name string, fn func()) {
			start := time.Now()
			fn()
			stages = append(stages, fmt.Sprintf("%s %s", name, time.Since(start).Round(100*time.Microsecond)))
		}
		var size int64
		var sum string
		stage("hash", func() { size, sum, err = queue.HashFile(rec.TranscriptPath) })
		if err != nil {
			t.Fatal(err)
		}
		var cd *transcript.Condensed
		stage("condense", func() { cd, err = transcript.Condense(rec.TranscriptPath, "claude", transcript.Limits{}) })
		if err != nil {
			t.Fatal(err)
		}
		var out *writer.Output
		stage("builtin writer", func() { out, err = writer.Builtin{}.Write(ctx, cd) })
		if err != nil {
			t.Fatal(err)
		}
		var written []Written
		stage(fmt.Sprintf("write+index %d learnings", len(out.Learnings)), func() {
			var res drafted
			res, err = writeLearnings(ctx, ix, cd, out.Learnings, rec, time.Now(), nil, func(string) {}, draftOptions{})
			written = res.learnings
		})
		if err != nil || len(written) == 0 {
			t.Fatalf("writeLearnings: %+v, %v", written, err)
		}
		stage("ack", func() {
			err = q.Ack(rec.ID, queue.Processed{Path: rec.TranscriptPath, Size: size, SHA256: sum, Outcome: "written"})
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("5 MB entry (%s learnings): %s; total %s", round, strings.Join(stages, ", "), time.Since(total).Round(time.Millisecond))
	}
	if docs := e.documents(t); len(docs) == 0 {
		t.Error("no documents")
	}
	assertNoSecrets(t, e.state, e.kb)
}
