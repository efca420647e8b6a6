package recall

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

func TestRecallSkips(t *testing.T) {
	ix := NewKB(t, func(docs string) { CopyCorpus(t, docs) })
	home := GitEnv(t)
	state := t.TempDir()
	for _, req := range []Request{
		{Kind: Prompt, Prompt: "/compact"},
		{Kind: Prompt, Prompt: "thanks!"},
		{Kind: Prompt, Prompt: "<reflect-learnings>\n- [high] SQLite database is locked (lrn-sqlite-database-locked-wal)\n</reflect-learnings>"},
		{Kind: SessionStart, Cwd: home},
		{Kind: SessionStart},
	} {
		req.SessionID, req.StateDir = "s1", state
		res, err := Recall(context.Background(), ix, req)
		if err != nil {
			t.Fatal(err)
		}
		if res.Context != "" || res.Skipped == "" || len(res.Injected) != 0 {
			t.Errorf("%+v: want a skip, got %+v", req, res)
		}
	}
	if n := InjectedCount(state, "s1"); n != 0 {
		t.Errorf("skips recorded %d injections", n)
	}
	if _, err := Recall(context.Background(), ix, Request{Prompt: "a prompt without a kind"}); err == nil {
		t.Error("a request without a kind should be an error")
	}
}

// TestRecallPrefersCurrentProject: two learnings that match a prompt
// equally well but belong to different projects are ranked by the project
// the session works in.
func TestRecallPrefersCurrentProject(t *testing.T) {
	GitEnv(t)
	ix := NewKB(t, func(docs string) {
		CopyCorpus(t, docs)
		for _, project := range []string{"billing-api", "auth-service"} {
			doc := fmt.Sprintf("---\nid: lrn-flaky-webhook-retries-%s\ntitle: Flaky webhook retries duplicate ledger entries\nconfidence: high\nscope: project\nproject: %s\nkey_insight: Make the webhook handler idempotent with the delivery id before retrying.\ncreated: 2026-01-01T00:00:00Z\n---\nWebhook retries duplicated ledger entries.\n", project, project)
			if err := os.WriteFile(filepath.Join(docs, "lrn-flaky-webhook-retries-"+project+".md"), []byte(doc), 0o600); err != nil {
				t.Fatal(err)
			}
		}
	})
	for _, project := range []string{"billing-api", "auth-service"} {
		dir := filepath.Join(t.TempDir(), "checkout")
		NewRepo(t, dir, "main", "git@github.com:acme/"+project+".git", "initial")
		res, err := Recall(context.Background(), ix, Request{Kind: Prompt, Cwd: dir, Prompt: "webhook retries create duplicate ledger entries again"})
		if err != nil {
			t.Fatal(err)
		}
		if res.Project != project {
			t.Errorf("project = %q, want %q", res.Project, project)
		}
		if len(res.Injected) == 0 || res.Injected[0].ID != "lrn-flaky-webhook-retries-"+project {
			t.Errorf("in %s: injected %v, want this project's learning first", project, IDs(res.Injected))
		}
	}
}
