package webui

import (
	"html"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/reflectkb/reflect/internal/config"
	"github.com/reflectkb/reflect/recall"
	"github.com/reflectkb/reflect/store"
)

// browserForm is what a browser submits for the form whose action is
// action on page: every named input with its value, each select's
// selected option (the first when none is selected, as a browser does)
// and each textarea's text, without the newline after its start tag.
// Submit buttons and unticked checkboxes are left out.
func browserForm(t *testing.T, page, action string) url.Values {
	t.Helper()
	start := strings.Index(page, `action="`+action+`"`)
	if start < 0 {
		t.Fatalf("no form posting to %s on the page", action)
	}
	form := page[start:]
	form = form[:strings.Index(form, "</form>")]
	v := url.Values{}
	attr := func(tag, name string) (string, bool) {
		m := regexp.MustCompile(`\s` + name + `="([^"]*)"`).FindStringSubmatch(tag)
		if m == nil {
			return "", false
		}
		return html.UnescapeString(m[1]), true
	}
	for _, tag := range regexp.MustCompile(`<input[^>]*>`).FindAllString(form, -1) {
		name, _ := attr(tag, "name")
		typ, _ := attr(tag, "type")
		if name == "" || (typ == "checkbox" && !strings.Contains(tag, " checked")) {
			continue
		}
		val, _ := attr(tag, "value")
		v.Add(name, val)
	}
	for _, m := range regexp.MustCompile(`(?s)<select name="([^"]*)">(.*?)</select>`).FindAllStringSubmatch(form, -1) {
		opts := regexp.MustCompile(`<option([^>]*)>([^<]*)</option>`).FindAllStringSubmatch(m[2], -1)
		chosen := opts[0]
		for _, o := range opts {
			if strings.Contains(o[1], "selected") {
				chosen = o
			}
		}
		val, ok := attr(chosen[1], "value")
		if !ok {
			val = html.UnescapeString(chosen[2])
		}
		v.Set(m[1], val)
	}
	for _, m := range regexp.MustCompile(`(?s)<textarea name="([^"]*)"[^>]*>(.*?)</textarea>`).FindAllStringSubmatch(form, -1) {
		v.Set(m[1], html.UnescapeString(strings.TrimPrefix(m[2], "\n")))
	}
	return v
}

// writeDoc writes l to the documents directory as a hand-made or synced
// file would be, before the server starts (its refresh indexes it).
func writeDoc(t *testing.T, c *config.Config, l *store.Learning) *store.Learning {
	t.Helper()
	if l.Confidence == "" {
		l.Confidence = "medium"
	}
	l.FillDefaults(time.Now())
	if err := store.Open(c.DocumentsDir()).Write(l); err != nil {
		t.Fatal(err)
	}
	return l
}

func readDoc(t *testing.T, c *config.Config, id string) (*store.Learning, string) {
	t.Helper()
	st := store.Open(c.DocumentsDir())
	l, err := st.Read(id)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := st.ReadRaw(id)
	if err != nil {
		t.Fatal(err)
	}
	return l, string(raw)
}

