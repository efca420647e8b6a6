package webui

import (
	"html"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reflectkb/reflect/knowledge"
	"github.com/reflectkb/reflect/store"
)

// The inbox lists the drafts awaiting review with approve and reject
// buttons that need the CSRF token; the nav shows the count; a rejected
// draft is deleted and remembered, an approved one becomes searchable.
func TestInboxApprovesAndRejects(t *testing.T) {
	t.Parallel()
	c := kb(t)
	seedKB(t, c)
	a := put(t, c, &store.Learning{Title: "Widget cache misses after deploy", KeyInsight: "Warm the widget cache after each deploy.", Status: store.StatusPending}, nil)
	b := put(t, c, &store.Learning{Title: "Widget cache stampede at noon", KeyInsight: "Jitter the widget cache expiry.", Status: store.StatusPending}, nil)
	ts, s := testServer(t, c)
	cl := login(t, ts.URL)

	res, body := get(t, cl, ts.URL+"/inbox")
	if res.StatusCode != http.StatusOK || !strings.Contains(body, `id="draft-`+a+`"`) || !strings.Contains(body, `id="draft-`+b+`"`) ||
		!strings.Contains(body, `Review <span class="count">2</span>`) || strings.Contains(body, "SameSite=Lax</a>") {
		t.Fatalf("inbox: %d\n%s", res.StatusCode, body)
	}
	if _, body := get(t, cl, ts.URL+"/api/search?q=widget+cache"); strings.Contains(body, a) {
		t.Errorf("the web view's search finds a pending draft: %s", body)
	}
	if res, _ := post(t, cl, ts.URL+"/inbox/"+a+"/approve", url.Values{}); res.StatusCode != http.StatusForbidden {
		t.Errorf("approve without CSRF: %d, want 403", res.StatusCode)
	}
	res, _ = post(t, cl, ts.URL+"/inbox/"+a+"/approve", url.Values{"csrf": {s.CSRF()}})
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/inbox?done=approved&n=1" {
		t.Fatalf("approve: %d %s", res.StatusCode, res.Header.Get("Location"))
	}
	if _, body := get(t, cl, ts.URL+"/api/search?q=widget+cache+deploy"); !strings.Contains(body, a) {
		t.Errorf("an approved draft is not found: %s", body)
	}
	res, _ = post(t, cl, ts.URL+"/inbox/all/reject", url.Values{"csrf": {s.CSRF()}, "id": {b}})
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("reject all: %d", res.StatusCode)
	}
	if _, err := os.Stat(filepath.Join(c.DocumentsDir(), b+".md")); !os.IsNotExist(err) {
		t.Errorf("rejected draft still on disk: %v", err)
	}
	if got, _ := knowledge.NewRejections(c.StateDir).Load(); len(got) != 1 {
		t.Errorf("rejections remembered: %d, want 1", len(got))
	}
	_, body = get(t, cl, ts.URL+"/inbox?done=rejected&n=1")
	if !strings.Contains(body, `id="inbox-empty"`) || !strings.Contains(body, "rejected 1.") || strings.Contains(body, `class="count"`) {
		t.Errorf("inbox after review:\n%s", body)
	}
	// A second approve of the same id: a clear error, nothing changed.
	if res, body := post(t, cl, ts.URL+"/inbox/"+a+"/approve", url.Values{"csrf": {s.CSRF()}}); res.StatusCode != http.StatusNotFound || !strings.Contains(body, "is not awaiting review") {
		t.Errorf("approve of an active learning: %d\n%s", res.StatusCode, body)
	}
	if res, _ := post(t, cl, ts.URL+"/inbox/"+a+"/delete", url.Values{"csrf": {s.CSRF()}}); res.StatusCode != http.StatusNotFound {
		t.Errorf("unknown action: %d, want 404", res.StatusCode)
	}
}

// A draft that proposes an update of an active learning shows, in the
// inbox, which learning it updates and the change; approving it there
// rewrites that learning and removes the draft. The learning page of a
// draft has a pending-review banner whose buttons post to the inbox; an
// active learning's page has none.
func TestInboxShowsUpdateProposal(t *testing.T) {
	t.Parallel()
	c := kb(t)
	target := put(t, c, &store.Learning{Title: "Widget cache needs warming", KeyInsight: "Run warm-cache before the benchmark."}, nil)
	draft := put(t, c, &store.Learning{Title: "Widget cache needs warming first", KeyInsight: "Run warm-cache --all before any benchmark.",
		Status: store.StatusPending, Updates: target}, nil)
	ts, s := testServer(t, c)
	cl := login(t, ts.URL)

	_, body := get(t, cl, ts.URL+"/inbox")
	body = html.UnescapeString(body) // the diff's '+' is escaped
	if !strings.Contains(body, `update of <code>`+target+`</code>: <a href="/learning/`+target+`">Widget cache needs warming</a>`) ||
		!strings.Contains(body, "+key_insight: Run warm-cache --all before any benchmark.") || !strings.Contains(body, "-key_insight: Run warm-cache before the benchmark.") {
		t.Fatalf("inbox does not show the update:\n%s", body)
	}
	_, body = get(t, cl, ts.URL+"/learning/"+draft)
	if !strings.Contains(body, `id="pending-banner"`) || !strings.Contains(body, `action="/inbox/`+draft+`/approve"`) ||
		!strings.Contains(body, `action="/inbox/`+draft+`/reject"`) || !strings.Contains(body, `<a href="/learning/`+target+`">Widget cache needs warming</a>: approving rewrites`) {
		t.Errorf("the draft's page has no review banner naming its target:\n%s", body)
	}
	if _, body := get(t, cl, ts.URL+"/learning/"+target); strings.Contains(body, "pending-banner") {
		t.Errorf("an active learning's page has a review banner")
	}
	res, _ := post(t, cl, ts.URL+"/inbox/"+draft+"/approve", url.Values{"csrf": {s.CSRF()}})
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("approve: %d", res.StatusCode)
	}
	l, err := store.Open(c.DocumentsDir()).Read(target)
	if err != nil || l.KeyInsight != "Run warm-cache --all before any benchmark." || l.Pending() {
		t.Errorf("target after approval: %+v, %v", l, err)
	}
	if _, err := os.Stat(filepath.Join(c.DocumentsDir(), draft+".md")); !os.IsNotExist(err) {
		t.Errorf("approved draft still on disk: %v", err)
	}
}

// A plain pending draft's page has the banner too, without an update.
func TestLearningPagePendingBanner(t *testing.T) {
	t.Parallel()
	c := kb(t)
	draft := put(t, c, &store.Learning{Title: "Widget cache stampede", KeyInsight: "Jitter the expiry.", Status: store.StatusPending}, nil)
	ts, _ := testServer(t, c)
	cl := login(t, ts.URL)
	_, body := get(t, cl, ts.URL+"/learning/"+draft)
	if !strings.Contains(body, `id="pending-banner"`) || !strings.Contains(body, `action="/inbox/`+draft+`/reject"`) || strings.Contains(body, "It is an update of") {
		t.Errorf("a draft's page:\n%s", body)
	}
}
