package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/reflectkb/reflect/index"
	"github.com/reflectkb/reflect/internal/config"
	"github.com/reflectkb/reflect/knowledge"
	"github.com/reflectkb/reflect/recall"
	"github.com/reflectkb/reflect/store"
)

// kb points reflect at empty temp directories and returns the configuration.
func kb(t testing.TB) *config.Config {
	t.Helper()
	home := t.TempDir()
	c, err := config.Load(config.MapLookup(map[string]string{"HOME": home,
		"REFLECT_STATE_DIR": filepath.Join(home, "state"), "REFLECT_LEARNINGS_DIR": filepath.Join(home, "learnings")}))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// put writes a learning the way another process (reflect add, the
// drainer) would: through its own index handle.
func put(t *testing.T, c *config.Config, title, insight, body string) string {
	t.Helper()
	ctx := context.Background()
	ix, err := index.Open(ctx, c.DocumentsDir(), c.IndexDir())
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	l := &store.Learning{Title: title, KeyInsight: insight, Body: body, Confidence: "high", Scope: "global"}
	l.FillDefaults(time.Now())
	res, err := knowledge.New(ix).Put(ctx, l, nil, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return res.ID
}

// connect starts the server on one end of an in-memory pipe and a client
// on the other, as an agent would over stdio.
func connect(t *testing.T, c *config.Config) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	s, err := New(Options{Config: c, Version: "test", Cwd: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	st, ct := mcp.NewInMemoryTransports()
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx, st) }()
	client := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "0"}, nil)
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		cancel()
		<-done
		s.Close()
	})
	return cs
}

// call runs a tool and decodes its structured output into out; it fails
// the test on a protocol error and returns the result for IsError checks.
func call(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any, out any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: protocol error: %v", name, err)
	}
	if out != nil && !res.IsError {
		data, err := json.Marshal(res.StructuredContent)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, out); err != nil {
			t.Fatalf("%s: decode %s: %v", name, data, err)
		}
	}
	return res
}

// mustOK fails unless the call succeeded.
func mustOK(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any, out any) {
	t.Helper()
	if res := call(t, cs, name, args, out); res.IsError {
		t.Fatalf("%s(%v): tool error %s", name, args, text(res))
	}
}

// mustFail fails unless the call is a tool error whose text holds want.
func mustFail(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any, want string) {
	t.Helper()
	res := call(t, cs, name, args, nil)
	if !res.IsError {
		t.Fatalf("%s(%v) succeeded; want a tool error about %q", name, args, want)
	}
	if !strings.Contains(text(res), want) {
		t.Fatalf("%s: tool error %q does not say %q", name, text(res), want)
	}
}

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func TestToolsListedWithSchemasAndAnnotations(t *testing.T) {
	t.Parallel()
	cs := connect(t, kb(t))
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		"search":   {"query", "limit", "project"},
		"recall":   {"task", "session_id"},
		"get":      {"id"},
		"remember": {"title", "key_insight", "body", "tags", "questions", "confidence", "scope", "project", "force"},
		"forget":   {"id"},
		"list":     {"project", "limit"},
		"mark":     {"id", "mark"},
	}
	got := map[string]*mcp.Tool{}
	for _, tool := range res.Tools {
		got[tool.Name] = tool
	}
	for name, props := range want {
		tool := got[name]
		if tool == nil {
			t.Errorf("tool %s is not listed", name)
			continue
		}
		if len(tool.Description) < 40 {
			t.Errorf("%s: description %q is too thin for a model", name, tool.Description)
		}
		schema, _ := json.Marshal(tool.InputSchema)
		var s struct {
			Properties map[string]struct {
				Description string `json:"description"`
			} `json:"properties"`
		}
		if err := json.Unmarshal(schema, &s); err != nil {
			t.Fatal(err)
		}
		for _, p := range props {
			if _, ok := s.Properties[p]; !ok {
				t.Errorf("%s: input schema lacks %q: %s", name, p, schema)
			}
		}
		if tool.OutputSchema == nil {
			t.Errorf("%s: no output schema", name)
		}
	}
	if len(got) != len(want) {
		t.Errorf("listed %d tools, want %d", len(got), len(want))
	}
	if a := got["forget"].Annotations; a == nil || a.DestructiveHint == nil || !*a.DestructiveHint {
		t.Errorf("forget is not annotated destructive: %+v", a)
	}
	for _, name := range []string{"search", "get", "list"} {
		if a := got[name].Annotations; a == nil || !a.ReadOnlyHint {
			t.Errorf("%s is not annotated read-only", name)
		}
	}
}