// TestEditBodyWritesOnlyWhatChanged: the form a browser submits from the
// page of a learning with no scope, its body changed and nothing else,
// writes the body and no scope (the old form wrote 'scope: project').
func TestEditBodyWritesOnlyWhatChanged(t *testing.T) {
	t.Parallel()
	c := kb(t)
	l := writeDoc(t, c, &store.Learning{Title: "Vendored protoc needs PATH", KeyInsight: "Put bin/ first on PATH.",
		Category: "build", Tags: []string{"protoc"}, Body: "## Problem\nprotoc not found\n"})
	ts, _ := testServer(t, c)
	cl := login(t, ts.URL)
	_, page := get(t, cl, ts.URL+"/learning/"+l.ID)
	form := browserForm(t, page, "/learning/"+l.ID+"/edit")
	if form.Get("body") != "## Problem\nprotoc not found" || form.Get("scope") != "" {
		t.Fatalf("the form holds body %q, scope %q; want the learning's body and no scope", form.Get("body"), form.Get("scope"))
	}
	// A browser sends a textarea's lines ended by CRLF.
	form.Set("body", "## Problem\r\nprotoc not found\r\n\r\n## Solution\r\nexport PATH=$PWD/bin:$PATH\r\n")
	res, _ := post(t, cl, ts.URL+"/learning/"+l.ID+"/edit", form)
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("edit: %d", res.StatusCode)
	}
	got, raw := readDoc(t, c, l.ID)
	if got.Body != "## Problem\nprotoc not found\n\n## Solution\nexport PATH=$PWD/bin:$PATH\n" {
		t.Errorf("body %q", got.Body)
	}
	if strings.Contains(raw, "scope:") || strings.Contains(raw, "project:") || got.Category != "build" || got.Title != l.Title || got.KeyInsight != l.KeyInsight {
		t.Errorf("an untouched field was written:\n%s", raw)
	}
	_, page = get(t, cl, ts.URL+"/learning/"+l.ID+"?saved=1")
	if !strings.Contains(page, "<h2>Solution</h2>") || !strings.Contains(page, "Saved.") {
		t.Errorf("page after the edit lacks the new body or the message")
	}
	// Posting the same form again changes nothing.
	_, page = get(t, cl, ts.URL+"/learning/"+l.ID)
	res, _ = post(t, cl, ts.URL+"/learning/"+l.ID+"/edit", browserForm(t, page, "/learning/"+l.ID+"/edit"))
	if loc := res.Header.Get("Location"); res.StatusCode != http.StatusSeeOther || !strings.HasSuffix(loc, "saved=0") {
		t.Errorf("unchanged form: %d to %q, want a redirect saying nothing changed", res.StatusCode, loc)
	}
	if _, raw2 := readDoc(t, c, l.ID); raw2 != raw {
		t.Errorf("an unchanged form rewrote the file:\n%s\nwas\n%s", raw2, raw)
	}
}

// TestEditSendsOnlyChangedFields: a client may post just the fields it
// changes; the others keep their values on disk.
func TestEditSendsOnlyChangedFields(t *testing.T) {
	t.Parallel()
	c := kb(t)
	l := writeDoc(t, c, &store.Learning{Title: "Only the title moves", Scope: "personal", Project: "p", Body: "body\n"})
	ts, s := testServer(t, c)
	cl := login(t, ts.URL)
	res, _ := post(t, cl, ts.URL+"/learning/"+l.ID+"/edit", url.Values{"csrf": {s.CSRF()}, "title": {"The title moved"}})
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("edit: %d", res.StatusCode)
	}
	got, _ := readDoc(t, c, l.ID)
	if got.Title != "The title moved" || got.Scope != "personal" || got.Project != "p" || got.Body != "body\n" || got.Confidence != "medium" {
		t.Errorf("after a title-only edit: %+v", got)
	}
}

// TestEditErrorsLoseNothing: an edit that fails the check is refused with
// the file unchanged and the page showing the user's text to fix.
func TestEditErrorsLoseNothing(t *testing.T) {
	t.Parallel()
	c := kb(t)
	l := writeDoc(t, c, &store.Learning{Title: "Keep me", Body: "old body\n"})
	ts, _ := testServer(t, c)
	cl := login(t, ts.URL)
	_, page := get(t, cl, ts.URL+"/learning/"+l.ID)
	_, before := readDoc(t, c, l.ID)
	form := browserForm(t, page, "/learning/"+l.ID+"/edit")
	form.Set("title", "   ")
	form.Set("body", "a long new body the user typed <b>with markup</b>\n")
	res, body := post(t, cl, ts.URL+"/learning/"+l.ID+"/edit", form)
	if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, "Not saved") {
		t.Fatalf("invalid edit: %d\n%s", res.StatusCode, body)
	}
	if !strings.Contains(body, "a long new body the user typed &lt;b&gt;with markup&lt;/b&gt;") {
		t.Errorf("the refused page does not give the typed body back")
	}
	if _, after := readDoc(t, c, l.ID); after != before {
		t.Errorf("a refused edit changed the file")
	}
	// The page given back posts the user's text again once fixed.
	form = browserForm(t, body, "/learning/"+l.ID+"/edit")
	if form.Get("body") != "a long new body the user typed <b>with markup</b>" {
		t.Fatalf("refused page's form body %q", form.Get("body"))
	}
	form.Set("title", "Kept")
	if res, _ := post(t, cl, ts.URL+"/learning/"+l.ID+"/edit", form); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("fixed edit: %d", res.StatusCode)
	}
	if got, _ := readDoc(t, c, l.ID); got.Title != "Kept" || !strings.HasPrefix(got.Body, "a long new body") {
		t.Errorf("after the fix: %+v", got)
	}
}

