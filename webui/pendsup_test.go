package webui

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/reflectkb/reflect/internal/config"
	"github.com/reflectkb/reflect/store"
)

// supersedingDraftKB is a knowledge base holding an active learning and a
// pending draft that supersedes it.
func supersedingDraftKB(t *testing.T) (c *config.Config, old, draft string) {
	t.Helper()
	c = kb(t)
	old = put(t, c, &store.Learning{Title: "Widget cache needs warming", KeyInsight: "Run warm-cache before the benchmark."}, nil)
	draft = put(t, c, &store.Learning{Title: "Widget cache warms itself since v2", KeyInsight: "Drop the warm-cache step.",
		Status: store.StatusPending, Supersedes: old}, nil)
	return c, old, draft
}

// A pending draft that supersedes a learning leaves it injected: its page
// has no hold and names the draft, the inbox says what approving retires,
// and approving from the inbox (the knowledge package's Approve) applies
// the supersession. (On the old code the learning was held from the moment
// the draft was written.)
func TestInboxPendingSupersede(t *testing.T) {
	t.Parallel()
	c, old, draft := supersedingDraftKB(t)
	put(t, c, &store.Learning{Title: "Widget cache stampede", KeyInsight: "Jitter the expiry.", Status: store.StatusPending}, nil)
	ts, s := testServer(t, c)
	cl := login(t, ts.URL)

	_, body := get(t, cl, ts.URL+"/learning/"+old)
	if strings.Contains(body, `id="held"`) || strings.Contains(body, `id="superseded-by"`) ||
		!strings.Contains(body, `id="pending-superseded-by"`) || !strings.Contains(body, `<a href="/learning/`+draft+`">`+draft+`</a>`) {
		t.Errorf("the page of a learning a draft would supersede:\n%s", body)
	}
	_, body = get(t, cl, ts.URL+"/inbox")
	if !strings.Contains(body, `supersedes <code>`+old+`</code>: <a href="/learning/`+old+`">Widget cache needs warming</a>`) ||
		strings.Count(body, `class="supersedes"`) != 1 {
		t.Errorf("the inbox does not say (only) what the draft supersedes:\n%s", body)
	}
	res, _ := post(t, cl, ts.URL+"/inbox/"+draft+"/approve", url.Values{"csrf": {s.CSRF()}})
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("approve: %d", res.StatusCode)
	}
	if l, err := store.Open(c.DocumentsDir()).Read(old); err != nil || l.SupersededBy != draft || l.Held() != "superseded" {
		t.Errorf("after approval: %+v, %v", l, err)
	}
	_, body = get(t, cl, ts.URL+"/learning/"+old)
	if !strings.Contains(body, `id="held"`) || !strings.Contains(body, `id="superseded-by"`) || strings.Contains(body, `id="pending-superseded-by"`) {
		t.Errorf("the superseded learning's page after approval:\n%s", body)
	}
}

// Rejecting the draft from the inbox leaves the learning as it was.
func TestInboxRejectPendingSupersede(t *testing.T) {
	t.Parallel()
	c, old, draft := supersedingDraftKB(t)
	ts, s := testServer(t, c)
	cl := login(t, ts.URL)
	res, _ := post(t, cl, ts.URL+"/inbox/"+draft+"/reject", url.Values{"csrf": {s.CSRF()}})
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("reject: %d", res.StatusCode)
	}
	if l, err := store.Open(c.DocumentsDir()).Read(old); err != nil || l.SupersededBy != "" || l.Held() != "" {
		t.Errorf("after the reject: %+v, %v", l, err)
	}
	if _, body := get(t, cl, ts.URL+"/learning/"+old); strings.Contains(body, `id="held"`) || strings.Contains(body, "superseded-by") {
		t.Errorf("the learning's page after the reject:\n%s", body)
	}
}