func TestRememberSearchGetListForget(t *testing.T) {
	t.Parallel()
	c := kb(t)
	cs := connect(t, c)
	args := map[string]any{
		"title":       "Use SameSite=Lax for the OAuth state cookie",
		"key_insight": "SameSite=Strict drops the state cookie on the identity provider's redirect, so the callback fails with state mismatch",
		"body":        "## Problem\nLogin failed with `state mismatch` after the OAuth callback.\n",
		"tags":        []string{"oauth", "cookies"},
		"confidence":  "high",
		"scope":       "global",
	}
	var added RememberOutput
	mustOK(t, cs, "remember", args, &added)
	if added.Action != "added" || !strings.HasPrefix(added.ID, "lrn-use-samesite-lax") {
		t.Fatalf("remember: %+v", added)
	}
	onDisk, err := store.Open(c.DocumentsDir()).Read(added.ID)
	if err != nil {
		t.Fatalf("the learning is not on disk: %v", err)
	}
	if onDisk.Confidence != "high" || len(onDisk.Tags) != 2 || !strings.Contains(onDisk.Body, "state mismatch") {
		t.Fatalf("on disk: %+v", onDisk)
	}

	var found SearchOutput
	mustOK(t, cs, "search", map[string]any{"query": "oauth state mismatch cookie"}, &found)
	if len(found.Results) == 0 || found.Results[0].ID != added.ID {
		t.Fatalf("search: %+v", found)
	}
	if r := found.Results[0]; r.Title != args["title"] || r.KeyInsight != args["key_insight"] || r.Confidence != "high" || r.Score <= 0 {
		t.Fatalf("search result fields: %+v", r)
	}

	suffix := added.ID[strings.LastIndex(added.ID, "-")+1:]
	for _, id := range []string{added.ID, suffix, "lrn-use-samesite"} {
		var l Learning
		mustOK(t, cs, "get", map[string]any{"id": id}, &l)
		if l.ID != added.ID || !strings.Contains(l.Body, "state mismatch") || l.Created == "" {
			t.Fatalf("get %s: %+v", id, l)
		}
	}

	var listed ListOutput
	mustOK(t, cs, "list", map[string]any{}, &listed)
	if len(listed.Learnings) != 1 || listed.Learnings[0].ID != added.ID {
		t.Fatalf("list: %+v", listed)
	}

	// The same title and insight is the same learning, as with reflect add.
	args["body"] = "## Problem\nLogin failed with `state mismatch` (second time).\n"
	var again RememberOutput
	mustOK(t, cs, "remember", args, &again)
	if again.Action != "updated" || again.ID != added.ID || !strings.Contains(again.Message, added.ID) {
		t.Fatalf("remember again: %+v", again)
	}
	if files, _ := store.Open(c.DocumentsDir()).Scan(); len(files) != 1 {
		t.Fatalf("remember again made %d documents, want 1", len(files))
	}

	var gone ForgetOutput
	mustOK(t, cs, "forget", map[string]any{"id": added.ID}, &gone)
	if !gone.Forgotten {
		t.Fatalf("forget: %+v", gone)
	}
	if _, err := os.Stat(added.Path); !os.IsNotExist(err) {
		t.Fatalf("forget left %s: %v", added.Path, err)
	}
	mustFail(t, cs, "get", map[string]any{"id": added.ID}, "no learning")
	mustOK(t, cs, "search", map[string]any{"query": "oauth state mismatch cookie"}, &found)
	if len(found.Results) != 0 {
		t.Fatalf("search after forget: %+v", found)
	}
}