// TestEditRedacts: a secret typed into the body never reaches the file,
// and the page says something was redacted.
func TestEditRedacts(t *testing.T) {
	t.Parallel()
	c := kb(t)
	l := writeDoc(t, c, &store.Learning{Title: "Token in the body", Body: "x\n"})
	ts, s := testServer(t, c)
	cl := login(t, ts.URL)
	res, _ := post(t, cl, ts.URL+"/learning/"+l.ID+"/edit", url.Values{"csrf": {s.CSRF()},
		"body": {`export GITHUB_TOKEN="ghp_FAKEexample0123456789abcdefghijklmno"`}})
	if res.StatusCode != http.StatusSeeOther || !strings.Contains(res.Header.Get("Location"), "redacted=") {
		t.Fatalf("edit: %d to %q, want a redirect naming the redaction", res.StatusCode, res.Header.Get("Location"))
	}
	if _, raw := readDoc(t, c, l.ID); strings.Contains(raw, "ghp_FAKE") || !strings.Contains(raw, "REDACTED") {
		t.Errorf("the secret reached the file:\n%s", raw)
	}
	_, page := get(t, cl, ts.URL+res.Header.Get("Location"))
	if !strings.Contains(page, "redacted from what you wrote") {
		t.Errorf("the page does not say a secret was redacted")
	}
}

// TestEditConflict: a field changed on disk after the page was loaded is
// not overwritten by a stale form; saving the page given back keeps the
// user's text.
func TestEditConflict(t *testing.T) {
	t.Parallel()
	c := kb(t)
	l := writeDoc(t, c, &store.Learning{Title: "Original title", Body: "body\n"})
	ts, _ := testServer(t, c)
	cl := login(t, ts.URL)
	_, page := get(t, cl, ts.URL+"/learning/"+l.ID)
	form := browserForm(t, page, "/learning/"+l.ID+"/edit")
	onDisk, _ := readDoc(t, c, l.ID)
	onDisk.Title = "Changed elsewhere"
	if err := store.Open(c.DocumentsDir()).Write(onDisk); err != nil {
		t.Fatal(err)
	}
	form.Set("title", "Changed here")
	res, body := post(t, cl, ts.URL+"/learning/"+l.ID+"/edit", form)
	if res.StatusCode != http.StatusConflict || !strings.Contains(body, "title changed on disk") {
		t.Fatalf("stale edit: %d\n%s", res.StatusCode, body)
	}
	if got, _ := readDoc(t, c, l.ID); got.Title != "Changed elsewhere" {
		t.Errorf("a stale form overwrote the title: %q", got.Title)
	}
	if res, _ := post(t, cl, ts.URL+"/learning/"+l.ID+"/edit", browserForm(t, body, "/learning/"+l.ID+"/edit")); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("saving again: %d", res.StatusCode)
	}
	if got, _ := readDoc(t, c, l.ID); got.Title != "Changed here" {
		t.Errorf("saving again did not keep the user's title: %q", got.Title)
	}
}

