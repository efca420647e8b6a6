package recall

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/reflectkb/reflect/index"
)

// A learning marked wrong, outdated or never, or superseded by another, is
// never recalled (so no hook injects it), while search still finds it and
// says why it is held.
func TestRecallLeavesHeldLearningsOut(t *testing.T) {
	held := map[string]string{
		"lrn-webhook-wrong":      "feedback: {wrong: 1}\n",
		"lrn-webhook-outdated":   "feedback: {outdated: 2, helpful: 3}\n",
		"lrn-webhook-never":      "feedback: {never: 1}\n",
		"lrn-webhook-superseded": "superseded_by: lrn-webhook-ok\n",
		"lrn-webhook-ok":         "supersedes: lrn-webhook-superseded\nfeedback: {helpful: 1}\n",
	}
	ix := NewKB(t, func(docs string) {
		CopyCorpus(t, docs)
		for id, extra := range held {
			doc := "---\nid: " + id + "\ntitle: Flaky webhook retries duplicate ledger entries\nconfidence: high\n" + extra +
				"key_insight: Make the webhook handler idempotent with the delivery id before retrying.\ncreated: 2026-01-01T00:00:00Z\n---\nWebhook retries duplicated ledger entries.\n"
			if err := os.WriteFile(filepath.Join(docs, id+".md"), []byte(doc), 0o600); err != nil {
				t.Fatal(err)
			}
		}
	})
	prompt := "webhook retries create duplicate ledger entries again"
	res, err := Recall(context.Background(), ix, Request{Kind: Prompt, SessionID: "s1", StateDir: t.TempDir(), Prompt: prompt})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Injected) == 0 || res.Injected[0].ID != "lrn-webhook-ok" {
		t.Fatalf("injected %+v, want lrn-webhook-ok first", res.Injected)
	}
	for _, h := range res.Injected {
		if held[h.ID] != "" && h.ID != "lrn-webhook-ok" {
			t.Errorf("held learning %s was injected", h.ID)
		}
	}
	results, err := ix.Search(context.Background(), index.Query{Text: prompt, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"lrn-webhook-wrong": "wrong", "lrn-webhook-outdated": "outdated",
		"lrn-webhook-never": "never", "lrn-webhook-superseded": "superseded", "lrn-webhook-ok": ""}
	got := map[string]index.Result{}
	for _, r := range results {
		got[r.ID] = r
	}
	for id, reason := range want {
		r, ok := got[id]
		if !ok {
			t.Errorf("search does not find %s", id)
			continue
		}
		if r.Held != reason {
			t.Errorf("%s: Held = %q, want %q", id, r.Held, reason)
		}
	}
	if f := got["lrn-webhook-ok"].Why.Helpful; f != index.HelpfulFactor {
		t.Errorf("helpful factor of a helpful learning = %v, want %v", f, index.HelpfulFactor)
	}
	if f := got["lrn-webhook-outdated"].Why.Helpful; f != 1 {
		t.Errorf("helpful factor of a held learning = %v, want 1", f)
	}
	if fb := got["lrn-webhook-outdated"].Feedback; fb != "helpful 3, outdated 2" {
		t.Errorf("Feedback = %q", fb)
	}
}