func TestRememberRedactsSecrets(t *testing.T) {
	t.Parallel()
	c := kb(t)
	cs := connect(t, c)
	const secret = "ghp_FAKEexample0123456789abcdefghijklmno"
	var out RememberOutput
	mustOK(t, cs, "remember", map[string]any{
		"title":       "Authenticate gh in CI with GITHUB_TOKEN",
		"key_insight": "export GITHUB_TOKEN=" + secret + " before gh runs",
		"body":        "Ran `GITHUB_TOKEN=" + secret + " gh pr list`.",
		"tags":        []string{"gh"},
	}, &out)
	for _, p := range []string{out.Path, store.Open(c.DocumentsDir()).SidecarPath(out.ID)} {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(data), secret) {
			t.Fatalf("%s holds the secret:\n%s", p, data)
		}
	}
	data, _ := os.ReadFile(out.Path)
	if !strings.Contains(string(data), "[REDACTED:") {
		t.Fatalf("no redaction placeholder in:\n%s", data)
	}
}

// TestSearchRanksAsTheIndex checks the tool returns index.Search's ranking
// (what `reflect search` prints) for the same query and project.
func TestSearchRanksAsTheIndex(t *testing.T) {
	t.Parallel()
	c := kb(t)
	for _, l := range [][2]string{
		{"Postgres connection pool exhausted under load", "raise max_connections or use pgbouncer"},
		{"Postgres timeout on long migrations", "set statement_timeout per migration"},
		{"Redis connection refused in docker compose", "use the service name, not localhost"},
		{"Connection pool leak in the Go HTTP client", "close resp.Body or the pool runs dry"},
	} {
		put(t, c, l[0], l[1], "")
	}
	cs := connect(t, c)
	query := "postgres connection pool timeout"
	var got SearchOutput
	mustOK(t, cs, "search", map[string]any{"query": query, "limit": 3, "project": "none"}, &got)

	ix, err := index.Open(context.Background(), c.DocumentsDir(), c.IndexDir())
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	want, err := ix.Search(context.Background(), index.Query{Text: query, Limit: 3, Project: "none"})
	if err != nil {
		t.Fatal(err)
	}
	if len(want) != 3 || len(got.Results) != len(want) {
		t.Fatalf("got %d results, index gives %d", len(got.Results), len(want))
	}
	for i := range want {
		if got.Results[i].ID != want[i].ID {
			t.Errorf("rank %d: tool %s, index %s", i+1, got.Results[i].ID, want[i].ID)
		}
	}
}

func TestRecallDedupesPerSession(t *testing.T) {
	t.Parallel()
	c := kb(t)
	id := put(t, c, "SQLite database is locked during concurrent writes",
		"enable WAL mode and a busy_timeout so writers wait instead of failing with SQLITE_BUSY",
		"## Problem\n`database is locked` from sqlite when two writers commit at once.\n")
	put(t, c, "Cargo build fails on missing openssl headers", "install libssl-dev", "")
	cs := connect(t, c)
	task := map[string]any{"task": "sqlite says database is locked when two writers commit", "session_id": "sess-1"}

	var first RecallOutput
	mustOK(t, cs, "recall", task, &first)
	if len(first.Injected) != 1 || first.Injected[0].ID != id || !strings.Contains(first.Context, "<reflect-learnings") {
		t.Fatalf("first recall: %+v", first)
	}
	var second RecallOutput
	mustOK(t, cs, "recall", task, &second)
	if len(second.Injected) != 0 || second.StillRelevant != id || !strings.Contains(second.Context, id) {
		t.Fatalf("second recall in the same session: %+v", second)
	}
	var other RecallOutput
	mustOK(t, cs, "recall", map[string]any{"task": task["task"], "session_id": "sess-2"}, &other)
	if len(other.Injected) != 1 {
		t.Fatalf("another session: %+v", other)
	}
	var none RecallOutput
	mustOK(t, cs, "recall", map[string]any{"task": "draw a unicorn in watercolour"}, &none)
	if none.Context != "" || none.Skipped == "" {
		t.Fatalf("unrelated task: %+v", none)
	}
}