// TestMarkButtons: the page's mark buttons count marks through the
// knowledge base, the page shows the counts and why the hooks hold the
// learning, clear removes them, and a bad mark is a clear 400.
func TestMarkButtons(t *testing.T) {
	t.Parallel()
	c := kb(t)
	sd := seedKB(t, c)
	ts, s := testServer(t, c)
	cl := login(t, ts.URL)
	_, page := get(t, cl, ts.URL+"/learning/"+sd.Related)
	for _, m := range []string{"helpful", "wrong", "outdated", "never", "clear"} {
		if !strings.Contains(page, `name="mark" value="`+m+`"`) {
			t.Errorf("no %s button", m)
		}
	}
	u := ts.URL + "/learning/" + sd.Related + "/mark"
	if res, _ := post(t, cl, u, url.Values{"mark": {"wrong"}}); res.StatusCode != http.StatusForbidden {
		t.Errorf("mark without CSRF: %d", res.StatusCode)
	}
	for _, m := range []string{"helpful", "wrong"} {
		if res, _ := post(t, cl, u, url.Values{"csrf": {s.CSRF()}, "mark": {m}}); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("mark %s: %d", m, res.StatusCode)
		}
	}
	l, _ := readDoc(t, c, sd.Related)
	if l.Feedback == nil || l.Feedback.Helpful != 1 || l.Feedback.Wrong != 1 {
		t.Fatalf("feedback %+v", l.Feedback)
	}
	_, page = get(t, cl, ts.URL+"/learning/"+sd.Related+"?marked=wrong")
	for _, want := range []string{`<p id="marks">helpful 1, wrong 1</p>`, "Not injected by hooks: marked wrong", "Marked wrong."} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if _, page = get(t, cl, ts.URL+"/learning/"+sd.Related+"?marked=pwned+by+a+link"); strings.Contains(page, "pwned by a link") {
		t.Error("the page echoes a message from its address")
	}
	res, body := post(t, cl, u, url.Values{"csrf": {s.CSRF()}, "mark": {"<b>great</b>"}})
	if res.StatusCode != http.StatusBadRequest || !strings.Contains(body, "unknown mark") || strings.Contains(body, "<b>great") {
		t.Errorf("bad mark: %d\n%s", res.StatusCode, body)
	}
	if res, _ := post(t, cl, ts.URL+"/learning/lrn-nothing-like-it/mark", url.Values{"csrf": {s.CSRF()}, "mark": {"wrong"}}); res.StatusCode != http.StatusNotFound {
		t.Errorf("mark of an unknown id: %d, want 404", res.StatusCode)
	}
	if res, _ := post(t, cl, u, url.Values{"csrf": {s.CSRF()}, "mark": {"clear"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("clear: %d", res.StatusCode)
	}
	if l, _ := readDoc(t, c, sd.Related); l.Feedback != nil || l.Held() != "" {
		t.Errorf("after clear: %+v", l.Feedback)
	}
	if _, page = get(t, cl, ts.URL+"/learning/"+sd.Related); !strings.Contains(page, "No marks.") || strings.Contains(page, `id="held"`) {
		t.Errorf("page after clear still shows marks")
	}
}

// TestSupersessionChainBothWays: each page of a chain links the others,
// and the superseded one says the hooks hold it.
func TestSupersessionChainBothWays(t *testing.T) {
	t.Parallel()
	c := kb(t)
	old := put(t, c, &store.Learning{Title: "Use npm install in CI", Body: "old\n"}, nil)
	mid := put(t, c, &store.Learning{Title: "Use npm ci in CI", Supersedes: old, Body: "mid\n"}, nil)
	cur := put(t, c, &store.Learning{Title: "Use npm ci --ignore-scripts in CI", Supersedes: mid, Body: "new\n"}, nil)
	ts, _ := testServer(t, c)
	cl := login(t, ts.URL)
	_, page := get(t, cl, ts.URL+"/learning/"+mid)
	for _, want := range []string{
		`<ol class="chain" id="superseded-by"><li><a href="/learning/` + cur + `">Use npm ci --ignore-scripts in CI</a>`,
		`<ol class="chain" id="supersedes"><li><a href="/learning/` + old + `">Use npm install in CI</a>`,
		"Not injected by hooks: superseded by a newer learning",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("middle of the chain lacks %q", want)
		}
	}
	_, page = get(t, cl, ts.URL+"/learning/"+old)
	if !strings.Contains(page, `href="/learning/`+mid+`"`) || !strings.Contains(page, `href="/learning/`+cur+`"`) {
		t.Errorf("the oldest learning does not link both that replace it")
	}
	_, page = get(t, cl, ts.URL+"/learning/"+cur)
	if strings.Contains(page, `id="superseded-by"`) || !strings.Contains(page, `href="/learning/`+old+`"`) || strings.Contains(page, `id="held"`) {
		t.Errorf("the newest learning's chain is wrong")
	}
}

