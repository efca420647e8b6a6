package security_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/reflectkb/reflect/drain"
	"github.com/reflectkb/reflect/drain/writer"
	"github.com/reflectkb/reflect/hooks"
	"github.com/reflectkb/reflect/index"
	"github.com/reflectkb/reflect/internal/config"
	"github.com/reflectkb/reflect/knowledge"
	"github.com/reflectkb/reflect/store"
	"github.com/reflectkb/reflect/transcript"
)

// The red team's secrets (issue 13, item 2), all fake. Each must be absent
// from every file reflect writes and from every file name.
var (
	hfToken    = "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" // letters only: the real shape
	midLinePw  = "hunter2x"                              // "password: hunter2x" mid-line
	mysqlPw    = "S3cretPass99"                          // mysql -pS3cretPass99
	sendgrid   = "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"
	base64Tok  = base64.StdEncoding.EncodeToString([]byte("ghp_FAKEexample0123456789abcdefghijklmnop"))
	allSecrets = []string{hfToken, midLinePw, mysqlPw, sendgrid, base64Tok}
)

// leakText holds every secret in the shapes the red team used.
var leakText = "huggingface-cli login --token " + hfToken + " worked; login as admin password: " + midLinePw +
	" on staging; mysql -u root -p" + mysqlPw + " app_db; mail key " + sendgrid +
	"; echo -n $GH_TOKEN | base64 printed " + base64Tok

// pieces are the parts of the secrets checked for: each whole, and its
// distinctive tail, so a secret cut in two by a placeholder still fails.
func pieces() []string {
	var out []string
	for _, s := range allSecrets {
		out = append(out, s)
		if len(s) > 16 {
			out = append(out, s[len(s)-12:])
		}
	}
	return out
}

// assertNoSecret fails for every piece of a secret in text.
func assertNoSecret(t *testing.T, where, text string) {
	t.Helper()
	for _, p := range pieces() {
		if strings.Contains(text, p) {
			t.Errorf("%s holds the secret piece %q", where, p)
		}
	}
}

type world struct {
	home, state, kb, cwd string
	cfg                  *config.Config
}

func newWorld(t *testing.T) *world {
	t.Helper()
	root := t.TempDir()
	w := &world{home: filepath.Join(root, "home"), state: filepath.Join(root, "state"),
		kb: filepath.Join(root, "kb"), cwd: filepath.Join(root, "auth-service")}
	for _, d := range []string{w.home, w.state, w.kb, w.cwd} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("HOME", w.home)
	t.Setenv("REFLECT_STATE_DIR", w.state)
	t.Setenv("REFLECT_LEARNINGS_DIR", w.kb)
	for _, k := range []string{"REFLECT_DISABLE", "REFLECT_WRITER", "REFLECT_WRITER_COMMAND", "REFLECT_EMBEDDER"} {
		t.Setenv(k, "")
	}
	t.Setenv("REFLECT_EMBEDDER", "hash")
	cfg, err := config.Load(os.LookupEnv)
	if err != nil {
		t.Fatal(err)
	}
	w.cfg = cfg
	return w
}

// hook runs one Claude Code hook event in-process, as `reflect hook` does.
func (w *world) hook(t *testing.T, event string, payload map[string]any) string {
	t.Helper()
	payload["session_id"] = "sess-redteam"
	payload["cwd"] = w.cwd
	in, err := json.Marshal(payload)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	hooks.Run(context.Background(), hooks.Options{
		Event: event, Agent: "claude", In: bytes.NewReader(in), Out: &out, Config: w.cfg,
		Now: func() time.Time { return time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC) }, Deadline: 10 * time.Second,
		Spawn: func(args ...string) error { return nil }, // the test drains itself
	})
	return out.String()
}

// drainOptions are the drain options the configuration gives (as
// cmd/reflect's drainOptions translates them), with the writer wr.
func (w *world) drainOptions(wr writer.Writer) drain.Options {
	c := w.cfg
	return drain.Options{
		StateDir: c.StateDir,
		OpenIndex: func(ctx context.Context) (*index.Index, error) {
			opts, err := index.SettingsOptions(index.Settings(c.Index), false)
			if err != nil {
				return nil, err
			}
			return index.Open(ctx, c.DocumentsDir(), c.IndexDir(), opts...)
		},
		MaxPerRun: c.Drain.MaxPerRun, DailyMax: c.Drain.DailyMax, DailyUSD: c.Drain.DailyUSD,
		Timeout: c.Drain.Timeout, MaxAttempts: c.Drain.MaxAttempts,
		Writer: wr, WriterWhy: "test",
	}
}

// leakyWriter stands in for an LLM writer: it records what the drainer
// sent it (the drain's input) and answers with learnings that repeat the
// secrets in every field (a writer that echoes what it saw).
type leakyWriter struct{ sent []string }

func (*leakyWriter) Name() string { return "leaky" }