func TestToolErrorsKeepTheServerUp(t *testing.T) {
	t.Parallel()
	c := kb(t)
	cs := connect(t, c)
	huge := strings.Repeat("x", MaxInput+1)
	mustFail(t, cs, "search", map[string]any{"query": huge}, "1 MiB")
	mustFail(t, cs, "recall", map[string]any{"task": huge}, "1 MiB")
	mustFail(t, cs, "remember", map[string]any{"title": "t", "key_insight": "k", "body": huge}, "body is")
	mustFail(t, cs, "search", map[string]any{"query": "  "}, "query is empty")
	mustFail(t, cs, "search", map[string]any{"query": "x", "limit": 1000}, "limit must be")
	mustFail(t, cs, "list", map[string]any{"limit": -1}, "limit must be")
	mustFail(t, cs, "remember", map[string]any{"title": "t", "key_insight": "k", "confidence": "certain"}, "confidence")
	mustFail(t, cs, "remember", map[string]any{"title": "only a title"}, "key_insight")
	mustFail(t, cs, "get", map[string]any{"id": "lrn-nope"}, "no learning")
	mustFail(t, cs, "get", map[string]any{"id": "../../etc/passwd"}, "no learning")
	mustFail(t, cs, "forget", map[string]any{"id": "lrn-nope"}, "no learning")
	mustFail(t, cs, "search", map[string]any{"limit": 3}, "query")
	if files, _ := store.Open(c.DocumentsDir()).Scan(); len(files) != 0 {
		t.Fatalf("refused writes left %d documents", len(files))
	}
	// Still serving.
	var out RememberOutput
	mustOK(t, cs, "remember", map[string]any{"title": "Still up", "key_insight": "after errors"}, &out)
}

// TestGetShortIDAmbiguous: a prefix naming two learnings is refused with
// both ids, and forget never expands a prefix.
func TestShortIDs(t *testing.T) {
	t.Parallel()
	c := kb(t)
	a := put(t, c, "Flaky test in the auth package", "retry the token fetch", "")
	put(t, c, "Flaky test in the billing package", "freeze the clock", "")
	cs := connect(t, c)
	mustFail(t, cs, "get", map[string]any{"id": "lrn-flaky-test-in-the"}, "matches 2 ids")
	mustFail(t, cs, "forget", map[string]any{"id": "lrn-flaky-test-in-the-auth"}, "whole id")
	var l Learning
	mustOK(t, cs, "get", map[string]any{"id": "lrn-flaky-test-in-the-auth"}, &l)
	if l.ID != a {
		t.Fatalf("get by prefix: %s, want %s", l.ID, a)
	}
}

func TestSeesWritesOfOtherProcesses(t *testing.T) {
	t.Parallel()
	c := kb(t)
	put(t, c, "First learning about webpack", "clear the cache", "")
	cs := connect(t, c)
	var out SearchOutput
	mustOK(t, cs, "search", map[string]any{"query": "webpack"}, &out)
	if len(out.Results) != 1 {
		t.Fatalf("before: %+v", out)
	}
	id := put(t, c, "Second learning about webpack aliases", "resolve.alias needs absolute paths", "")
	mustOK(t, cs, "search", map[string]any{"query": "webpack aliases"}, &out)
	if len(out.Results) == 0 || out.Results[0].ID != id {
		t.Fatalf("a learning added by another process is not found: %+v", out)
	}
}

func TestResources(t *testing.T) {
	t.Parallel()
	c := kb(t)
	id := put(t, c, "Use go test -count=1 to skip the cache", "cached results hide flaky tests", "Body text.\n")
	cs := connect(t, c)
	ctx := context.Background()
	list, err := cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Resources) != 1 || list.Resources[0].URI != "reflect://learning/"+id || list.Resources[0].MIMEType != "text/markdown" {
		t.Fatalf("resources: %+v", list.Resources)
	}
	read, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "reflect://learning/" + id})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := os.ReadFile(store.Open(c.DocumentsDir()).Path(id))
	if len(read.Contents) != 1 || read.Contents[0].Text != string(want) {
		t.Fatalf("read: %+v", read.Contents)
	}
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "reflect://learning/lrn-nope"}); err == nil {
		t.Fatal("reading an unknown learning succeeded")
	}
}

