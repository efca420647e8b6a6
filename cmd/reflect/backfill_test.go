package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/reflectkb/reflect/backfill"
	"github.com/reflectkb/reflect/queue"
)

func TestBackfillFlags(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want BackfillOptions
	}{
		{nil, BackfillOptions{}},
		{[]string{"--agent", "claude,codex", "--since", "30d", "--project", ".", "--limit", "5", "-n", "--json", "-y"},
			BackfillOptions{Agents: []string{"claude", "codex"}, Since: "30d", Project: ".", Limit: 5, DryRun: true, JSON: true, Yes: true}},
		{[]string{"--agent", "gemini", "--agent", "copilot", "--since", "2026-10-01"},
			BackfillOptions{Agents: []string{"gemini", "copilot"}, Since: "2026-10-01"}},
	} {
		var got *BackfillOptions
		execute(t, NewCmdBackfill(seamFactory(), func(o *BackfillOptions) error { got = o; return nil }), tc.args...)
		if got == nil {
			t.Fatalf("%q: runF not called", tc.args)
		}
		got.Now = time.Time{}
		if !reflect.DeepEqual(*got, tc.want) {
			t.Errorf("%q: options %+v, want %+v", tc.args, *got, tc.want)
		}
	}
	for _, args := range [][]string{{"--agent", "cursor"}, {"--limit", "-1"}, {"extra"}} {
		cmd := NewCmdBackfill(seamFactory(), func(*BackfillOptions) error { t.Errorf("%q: runF called", args); return nil })
		cmd.SetArgs(args)
		if err := cmd.Execute(); err == nil || exitCode(err) != 2 {
			t.Errorf("%q: %v, want a usage error", args, err)
		}
	}
}

