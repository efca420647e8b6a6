package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// search and list print each result's tail only when it types back to
// that learning: ids sharing a tail, or a tail that starts another id,
// are printed in full (index.ShortIDs, from the catalog).
func TestSearchAndListShortIDs(t *testing.T) {
	t.Parallel()
	kb := tempKB(t)
	if err := os.MkdirAll(kb.docs, 0o700); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"lrn-widget-cache-3f9a1c":     "lrn-widget-cache-3f9a1c", // same tail as the next
		"lrn-widget-flush-3f9a1c":     "lrn-widget-flush-3f9a1c",
		"lrn-widget-queue-b41d07":     "lrn-widget-queue-b41d07", // b41d07 starts another tail
		"lrn-widget-retry-b41d07aa":   "b41d07aa",
		"lrn-widget-limits-0c11aa":    "lrn-widget-limits-0c11aa", // an id starts with lrn-0c11aa
		"lrn-0c11aa-widget-notes-9e8": "lrn-0c11aa-widget-notes-9e8",
		"lrn-widget-timeout-fedcba":   "fedcba",
	}
	for id := range want {
		body := "---\nid: " + id + "\ntitle: \"Widget note " + id + "\"\nconfidence: high\ncreated: 2026-11-22T11:05:00Z\n---\n## Problem\nThe widget broke.\n"
		if err := os.WriteFile(filepath.Join(kb.docs, id+".md"), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"search", "--json", "--limit", "20", "widget"}, {"list", "--json"}} {
		code, stdout, stderr := kb.run(t, "", false, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		type item struct {
			ID      string `json:"id"`
			ShortID string `json:"short_id"`
		}
		var out struct{ Results, Learnings []item }
		if err := json.Unmarshal([]byte(stdout), &out); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, stdout)
		}
		got := append(out.Results, out.Learnings...)
		if len(got) != len(want) {
			t.Fatalf("%v: %d results, want %d:\n%s", args, len(got), len(want), stdout)
		}
		for _, r := range got {
			if r.ShortID != want[r.ID] {
				t.Errorf("%v: %s short id %q, want %q", args, r.ID, r.ShortID, want[r.ID])
			}
			if code, stdout, stderr := kb.run(t, "", false, "show", r.ShortID); code != 0 || !strings.Contains(stdout, r.ID) {
				t.Errorf("show %s: exit %d, %q %q", r.ShortID, code, stdout, stderr)
			}
		}
	}
}