func TestResourcesPaginate(t *testing.T) {
	t.Parallel()
	c := kb(t)
	// Write documents directly and let the server's refresh index them.
	st := store.Open(c.DocumentsDir())
	now := time.Now()
	for i := 0; i < resourcePage+3; i++ {
		l := &store.Learning{Title: "Learning number " + string(rune('a'+i%26)) + time.Duration(i).String(), KeyInsight: "x", Confidence: "low"}
		l.FillDefaults(now)
		if err := st.Write(l); err != nil {
			t.Fatal(err)
		}
	}
	cs := connect(t, c)
	seen := map[string]bool{}
	for r, err := range cs.Resources(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		seen[r.URI] = true
	}
	if len(seen) != resourcePage+3 {
		t.Fatalf("paged through %d resources, want %d", len(seen), resourcePage+3)
	}
}

func TestPrompt(t *testing.T) {
	t.Parallel()
	cs := connect(t, kb(t))
	ctx := context.Background()
	list, err := cs.ListPrompts(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Prompts) != 1 || list.Prompts[0].Name != "reflect-reflect" {
		t.Fatalf("prompts: %+v", list.Prompts)
	}
	p, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "reflect-reflect"})
	if err != nil {
		t.Fatal(err)
	}
	tc, ok := p.Messages[0].Content.(*mcp.TextContent)
	if !ok || !strings.Contains(tc.Text, `"remember" tool`) {
		t.Fatalf("prompt: %+v", p.Messages[0])
	}
}

// TestRecallUsesConfiguredBudgets: recall.max from the configuration
// bounds the tool's block as it bounds the hooks'.
func TestRecallUsesConfiguredBudgets(t *testing.T) {
	t.Parallel()
	c := kb(t)
	put(t, c, "Gradle daemon runs out of memory on CI", "set org.gradle.jvmargs=-Xmx2g in gradle.properties for the gradle daemon", "")
	put(t, c, "Gradle daemon runs out of memory on CI runners", "the gradle daemon on CI runs out of memory: lower its heap below the runner's memory", "")
	task := map[string]any{"task": "the gradle daemon runs out of memory on CI"}
	var two RecallOutput
	mustOK(t, connect(t, c), "recall", task, &two)
	if len(two.Injected) != 2 {
		t.Fatalf("default budget: %+v", two)
	}
	c.Recall.Max = 1
	var one RecallOutput
	mustOK(t, connect(t, c), "recall", task, &one)
	if len(one.Injected) != 1 {
		t.Fatalf("recall.max 1: %+v", one)
	}
}

// remember refuses a near-duplicate of an existing learning by the rule
// `reflect add` uses, naming it; force adds it anyway.
func TestRememberRefusesNearDuplicates(t *testing.T) {
	t.Parallel()
	c := kb(t)
	id := put(t, c, "Flush the widget cache with widgetctl flush", "widgetctl flush --all empties the widget cache on every node", "")
	cs := connect(t, c)
	args := map[string]any{"title": "Flush the widget cache with widgetctl", "key_insight": "widgetctl flush --all empties the widget cache on all nodes"}
	mustFail(t, cs, "remember", args, id)
	args["force"] = true
	var out struct{ ID, Action string }
	mustOK(t, cs, "remember", args, &out)
	if out.Action != "added" || out.ID == id {
		t.Fatalf("remember with force: %+v, want a second learning beside %s", out, id)
	}
}

// End of input waits until every request read has been answered, however
// late the answer: no handler may be running yet when EOF arrives (a loaded
// machine had not dispatched tools/list 50 ms after reading it, and the
// session closed unanswered).
func TestEndOfInputWaitsForEveryAnswer(t *testing.T) {
	s := &Server{log: slog.New(slog.DiscardHandler)}
	var out bytes.Buffer
	in := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize"}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" +
		`{"jsonrpc":"2.0","id":"two","method":"tools/list"}`) // no final newline
	c := newLineConn(s, in, &out)
	defer c.Close()
	ctx := context.Background()
	eof := make(chan struct{})
	go func() {
		defer close(eof)
		for {
			if _, err := c.Read(ctx); err != nil {
				return
			}
		}
	}()
	answer := func(id any) {
		t.Helper()
		jid, err := jsonrpc.MakeID(id)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Write(ctx, &jsonrpc.Response{ID: jid, Result: json.RawMessage("{}")}); err != nil {
			t.Fatal(err)
		}
	}
	// A notification from the server and one answer: EOF is still held
	// back.
	if err := c.Write(ctx, &jsonrpc.Request{Method: "notifications/message"}); err != nil {
		t.Fatal(err)
	}
	answer(float64(1))
	select {
	case <-eof:
		t.Fatalf("end of input passed with 1 of 2 requests answered (requests=%d answers=%d)", c.requests.Load(), c.answers.Load())
	case <-time.After(200 * time.Millisecond):
	}
	answer("two")
	<-eof
	if got := c.requests.Load(); got != 2 {
		t.Errorf("counted %d requests, want 2", got)
	}
}