func (lw *leakyWriter) Write(_ context.Context, c *transcript.Condensed) (*writer.Output, error) {
	full, err := json.Marshal(c)
	if err != nil {
		return nil, err
	}
	lw.sent = append(lw.sent, c.Text, string(full), writer.Prompt(c))
	return &writer.Output{Learnings: []writer.Draft{{
		Title:      "Log in to the Hub with " + hfToken,
		KeyInsight: leakText,
		Problem:    leakText,
		Solution:   leakText,
		Confidence: "high",
		Tags:       []string{"huggingface", hfToken},
		Symptoms:   []string{leakText},
		Entities:   []store.Entity{{Name: sendgrid, Type: "service", Description: leakText}},
		Cites:      []string{"config/" + hfToken + ".yaml"},
	}}}, nil
}

// leakyQuestions stands in for an LLM writer asked for questions
// (`reflect enrich`): it answers every learning asked about with questions
// that repeat the secrets, or fails with them in its error.
type leakyQuestions struct {
	fail bool
	sent []string
}

func (*leakyQuestions) Name() string { return "leaky" }

func (lq *leakyQuestions) Write(_ context.Context, c *transcript.Condensed) (*writer.Output, error) {
	lq.sent = append(lq.sent, c.Text)
	if lq.fail {
		return &writer.Output{CostUSD: 0.01}, errors.New("leaky failed: " + leakText)
	}
	out := &writer.Output{}
	for _, line := range strings.Split(c.Text, "\n") {
		if id, ok := strings.CutPrefix(line, `<learning id="`); ok {
			out.Learnings = append(out.Learnings, writer.Draft{Update: strings.TrimSuffix(id, `">`), Questions: []string{leakText, "why? " + hfToken}})
		}
	}
	return out, nil
}