// needsReviewBody is a body a sync merge kept both versions of.
func needsReviewBody() string {
	base := &store.Learning{Title: "T", Body: "one\n"}
	ours, theirs := *base, *base
	ours.Body, theirs.Body = "run make gen first\n", "run go generate first\n"
	return store.MergeFrom(base, &ours, &theirs, func(string, string, string) (string, bool) { return "", false },
		store.Sides{Ours: "laptop", Theirs: "desktop"}).Body
}

// TestNeedsReviewBannerAndResolve: a learning a sync merge marked
// needs_review has a banner; editing the body to one version with 'mark
// resolved' ticked clears the flag; resolving a body that still holds
// both versions asks first.
func TestNeedsReviewBannerAndResolve(t *testing.T) {
	t.Parallel()
	c := kb(t)
	a := writeDoc(t, c, &store.Learning{Title: "Generate before build", Body: needsReviewBody(), NeedsReview: true})
	b := writeDoc(t, c, &store.Learning{Title: "Another merged one", Body: needsReviewBody(), NeedsReview: true})
	ts, s := testServer(t, c)
	cl := login(t, ts.URL)
	_, page := get(t, cl, ts.URL+"/learning/"+a.ID)
	if !strings.Contains(page, `id="needs-review"`) || !strings.Contains(page, "Version from laptop") || !strings.Contains(page, `name="resolve"`) {
		t.Fatalf("no needs-review banner or resolve box:\n%s", page)
	}
	// Resolving without editing asks first: the body holds both versions.
	res, body := post(t, cl, ts.URL+"/learning/"+a.ID+"/resolve", url.Values{"csrf": {s.CSRF()}})
	if res.StatusCode != http.StatusConflict || !strings.Contains(body, "still holds both versions") {
		t.Errorf("resolve of an unsettled body: %d", res.StatusCode)
	}
	if l, _ := readDoc(t, c, a.ID); !l.NeedsReview {
		t.Fatal("needs_review cleared without asking")
	}
	form := browserForm(t, page, "/learning/"+a.ID+"/edit")
	form.Set("body", "run make gen first\n")
	form.Set("resolve", "1")
	if res, _ := post(t, cl, ts.URL+"/learning/"+a.ID+"/edit", form); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("edit and resolve: %d", res.StatusCode)
	}
	l, raw := readDoc(t, c, a.ID)
	if l.NeedsReview || l.Body != "run make gen first\n" || strings.Contains(raw, "needs_review") {
		t.Errorf("after edit and resolve:\n%s", raw)
	}
	if _, page = get(t, cl, ts.URL+"/learning/"+a.ID); strings.Contains(page, `id="needs-review"`) {
		t.Errorf("banner still shown after resolving")
	}
	// Keeping both versions is a choice the banner's button confirms.
	_, page = get(t, cl, ts.URL+"/learning/"+b.ID)
	if res, _ := post(t, cl, ts.URL+"/learning/"+b.ID+"/resolve", browserForm(t, page, "/learning/"+b.ID+"/resolve")); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("keep both: %d", res.StatusCode)
	}
	if l, _ := readDoc(t, c, b.ID); l.NeedsReview || !store.HoldsBothVersions(l.Body) {
		t.Errorf("keep both: review %v body %q", l.NeedsReview, l.Body)
	}
	if res, _ := post(t, cl, ts.URL+"/learning/lrn-nothing-like-it/resolve", url.Values{"csrf": {s.CSRF()}}); res.StatusCode != http.StatusNotFound {
		t.Errorf("resolve of an unknown id: %d", res.StatusCode)
	}
	if res, _ := post(t, cl, ts.URL+"/learning/lrn-nothing-like-it/edit", url.Values{"csrf": {s.CSRF()}, "title": {"x"}}); res.StatusCode != http.StatusNotFound {
		t.Errorf("edit of an unknown id: %d", res.StatusCode)
	}
}