// backfillKB is a knowledge base whose HOME holds one Claude Code session,
// written an hour ago, copied from a real one.
func backfillKB(t *testing.T) (*testKB, string) {
	t.Helper()
	kb := tempKB(t)
	data, err := os.ReadFile(filepath.Join(repoRoot, "backfill", "testdata", "claude-session.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(kb.env["HOME"], ".claude", "projects", "-home-dev-src-widget-service", "9c19e7ca-363e-4250-8fe4-30525dab65ba.jsonl")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
	return kb, path
}

func queued(t *testing.T, kb *testKB) []queue.Record {
	t.Helper()
	q, err := queue.Open(kb.env["REFLECT_STATE_DIR"])
	if err != nil {
		t.Fatal(err)
	}
	recs, _, err := q.List()
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

func TestBackfillWithTheBuiltinWriter(t *testing.T) {
	t.Parallel()
	kb, path := backfillKB(t)
	code, stdout, stderr := kb.run(t, "", false, "backfill", "--dry-run")
	if code != 0 {
		t.Fatalf("dry run: exit %d: %s", code, stderr)
	}
	for _, want := range []string{"Backfill plan: 1 session to queue", "claude", "Writer: builtin (no LLM, nothing spent): $0", "reflect config set drain.writer claude", "drain.daily_max"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("dry run output lacks %q:\n%s", want, stdout)
		}
	}
	if recs := queued(t, kb); len(recs) != 0 {
		t.Fatalf("--dry-run queued %v", recs)
	}
	// No question with the builtin writer: nothing is spent.
	code, stdout, stderr = kb.run(t, "", false, "backfill")
	if code != 0 || !strings.Contains(stdout, "Queued 1 session") {
		t.Fatalf("backfill: exit %d\n%s%s", code, stdout, stderr)
	}
	recs := queued(t, kb)
	if len(recs) != 1 || recs[0].TranscriptPath != path || recs[0].Trigger != queue.TriggerBackfill {
		t.Fatalf("queue: %+v", recs)
	}
	code, stdout, _ = kb.run(t, "", false, "backfill")
	if code != 0 || !strings.Contains(stdout, "0 sessions to queue") || strings.Contains(stdout, "Queued") || len(queued(t, kb)) != 1 {
		t.Errorf("second backfill: exit %d\n%s", code, stdout)
	}
}

func TestBackfillAsksBeforeAnLLMWriter(t *testing.T) {
	t.Parallel()
	kb, _ := backfillKB(t)
	kb.env["REFLECT_WRITER"] = "claude"
	// No terminal, no --yes: the plan and its cost, and nothing queued.
	code, stdout, stderr := kb.run(t, "", false, "backfill")
	if code != 2 || !strings.Contains(stdout, "Writer: claude, an LLM") || !strings.Contains(stderr, "--yes") || len(queued(t, kb)) != 0 {
		t.Fatalf("no terminal: exit %d\n%s%s", code, stdout, stderr)
	}
	code, stdout, stderr = kb.run(t, "", false, "backfill", "--json")
	var rep map[string]any
	if code != 2 || json.Unmarshal([]byte(stdout), &rep) != nil || !strings.Contains(stderr, "--yes") || len(queued(t, kb)) != 0 {
		t.Fatalf("--json, no terminal: exit %d\n%s%s", code, stdout, stderr)
	}
	// On a terminal, anything but yes queues nothing.
	for _, answer := range []string{"", "\n", "n\n"} {
		code, _, stderr = kb.run(t, answer, true, "backfill")
		if code != 0 || !strings.Contains(stderr, "Queue 1 session for the claude writer? [y/N]") || !strings.Contains(stderr, "Nothing queued.") || len(queued(t, kb)) != 0 {
			t.Fatalf("answer %q: exit %d\n%s", answer, code, stderr)
		}
	}
	code, stdout, stderr = kb.run(t, "y\n", true, "backfill")
	// The plan went with the question, on stderr; stdout says what was queued.
	if code != 0 || !strings.Contains(stdout, "Queued 1 session") || strings.Contains(stdout, "Backfill plan") ||
		!strings.Contains(stderr, "Backfill plan") || len(queued(t, kb)) != 1 {
		t.Fatalf("yes: exit %d\n%s%s", code, stdout, stderr)
	}
}

func TestBackfillYesQueuesForAnLLMWriter(t *testing.T) {
	t.Parallel()
	kb, _ := backfillKB(t)
	kb.env["REFLECT_WRITER"] = "claude"
	if code, stdout, stderr := kb.run(t, "", false, "backfill", "--yes"); code != 0 || len(queued(t, kb)) != 1 {
		t.Fatalf("--yes: exit %d\n%s%s", code, stdout, stderr)
	}
}

func TestBackfillJSON(t *testing.T) {
	t.Parallel()
	kb, path := backfillKB(t)
	kb.env["REFLECT_WRITER"] = "claude"
	// Two past claude runs price the estimate.
	ledger := `{"ts":"2026-11-20T10:00:00Z","entry":"q-1","writer":"claude","outcome":"written","learnings":1,"cost_usd":0.02,"duration_ms":1}
{"ts":"2026-11-21T10:00:00Z","entry":"q-2","writer":"claude","outcome":"written","learnings":1,"cost_usd":0.04,"duration_ms":1}
{"ts":"2026-11-21T10:00:00Z","entry":"q-3","writer":"builtin","outcome":"written","learnings":1,"cost_usd":0,"duration_ms":1}
`
	if err := os.MkdirAll(kb.env["REFLECT_STATE_DIR"], 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(kb.env["REFLECT_STATE_DIR"], "drain-cost.jsonl"), []byte(ledger), 0o600); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := kb.run(t, "", false, "backfill", "--dry-run", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rep struct {
		DryRun bool `json:"dry_run"`
		Plan   struct {
			Agents []struct {
				Agent          string `json:"agent"`
				Sessions       int    `json:"sessions"`
				New            int    `json:"new"`
				CondensedChars int64  `json:"condensed_chars"`
				WriterRuns     int    `json:"writer_runs"`
			} `json:"agents"`
			Sessions []struct {
				Agent     string `json:"agent"`
				Path      string `json:"path"`
				SessionID string `json:"session_id"`
				Status    string `json:"status"`
				Condensed int    `json:"condensed_chars"`
			} `json:"sessions"`
			Problems []any `json:"problems"`
			Total    struct {
				New int `json:"new"`
			} `json:"total"`
		} `json:"plan"`
		Estimate struct {
			Writer   string   `json:"writer"`
			LLM      bool     `json:"llm"`
			PerRun   float64  `json:"per_run_usd"`
			PastRuns int      `json:"past_runs"`
			USD      *float64 `json:"usd"`
			Days     int      `json:"days"`
			Tokens   int64    `json:"input_tokens"`
			Caps     struct {
				DailyUSD  float64 `json:"daily_usd"`
				DailyMax  int     `json:"daily_max"`
				MaxPerRun int     `json:"max_per_run"`
			} `json:"caps"`
		} `json:"estimate"`
		Result *struct{} `json:"result"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("%v:\n%s", err, stdout)
	}
	if !rep.DryRun || rep.Result != nil || len(rep.Plan.Agents) != 5 || rep.Plan.Total.New != 1 || rep.Plan.Problems == nil {
		t.Errorf("report %+v", rep)
	}
	if a := rep.Plan.Agents[0]; a.Agent != "claude" || a.Sessions != 1 || a.New != 1 || a.WriterRuns != 1 || a.CondensedChars == 0 {
		t.Errorf("claude: %+v", a)
	}
	if len(rep.Plan.Sessions) != 1 || rep.Plan.Sessions[0].Path != path || rep.Plan.Sessions[0].Status != "new" ||
		rep.Plan.Sessions[0].SessionID != "9c19e7ca-363e-4250-8fe4-30525dab65ba" || rep.Plan.Sessions[0].Condensed == 0 {
		t.Errorf("sessions %+v", rep.Plan.Sessions)
	}
	e := rep.Estimate
	if e.Writer != "claude" || !e.LLM || e.PastRuns != 2 || e.PerRun < 0.0299 || e.PerRun > 0.0301 || e.USD == nil || e.Days != 1 ||
		e.Tokens == 0 || e.Caps.DailyUSD != 1 || e.Caps.DailyMax != 20 || e.Caps.MaxPerRun != 3 {
		t.Errorf("estimate %+v", e)
	}
	if len(queued(t, kb)) != 0 {
		t.Error("--dry-run --json queued")
	}
}

func TestBackfillQuietStderrOffATerminal(t *testing.T) {
	t.Parallel()
	kb, _ := backfillKB(t)
	// The progress bar is for terminals: piped, or with --json even on a
	// terminal, stderr holds nothing.
	for _, args := range [][]string{{"backfill", "--dry-run"}, {"backfill", "--dry-run", "--json"}} {
		tty := len(args) == 3
		if code, _, stderr := kb.run(t, "", tty, args...); code != 0 || stderr != "" {
			t.Errorf("%q (terminal %v): exit %d, stderr %q", args, tty, code, stderr)
		}
	}
}

// A dry run keeps what its plan read in backfill.json, so the run that
// follows does not condense the session again: blanked under the same size
// and time, it still queues as the dry run read it.
func TestBackfillDryRunKeepsWhatItRead(t *testing.T) {
	t.Parallel()
	kb, path := backfillKB(t)
	if code, _, stderr := kb.run(t, "", false, "backfill", "--dry-run"); code != 0 {
		t.Fatalf("dry run: exit %d: %s", code, stderr)
	}
	st, err := backfill.LoadState(kb.env["REFLECT_STATE_DIR"])
	if err != nil || len(st.Read) != 1 {
		t.Fatalf("backfill.json after --dry-run: %+v (%v)", st.Read, err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(strings.Repeat(" ", int(fi.Size()))), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := kb.run(t, "", false, "backfill")
	if code != 0 || !strings.Contains(stdout, "Queued 1 session") {
		t.Fatalf("backfill after the dry run: exit %d\n%s%s", code, stdout, stderr)
	}
}