// TestNoSecretOnDiskFromAnyPath drives every write path with the red
// team's secrets: a failed command (armed watcher), a correction prompt
// (mini-learning), a stop (queue), a drain (writer input and output, drain
// log, ledger), an add (index.Put with a chosen id) and an enrich (the
// questions, a failed run's error in drain.log), then reads every
// file and file name reflect wrote.
func TestNoSecretOnDiskFromAnyPath(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()

	// Hooks: a failed Bash command arms a watcher, the user's correction
	// becomes a mini-learning, the stop queues the transcript.
	w.hook(t, "post-tool", map[string]any{
		"hook_event_name": "PostToolUseFailure", "tool_name": "Bash",
		"tool_input": map[string]string{"command": "mysql -u root -p" + mysqlPw + " app_db -e 'select 1'"},
		"error":      "Exit code 1\nERROR 1045 (28000): access denied; mail relay said " + sendgrid + " is revoked; " + hfToken,
	})
	armed, _ := filepath.Glob(filepath.Join(w.state, "armed", "*"))
	if len(armed) == 0 {
		t.Fatal("the failed command armed no watcher: the armed-file path was not exercised")
	}
	w.hook(t, "prompt", map[string]any{"hook_event_name": "UserPromptSubmit",
		"prompt": "no, use the token instead: " + leakText})
	transcript, err := os.ReadFile(filepath.Join("testdata", "leaky-session.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	tpath := filepath.Join(w.home, "leaky-session.jsonl")
	if err := os.WriteFile(tpath, transcript, 0o600); err != nil {
		t.Fatal(err)
	}
	w.hook(t, "stop", map[string]any{"hook_event_name": "Stop", "transcript_path": tpath})

	// Drain: what the writer is sent, and what it answers, are redacted.
	lw := &leakyWriter{}
	rep, err := drain.Run(ctx, w.drainOptions(lw))
	if err != nil {
		t.Fatal(err)
	}
	if len(lw.sent) == 0 || len(rep.Entries) == 0 || len(rep.Entries[0].Learnings) == 0 {
		t.Fatalf("the drain sent nothing to the writer or wrote nothing: %+v", rep)
	}
	for _, s := range lw.sent {
		assertNoSecret(t, "the text sent to the writer", s)
	}

	// add: a learning with a chosen id that holds a secret.
	ix, err := index.Open(ctx, w.cfg.DocumentsDir(), w.cfg.IndexDir())
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	l := &store.Learning{ID: "lrn-" + hfToken, Title: "Token " + hfToken, KeyInsight: leakText, Body: leakText,
		Confidence: "medium", Created: time.Now()}
	res, err := knowledge.New(ix).Put(ctx, l, nil, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Redacted) == 0 || strings.Contains(res.ID, "hf_") {
		t.Errorf("Put did not report the redaction or kept the secret in the id: %+v", res)
	}

	// enrich: a run that fails with the secrets in its error, then one
	// whose questions repeat them.
	kb := knowledge.New(ix)
	for _, fail := range []bool{true, false} {
		lq := &leakyQuestions{fail: fail}
		plan, err := drain.PlanEnrich(kb, lq, nil, 0, drain.EnrichOptions{StateDir: w.state})
		if err != nil {
			t.Fatal(err)
		}
		er, err := drain.Enrich(ctx, kb, lq, plan, drain.EnrichOptions{StateDir: w.state, DailyMax: 100})
		if err != nil {
			t.Fatal(err)
		}
		if len(lq.sent) == 0 || (!fail && er.Enriched == 0) {
			t.Fatalf("enrich (failing %v) sent nothing or wrote nothing: %+v", fail, er)
		}
		for _, s := range lq.sent {
			assertNoSecret(t, "the learnings sent to the enrich writer", s)
		}
	}

	// Every file and file name under the state dir, the knowledge base
	// (documents, sidecars, catalog, vectors) and HOME.
	files := 0
	for _, root := range []string{w.state, w.kb, w.home} {
		err := filepath.Walk(root, func(path string, info os.FileInfo, err error) error {
			if err != nil {
				return err
			}
			assertNoSecret(t, "the file name "+path, path)
			if info.IsDir() || path == tpath {
				return nil // the transcript is the agent's, not reflect's
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			files++
			assertNoSecret(t, path, string(data))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	docs, _ := filepath.Glob(filepath.Join(w.cfg.DocumentsDir(), "*.md"))
	if len(docs) < 3 {
		t.Errorf("want the mini-learning, the drained learning and the added one on disk, got %d documents", len(docs))
	}
	if files < 10 {
		t.Errorf("only %d files scanned: the paths were not exercised", files)
	}
	// The index answers for the secret with nothing that holds it.
	hits, err := ix.Search(ctx, index.Query{Text: hfToken + " " + sendgrid})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hits {
		assertNoSecret(t, "search result "+h.ID, h.Title+" "+h.KeyInsight+" "+h.Snippet)
	}
}

// TestHandEditedLearningIndexedRedacted: a learning written into
// documents/ by hand (an editor, a git pull) with the red team's secrets
// in its frontmatter, body and sidecar is indexed, found by its other
// words, and none of its secrets is copied into index/ (catalog, WAL,
// vectors) or into what a search returns. The file itself is the user's
// and stays as written.
func TestHandEditedLearningIndexedRedacted(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	docs := w.cfg.DocumentsDir()
	if err := os.MkdirAll(docs, 0o700); err != nil {
		t.Fatal(err)
	}
	const id = "lrn-hub-login-works-with-a-token-0a1b2c"
	doc := "---\nid: " + id + "\ntitle: Hub login works with " + hfToken + "\nkey_insight: " + strconv.Quote(leakText) +
		"\ntype: learning\nconfidence: high\ntags: [huggingface, " + hfToken + "]\nsymptoms: [" + strconv.Quote(leakText) + "]\n" +
		"created: 2026-11-20T10:00:00Z\nupdated: 2026-11-20T10:00:00Z\n---\n\n## Problem\n\nZeppelin login: " + leakText + "\n"
	if err := os.WriteFile(filepath.Join(docs, id+".md"), []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	sidecar := "document_id: " + id + "\nentities:\n  - name: " + sendgrid + "\n    type: service\n    description: " + leakText + "\n"
	if err := os.WriteFile(filepath.Join(docs, id+".entities.yaml"), []byte(sidecar), 0o600); err != nil {
		t.Fatal(err)
	}
	ix, err := index.Open(ctx, docs, w.cfg.IndexDir())
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	st, err := ix.Update(ctx, index.UpdateOptions{Communities: true})
	if err != nil || st.Indexed != 1 || len(st.Problems) != 0 {
		t.Fatalf("update: %+v, %v", st, err)
	}
	hits, err := ix.Search(ctx, index.Query{Text: "zeppelin hub login"})
	if err != nil || len(hits) != 1 || hits[0].ID != id {
		t.Fatalf("search: %+v, %v", hits, err)
	}
	for _, h := range hits {
		assertNoSecret(t, "search result "+h.ID, h.Title+" "+h.KeyInsight+" "+h.Snippet+" "+strings.Join(h.Tags, " "))
	}
	files := 0
	err = filepath.Walk(w.cfg.IndexDir(), func(path string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files++
		assertNoSecret(t, path, string(data))
		return nil
	})
	if err != nil || files < 2 {
		t.Fatalf("scanned %d files under index/: %v", files, err)
	}
	if got, _ := os.ReadFile(filepath.Join(docs, id+".md")); string(got) != doc {
		t.Error("indexing changed the user's file")
	}

	// A hand-edited file that does not parse is reported, and the reason
	// recorded in the catalog quotes the offending line: redacted too.
	bad := "---\nid: lrn-broken\ntitle: broken\nkey_insight: " + leakText + "\n---\nbody\n"
	if err := os.WriteFile(filepath.Join(docs, "lrn-broken.md"), []byte(bad), 0o600); err != nil {
		t.Fatal(err)
	}
	st, err = ix.Update(ctx, index.UpdateOptions{})
	if err != nil || len(st.Problems) != 1 {
		t.Fatalf("update with a malformed file: %+v, %v", st, err)
	}
	assertNoSecret(t, "the problem reported", st.Problems[0].Error())
	for _, name := range []string{"catalog.db", "catalog.db-wal"} {
		data, _ := os.ReadFile(filepath.Join(w.cfg.IndexDir(), name))
		assertNoSecret(t, name+" after a malformed file", string(data))
	}
}