// TestSessionPage: the ledger's injections of a session, with each
// learning linked and its evidence and the query, linked from the
// activity page and from the learning's page; an unknown session is 404.
func TestSessionPage(t *testing.T) {
	t.Parallel()
	c := kb(t)
	sd := seedKB(t, c)
	const sid = "3f0c8e62/odd?id#x"
	now := time.Now().UTC()
	inject := func(session, hook, query string, ids ...string) {
		res := recall.Result{Query: query}
		for i, id := range ids {
			res.Injected = append(res.Injected, recall.Hit{ID: id, Evidence: 1.5 - float64(i)/2})
		}
		if err := recall.RecordInjection(c.StateDir, "claude", hook, session, res, now); err != nil {
			t.Fatal(err)
		}
	}
	inject(sid, "prompt", "why does the oauth callback lose its state", sd.Cookie, sd.Related)
	inject(sid, "session-start", "auth-service main", sd.Cookie)
	inject("other-session", "prompt", "nginx proxy", sd.Related)
	ts, _ := testServer(t, c)
	cl := login(t, ts.URL)
	link := "/session/" + url.PathEscape(sid)
	res, page := get(t, cl, ts.URL+link)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("session page: %d\n%s", res.StatusCode, page)
	}
	for _, want := range []string{"why does the oauth callback lose its state", "auth-service main", "claude prompt", "claude session-start",
		`<a href="/learning/` + sd.Cookie + `">OAuth state cookie must be SameSite=Lax</a> <span class="muted">1.50</span>`,
		`<a href="/learning/` + sd.Related + `">Session cookie lost behind the proxy</a> <span class="muted">1.00</span>`,
		"2 injections of 2 learnings"} {
		if !strings.Contains(page, want) {
			t.Errorf("session page lacks %q", want)
		}
	}
	if strings.Contains(page, "nginx proxy") {
		t.Error("session page shows another session's injection")
	}
	// A new injection shows at once: the page's copy of the ledger is
	// read again when the ledger changes.
	inject(sid, "prompt", "a later question about samesite", sd.Hostile)
	if _, page = get(t, cl, ts.URL+link); !strings.Contains(page, "a later question about samesite") || !strings.Contains(page, "3 injections of 3 learnings") {
		t.Errorf("session page misses an injection recorded after it was first shown")
	}
	if res, _ := get(t, cl, ts.URL+"/session/no-such-session"); res.StatusCode != http.StatusNotFound {
		t.Errorf("unknown session: %d, want 404", res.StatusCode)
	}
	_, page = get(t, cl, ts.URL+"/activity")
	if !strings.Contains(page, `href="`+link+`"`) || !strings.Contains(page, `href="/session/other-session"`) {
		t.Errorf("activity page does not link the sessions")
	}
	_, page = get(t, cl, ts.URL+"/learning/"+sd.Cookie)
	if !strings.Contains(page, `href="`+link+`"`) || strings.Contains(page, "/session/other-session") {
		t.Errorf("learning page does not link (only) the session it was injected in")
	}
	// A learning forgotten since is named, not linked.
	if err := os.Remove(filepath.Join(c.DocumentsDir(), sd.Related+".md")); err != nil {
		t.Fatal(err)
	}
	if _, page = get(t, cl, ts.URL+link); !strings.Contains(page, "<code>"+sd.Related+"</code> <span class=\"muted\">(forgotten since)</span>") {
		t.Errorf("a forgotten learning is not marked on the session page")
	}
}
