package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// writeDrafts puts pending drafts into k's documents, as a drain under
// review writes them, and returns their ids in the order given.
func writeDrafts(t *testing.T, k *testKB, titles ...string) []string {
	t.Helper()
	if err := os.MkdirAll(k.docs, 0o700); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for i, title := range titles {
		id := "lrn-draft-" + strings.ToLower(strings.ReplaceAll(title, " ", "-"))
		doc := "---\nid: " + id + "\ntitle: " + title + "\nconfidence: medium\nstatus: pending\nkey_insight: " + title +
			" happens when the widget cache is cold.\ncreated: 2026-11-2" + string(rune('1'+i)) + "T10:00:00Z\n---\n## Problem\n" + title + "\n"
		if err := os.WriteFile(filepath.Join(k.docs, id+".md"), []byte(doc), 0o600); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	return ids
}

func (k *testKB) mustRun(t *testing.T, args ...string) string {
	t.Helper()
	code, stdout, stderr := k.run(t, "", false, args...)
	if code != 0 {
		t.Fatalf("%s: exit %d: %s", strings.Join(args, " "), code, stderr)
	}
	return stdout
}

func TestReviewListsApprovesAndRejects(t *testing.T) {
	t.Parallel()
	k := tempKB(t)
	k.mustRun(t, "add", "--title", "Widget cache needs warming by hand", "--insight", "run warm-cache before the widget benchmark")
	ids := writeDrafts(t, k, "Widget cache misses", "Widget cache evictions", "Widget cache stampede")

	var list struct {
		Pending []reviewItem `json:"pending"`
		Count   int          `json:"count"`
	}
	if err := json.Unmarshal([]byte(k.mustRun(t, "review", "--json")), &list); err != nil {
		t.Fatal(err)
	}
	if list.Count != 3 || len(list.Pending) != 3 || list.Pending[0].ID != ids[0] {
		t.Fatalf("review --json: %+v; want the three drafts, oldest first (the added learning is not pending)", list)
	}
	if out := k.mustRun(t, "review"); !strings.Contains(out, "3 learnings wait for review: reflect review") || !strings.Contains(out, "Widget cache stampede") {
		t.Errorf("review:\n%s", out)
	}
	// Search and list find drafts only when asked, marked.
	if out := k.mustRun(t, "search", "widget", "cache"); strings.Contains(out, "lrn-draft") || !strings.Contains(out, "warming by hand") {
		t.Errorf("search found a draft unasked:\n%s", out)
	}
	if out := k.mustRun(t, "search", "--all", "widget", "cache", "stampede"); !strings.Contains(out, "pending review") {
		t.Errorf("search --all does not mark the draft pending:\n%s", out)
	}
	if out := k.mustRun(t, "list", "--pending"); strings.Count(out, "[pending]") != 3 || strings.Contains(out, "warming") {
		t.Errorf("list --pending:\n%s", out)
	}

	var res reviewResult
	if err := json.Unmarshal([]byte(k.mustRun(t, "review", "approve", "--json", ids[0][len(ids[0])-6:])), &res); err != nil {
		t.Fatal(err)
	}
	if res.Action != "approved" || !slices.Equal(res.IDs, ids[:1]) || res.Pending != 2 {
		t.Errorf("approve --json: %+v", res)
	}
	if out := k.mustRun(t, "search", "widget", "cache", "misses"); !strings.Contains(out, ids[0]) {
		t.Errorf("an approved draft is not found by a plain search:\n%s", out)
	}
	// --all from a script needs --yes, and changes nothing without it.
	code, _, stderr := k.run(t, "", false, "review", "reject", "--all")
	if code == 0 || !strings.Contains(stderr, "pass --yes") {
		t.Errorf("reject --all without --yes: exit %d, %q", code, stderr)
	}
	out := k.mustRun(t, "review", "reject", "--all", "--yes")
	if !strings.Contains(out, "Rejected "+ids[1]) || !strings.Contains(out, "No learnings wait for review.") {
		t.Errorf("reject --all --yes:\n%s", out)
	}
	for _, id := range ids[1:] {
		if _, err := os.Stat(filepath.Join(k.docs, id+".md")); !os.IsNotExist(err) {
			t.Errorf("rejected %s still on disk: %v", id, err)
		}
	}
	rej, err := os.ReadFile(filepath.Join(k.env["REFLECT_STATE_DIR"], "rejected-drafts.txt"))
	if err != nil || strings.Count(string(rej), "\n") != 2 {
		t.Errorf("rejected-drafts.txt: %q, %v", rej, err)
	}
}

func TestReviewRefusesUnknownAndActiveIDs(t *testing.T) {
	t.Parallel()
	k := tempKB(t)
	active := strings.TrimPrefix(strings.SplitN(k.mustRun(t, "add", "--title", "Widget cache needs warming", "--insight", "run warm-cache first"), "\n", 2)[0], "Added ")
	ids := writeDrafts(t, k, "Widget cache misses")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"review", "approve", "lrn-nope"}, `no learning "lrn-nope"`},
		{[]string{"review", "reject", ids[0], active}, active + " is not awaiting review"},
		{[]string{"review", "approve"}, "or pass --all"},
		{[]string{"review", "approve", "--all", ids[0]}, "not both"},
		{[]string{"review", "edit", active}, "is not awaiting review"},
	} {
		code, _, stderr := k.run(t, "", false, tc.args...)
		if code == 0 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want %q", tc.args, code, stderr, tc.want)
		}
	}
	if _, err := os.Stat(filepath.Join(k.docs, ids[0]+".md")); err != nil {
		t.Errorf("a refused batch removed the draft: %v", err)
	}
}

