package webui

import (
	"strings"
	"testing"
	"time"

	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/reflectkb/reflect/recall"
	"github.com/reflectkb/reflect/store"
)

// TestEditAndMarkInBrowser: in Chromium, editing only the body of a
// learning with no scope saves the body and writes no scope; the mark
// buttons count a mark, show why the hooks hold the learning and clear
// it; the session page of the ledger opens from the learning's page; a
// needs-review banner resolves; no page trips the Content-Security-Policy.
func TestEditAndMarkInBrowser(t *testing.T) {
	c := kb(t)
	l := writeDoc(t, c, &store.Learning{Title: "Vendored protoc needs PATH", KeyInsight: "Put bin/ first on PATH.",
		Body: "## Problem\nprotoc not found\n"})
	review := writeDoc(t, c, &store.Learning{Title: "Generate before build", Body: needsReviewBody(), NeedsReview: true})
	res := recall.Result{Query: "protoc not found", Injected: []recall.Hit{{ID: l.ID, Evidence: 1.25}}}
	if err := recall.RecordInjection(c.StateDir, "codex", "prompt", "sess-browser-1", res, time.Now()); err != nil {
		t.Fatal(err)
	}
	ts, _ := testServer(t, c)
	ctx, seen := browser(t)
	shots := screenshotDir(t)
	if _, err := chromedp.Call(ctx, cdppage.AddScriptToEvaluateOnNewDocument, cdppage.AddScriptToEvaluateOnNewDocumentParams{Source: cspWatch}); err != nil {
		t.Fatal(err)
	}
	do(t, ctx, "login", chromedp.Navigate(ts.URL+"/?token="+testToken), visible(`#results`))
	do(t, ctx, "learning page", chromedp.Navigate(ts.URL+"/learning/"+l.ID), visible(`#body h2`))
	do(t, ctx, "open edit", chromedp.Click(chromedp.CSS(`#edit summary`)), visible(`textarea[name=body]`))
	if got := value(t, ctx, "body field", chromedp.Evaluate[string](`document.querySelector('textarea[name=body]').value`)); got != "## Problem\nprotoc not found" {
		t.Errorf("the body field holds %q", got)
	}
	screenshot(t, ctx, shots, "learning-edit")
	do(t, ctx, "edit body",
		chromedp.SetValue(chromedp.CSS(`textarea[name=body]`), "## Problem\nprotoc not found\n\n## Solution\nPut `bin/` first on PATH.\n"),
		chromedp.Click(chromedp.CSS(`#save`)), visible(`#message`))
	if m := text(t, ctx, `#message`); m != "Saved." {
		t.Errorf("after saving the page says %q", m)
	}
	got, raw := readDoc(t, c, l.ID)
	if !strings.Contains(got.Body, "## Solution\nPut `bin/` first on PATH.") || strings.Contains(raw, "scope:") || got.Title != l.Title {
		t.Errorf("after editing the body in the browser:\n%s", raw)
	}
	if n := value(t, ctx, "solution", chromedp.Evaluate[int](`[...document.querySelectorAll('#body h2')].filter(h => h.textContent === 'Solution').length`)); n != 1 {
		t.Errorf("the page does not show the edited body")
	}

	do(t, ctx, "mark wrong", chromedp.Click(chromedp.CSS(`#mark-wrong`)), visible(`#held`))
	if m := text(t, ctx, `#marks`); m != "wrong 1" {
		t.Errorf("marks shown as %q", m)
	}
	if h := text(t, ctx, `#held`); !strings.Contains(h, "marked wrong") {
		t.Errorf("held shown as %q", h)
	}
	if got, _ := readDoc(t, c, l.ID); got.Held() != "wrong" {
		t.Errorf("after the wrong button the learning is held %q", got.Held())
	}
	screenshot(t, ctx, shots, "learning-marked")
	do(t, ctx, "clear marks", chromedp.Click(chromedp.CSS(`#mark-clear`)), chromedp.WaitNotPresent(chromedp.CSS(`#held`)), visible(`#message`))
	if m := text(t, ctx, `#message`); m != "Marks cleared." {
		t.Errorf("after clearing the page says %q", m)
	}
	if got, _ := readDoc(t, c, l.ID); got.Feedback != nil {
		t.Errorf("after clear: %+v", got.Feedback)
	}

	do(t, ctx, "session page", chromedp.Click(chromedp.CSS(`#injected a`)), visible(`#injections`))
	if s := text(t, ctx, `#session`); s != "sess-browser-1" {
		t.Errorf("session page of %q", s)
	}
	if q := text(t, ctx, `#injections`); !strings.Contains(q, "protoc not found") || !strings.Contains(q, "Vendored protoc needs PATH") {
		t.Errorf("session page shows %q", q)
	}
	screenshot(t, ctx, shots, "session")

	// A needs-review learning: the banner, then keeping both versions.
	do(t, ctx, "needs-review page", chromedp.Navigate(ts.URL+"/learning/"+review.ID), visible(`#needs-review`))
	screenshot(t, ctx, shots, "learning-needs-review")
	do(t, ctx, "resolve", chromedp.Click(chromedp.CSS(`#resolve`)), visible(`#message`))
	if n := value(t, ctx, "banner", chromedp.Evaluate[int](`document.querySelectorAll('#needs-review').length`)); n != 0 {
		t.Error("the needs-review banner is still shown after resolving")
	}
	if got, _ := readDoc(t, c, review.ID); got.NeedsReview {
		t.Error("resolving in the browser left needs_review set")
	}
	if v := value(t, ctx, "csp", chromedp.Evaluate[[]string](`window.__csp`)); len(v) > 0 {
		t.Errorf("the pages tripped the Content-Security-Policy %d times: %q", len(v), v)
	}
	if p := seen.list(); len(p) > 0 {
		t.Errorf("the pages raised dialogs or exceptions: %q", p)
	}
}