// The mark tool counts marks in the document; wrong keeps the learning out
// of recall while search returns it, held.
func TestMarkHoldsALearningOutOfRecall(t *testing.T) {
	t.Parallel()
	c := kb(t)
	id := put(t, c, "Use SameSite=Lax for the OAuth state cookie", "SameSite=Strict drops the state cookie on the redirect back", "")
	cs := connect(t, c)
	task := map[string]any{"task": "the oauth state cookie samesite strict redirect"}
	var before RecallOutput
	mustOK(t, cs, "recall", task, &before)
	if len(before.Injected) != 1 {
		t.Fatalf("recall before the mark: %+v", before)
	}
	var marked MarkOutput
	mustOK(t, cs, "mark", map[string]any{"id": id[len(id)-6:], "mark": "wrong"}, &marked)
	if marked.ID != id || marked.Feedback.Wrong != 1 || marked.Held != "wrong" {
		t.Fatalf("mark: %+v", marked)
	}
	var found SearchOutput
	mustOK(t, cs, "search", map[string]any{"query": "oauth state cookie samesite"}, &found)
	if len(found.Results) != 1 || found.Results[0].Held != "wrong" {
		t.Fatalf("search: %+v", found)
	}
	var rec RecallOutput
	mustOK(t, cs, "recall", task, &rec)
	if len(rec.Injected) != 0 {
		t.Fatalf("recall injected a learning marked wrong: %+v", rec)
	}
	mustFail(t, cs, "mark", map[string]any{"id": id, "mark": "clear"}, "use helpful, wrong, outdated or never")
	mustFail(t, cs, "mark", map[string]any{"id": "lrn-nope", "mark": "wrong"}, "no learning")
}

// TestRecallTakesATaskAsWork checks that the recall tool, asked for the
// learnings of a task, gives them for a task phrased as work to do: the
// prompt hook holds such a request to twice the floor (recall/intent.go),
// but a task is work by nature and the agent asked.
func TestRecallTakesATaskAsWork(t *testing.T) {
	t.Parallel()
	c := kb(t)
	id := put(t, c, "Refresh token expiry tests need an injected clock",
		"TestRefresh failed with \"token expired\" because refresh token expiry was checked against time.Now; inject the clock into the token store so tests control it.",
		"## Problem\n\nTestRefresh failed on slow CI runners.\n\n## Solution\n\nPass a clock to the refresh token store; tests use a fixed one.\n")
	put(t, c, "Cargo build fails on missing openssl headers", "install libssl-dev", "")
	put(t, c, "SQLite database is locked during concurrent writes", "enable WAL mode and a busy_timeout", "")
	cs := connect(t, c)
	var got RecallOutput
	mustOK(t, cs, "recall", map[string]any{"task": "add OAuth refresh tokens to the login flow"}, &got)
	if len(got.Injected) != 1 || got.Injected[0].ID != id {
		t.Fatalf("recall of a task: %+v", got)
	}
}

// The recall tool runs at the gate level the configuration sets
// (recall.gate), as the prompt hook does.
func TestRecallUsesConfiguredGate(t *testing.T) {
	t.Parallel()
	for level, want := range map[string]recall.Gate{"strict": recall.GateStrict, "eager": recall.GateEager} {
		s := &Server{opts: Options{Config: &config.Config{Recall: config.Recall{Gate: level}}}}
		if got := s.recallRequest(RecallInput{Task: "t"}).Gate; got != want {
			t.Errorf("recall.gate %s: the tool's request has gate %q, want %q", level, got, want)
		}
	}
}