// On a terminal review asks about each draft, one key each.
func TestReviewOneKeyEach(t *testing.T) {
	t.Parallel()
	k := tempKB(t)
	ids := writeDrafts(t, k, "Widget cache misses", "Widget cache evictions", "Widget cache stampede", "Widget cache warmth")
	code, stdout, stderr := k.run(t, "a r x s q", true, "review")
	if code != 0 {
		t.Fatalf("review: exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "[1/4] Widget cache misses") || !strings.Contains(stdout, "Approved "+ids[0]) || !strings.Contains(stdout, "Rejected "+ids[1]) ||
		!strings.Contains(stderr, "Press a, r, e, s or q.") || !strings.Contains(stdout, "[4/4]") {
		t.Errorf("stdout:\n%s\nstderr:\n%s", stdout, stderr)
	}
	var list struct{ Pending []reviewItem }
	if err := json.Unmarshal([]byte(k.mustRun(t, "review", "--json")), &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Pending) != 2 || list.Pending[0].ID != ids[2] || list.Pending[1].ID != ids[3] {
		t.Errorf("left pending: %+v; want the skipped one and the one after quit", list.Pending)
	}
}

// review edit runs the edit command's editor flow, then approves.
func TestReviewEditThenApproves(t *testing.T) {
	t.Parallel()
	k := tempKB(t)
	ids := writeDrafts(t, k, "Widget cache misses")
	fakeEditor(t, k, `sed -i 's/when the widget cache is cold/when the widget cache is cold after a deploy/' "$f"`+"\n")
	out := k.mustRun(t, "review", "edit", ids[0])
	if !strings.Contains(out, "Updated "+ids[0]) || !strings.Contains(out, "Approved "+ids[0]) {
		t.Errorf("review edit:\n%s", out)
	}
	doc, _ := os.ReadFile(filepath.Join(k.docs, ids[0]+".md"))
	if !strings.Contains(string(doc), "after a deploy") || strings.Contains(string(doc), "status:") {
		t.Errorf("document:\n%s", doc)
	}
}

// status and config say how many drafts wait and whether new ones will.
func TestStatusCountsPending(t *testing.T) {
	t.Parallel()
	k := tempKB(t)
	writeDrafts(t, k, "Widget cache misses", "Widget cache evictions")
	var st struct {
		Knowledge struct{ Pending int }
		Writer    struct{ Review bool }
	}
	if err := json.Unmarshal([]byte(k.mustRun(t, "status", "--json")), &st); err != nil {
		t.Fatal(err)
	}
	if st.Knowledge.Pending != 2 || st.Writer.Review {
		t.Errorf("status --json: %+v; want 2 pending, review off for the builtin writer", st)
	}
	if out := k.mustRun(t, "status"); !strings.Contains(out, "review:     2 learnings wait for review: reflect review") {
		t.Errorf("status:\n%s", out)
	}
	if out := k.mustRun(t, "statusline", "--color", "never"); !strings.Contains(out, "2 to review") {
		t.Errorf("statusline: %q", out)
	}
	k.env["REFLECT_WRITER"] = "claude"
	if out := k.mustRun(t, "config", "get", "drain.review"); !strings.Contains(out, "true") {
		t.Errorf("config get drain.review with the claude writer: %q", out)
	}
}

func TestReviewFlags(t *testing.T) {
	t.Parallel()
	var got *ReviewOptions
	runF := func(o *ReviewOptions) error { c := *o; got = &c; return nil }
	for _, tc := range []struct {
		args []string
		want ReviewOptions
	}{
		{[]string{"--json"}, ReviewOptions{JSON: true, Refs: []string{}}},
		{[]string{"approve", "--all", "--json", "--yes"}, ReviewOptions{Action: "approve", All: true, JSON: true, Yes: true, Refs: []string{}}},
		{[]string{"reject", "3f9a1c", "7d2e40"}, ReviewOptions{Action: "reject", Refs: []string{"3f9a1c", "7d2e40"}}},
		{[]string{"edit", "3f9a1c"}, ReviewOptions{Action: "edit", Refs: []string{"3f9a1c"}}},
	} {
		got = nil
		execute(t, NewCmdReview(seamFactory(), runF), tc.args...)
		if got == nil || got.Action != tc.want.Action || got.All != tc.want.All || got.JSON != tc.want.JSON || got.Yes != tc.want.Yes || !slices.Equal(got.Refs, tc.want.Refs) {
			t.Errorf("%q: %+v, want %+v", tc.args, got, tc.want)
		}
	}
}

// A draft that proposes an update of an active learning (updates: ID) is
// listed as "update of ID: title" with the change as a diff (text and
// --json); approving it rewrites that learning, which keeps its id and
// scope, and removes the draft.
func TestReviewUpdateProposal(t *testing.T) {
	t.Parallel()
	k := tempKB(t)
	var added struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal([]byte(k.mustRun(t, "add", "--json", "--scope", "global", "--title", "Widget cache needs warming by hand",
		"--insight", "run warm-cache before the widget benchmark")), &added); err != nil || added.ID == "" {
		t.Fatalf("add --json: %+v, %v", added, err)
	}
	draft := "lrn-draft-widget-warm"
	doc := "---\nid: " + draft + "\ntitle: Widget cache needs warming by hand\nconfidence: high\nstatus: pending\nupdates: " + added.ID +
		"\nkey_insight: run warm-cache --all before any widget benchmark\nscope: project\nproject: elsewhere\ncreated: 2026-11-21T10:00:00Z\n---\n## Solution\nWarm every shard.\n"
	if err := os.WriteFile(filepath.Join(k.docs, draft+".md"), []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	var list struct {
		Pending []reviewItem `json:"pending"`
	}
	if err := json.Unmarshal([]byte(k.mustRun(t, "review", "--json")), &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Pending) != 1 || list.Pending[0].Updates == nil || list.Pending[0].Updates.ID != added.ID ||
		list.Pending[0].Updates.Title != "Widget cache needs warming by hand" ||
		!strings.Contains(list.Pending[0].Updates.Diff, "+key_insight: run warm-cache --all before any widget benchmark\n") {
		t.Fatalf("review --json: %+v", list.Pending)
	}
	out := k.mustRun(t, "review")
	if !strings.Contains(out, "update of "+added.ID+": Widget cache needs warming by hand") || !strings.Contains(out, "-key_insight: run warm-cache before the widget benchmark") {
		t.Errorf("review:\n%s", out)
	}
	// One key each shows it the same way; skipped, it still waits.
	if code, stdout, stderr := k.run(t, "s", true, "review"); code != 0 || !strings.Contains(stdout, "update of "+added.ID+": Widget cache needs warming by hand") ||
		!strings.Contains(stdout, "+key_insight: run warm-cache --all before any widget benchmark") {
		t.Errorf("review on a terminal: exit %d\n%s\n%s", code, stdout, stderr)
	}
	var res reviewResult
	if err := json.Unmarshal([]byte(k.mustRun(t, "review", "approve", "--json", draft)), &res); err != nil {
		t.Fatal(err)
	}
	if res.Updated[draft] != added.ID || res.Pending != 0 {
		t.Errorf("approve --json: %+v", res)
	}
	if _, err := os.Stat(filepath.Join(k.docs, draft+".md")); !os.IsNotExist(err) {
		t.Errorf("the approved draft is still on disk: %v", err)
	}
	show := k.mustRun(t, "show", added.ID)
	if !strings.Contains(show, "run warm-cache --all before any widget benchmark") || !strings.Contains(show, "Warm every shard") || strings.Contains(show, "elsewhere") {
		t.Errorf("the learning after approval:\n%s", show)
	}
}
