package e2e

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/reflectkb/reflect/e2e/fakemodel"
)

// The review inbox with the real Claude Code: Claude as the writer drafts
// a learning from a real session, which lands pending; the next session's
// model requests carry neither that draft nor a learning marked wrong (but
// say that one draft waits); after `reflect review approve` (and the mark
// cleared) the same session start and prompt bring both.
const (
	reviewFailCmd = "cat /etc/zorblat/zorblat.conf"
	reviewPrompt  = "Why does cat /etc/zorblat/zorblat.conf fail, and where is the zorblat config?"
)

func TestClaudeReview(t *testing.T) {
	setup(t)
	w := newWorld(t, "claude")
	out := w.reflectRun("add", "--title", "Zorblat config lives in /srv/zorblat",
		"--insight", "zorblat.conf is under /srv/zorblat, never under /etc/zorblat; cat /srv/zorblat/zorblat.conf.",
		"--project", "widget-service", "--confidence", "high", "--json")
	var added struct{ ID string }
	if err := json.Unmarshal(out, &added); err != nil || added.ID == "" {
		t.Fatalf("reflect add printed %s (%v)", out, err)
	}
	wrong := added.ID
	w.reflectRun("mark", wrong, "wrong")

	// A session that fails, queued by Stop, drafted by Claude as the writer.
	first := parseClaude(t, w.client("-p", "Show me the zorblat config. FAILCMD:<"+reviewFailCmd+">", "--output-format", "json", "--allowedTools", "Bash"))
	check(t, "review/first-turn", first.Subtype == "success" && !first.IsError, "turn: %+v", first)
	var rep drainReport
	out = w.reflectRun("drain", "--writer", "claude", "--json")
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("drain --json: %v\n%s", err, out)
	}
	var draft string
	for _, l := range learnings(t, w.kb) {
		if strings.HasPrefix(l.Title, fakemodel.WriterTitlePrefix) && strings.Contains(l.Title, reviewFailCmd) {
			draft = l.ID
			check(t, "review/draft-pending", strings.Contains(l.Text, "\nstatus: pending\n"), "the Claude writer's draft is not pending:\n%s", l.Text)
		}
	}
	if draft == "" {
		t.Fatalf("the Claude writer wrote no draft about %s: drain %s", reviewFailCmd, out)
	}

	// The next session: neither the draft nor the wrong one reaches the
	// model; the note that one draft waits does.
	before := len(w.server.Requests())
	second := parseClaude(t, w.client("-p", reviewPrompt, "--output-format", "json"))
	check(t, "review/second-turn", second.Subtype == "success" && !second.IsError, "turn: %+v", second)
	sent := requestsSince(w, before)
	check(t, "review/pending-not-injected", !strings.Contains(sent, draft), "a model request carried the pending draft %s", draft)
	check(t, "review/wrong-not-injected", !strings.Contains(sent, wrong), "a model request carried %s, marked wrong", wrong)
	check(t, "review/note-reaches-model", strings.Contains(sent, "1 learning waits for review: reflect review"), "no model request carried the review note")

	// Approved (and the mark cleared), both reach the model.
	out = w.reflectRun("review", "approve", "--all", "--yes", "--json")
	var approved struct{ IDs []string }
	if err := json.Unmarshal(out, &approved); err != nil || len(approved.IDs) != 1 || approved.IDs[0] != draft {
		t.Fatalf("review approve --all printed %s (%v), want %s", out, err, draft)
	}
	w.reflectRun("mark", wrong, "clear")
	before = len(w.server.Requests())
	third := parseClaude(t, w.client("-p", reviewPrompt, "--output-format", "json"))
	check(t, "review/third-turn", third.Subtype == "success" && !third.IsError, "turn: %+v", third)
	sent = requestsSince(w, before)
	check(t, "review/approved-injected", strings.Contains(sent, draft), "no model request carried the approved draft %s", draft)
	check(t, "review/cleared-injected", strings.Contains(sent, wrong), "no model request carried %s once its mark was cleared", wrong)
}

// requestsSince is the bodies of the model requests from the n-th on.
func requestsSince(w *world, n int) string {
	var b strings.Builder
	for _, r := range w.server.Requests()[n:] {
		b.Write(r.Body)
		b.WriteByte('\n')
	}
	return b.String()
}
