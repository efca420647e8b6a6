package webui

import (
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reflectkb/reflect/queue"
	"github.com/reflectkb/reflect/store"
)

func get(t *testing.T, c *http.Client, u string, header ...string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		if header[i] == "Host" {
			req.Host = header[i+1]
		} else {
			req.Header.Set(header[i], header[i+1])
		}
	}
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res, string(b)
}

func post(t *testing.T, c *http.Client, u string, form url.Values, header ...string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, u, strings.NewReader(form.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res, string(b)
}

// login opens the token URL and returns the client holding the cookie.
func login(t *testing.T, ts string) *http.Client {
	t.Helper()
	c := client(t)
	res, _ := get(t, c, ts+"/?token="+testToken)
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("token URL: status %d, want 303 to drop the token from the address", res.StatusCode)
	}
	return c
}

func TestTokenIsRequiredAndBecomesACookie(t *testing.T) {
	t.Parallel()
	c := kb(t)
	seedKB(t, c)
	ts, srv := testServer(t, c)
	for _, path := range []string{"/", "/api/search?q=cookie", "/graph", "/activity", "/static/app.css"} {
		if res, _ := get(t, client(t), ts.URL+path); res.StatusCode != http.StatusUnauthorized {
			t.Errorf("GET %s without token: %d, want 401", path, res.StatusCode)
		}
	}
	if res, _ := get(t, client(t), ts.URL+"/?token=wrong"+testToken[5:]); res.StatusCode != http.StatusUnauthorized {
		t.Errorf("wrong token: %d, want 401", res.StatusCode)
	}
	cl := client(t)
	res, _ := get(t, cl, ts.URL+"/?token="+testToken+"&q=oauth")
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/?q=oauth" {
		t.Fatalf("token URL: %d to %q, want 303 to /?q=oauth", res.StatusCode, res.Header.Get("Location"))
	}
	var ck *http.Cookie
	for _, k := range res.Cookies() {
		if k.Name == srv.CookieName() {
			ck = k
		}
	}
	if ck == nil || !ck.HttpOnly || ck.SameSite != http.SameSiteStrictMode || ck.Value != testToken {
		t.Fatalf("cookie %+v, want HttpOnly SameSite=Strict carrying the token", ck)
	}
	res, body := get(t, cl, ts.URL+"/")
	if res.StatusCode != http.StatusOK || !strings.Contains(body, `id="q"`) {
		t.Fatalf("with the cookie: %d\n%s", res.StatusCode, body)
	}
	if got := res.Header.Get("Content-Security-Policy"); !strings.HasPrefix(got, "default-src 'self'") {
		t.Errorf("CSP %q", got)
	}
	if strings.Contains(body, "<script>") {
		t.Errorf("the page has an inline script, which the CSP would block:\n%s", body)
	}
}

func TestHostHeaderMustNameTheServer(t *testing.T) {
	t.Parallel()
	c := kb(t)
	ts, srv := testServer(t, c)
	port := ts.URL[strings.LastIndex(ts.URL, ":")+1:]
	for host, want := range map[string]int{
		"evil.example:" + port:   http.StatusForbidden,
		"localhost.evil:" + port: http.StatusForbidden,
		"127.0.0.1:1":            http.StatusForbidden,
		"localhost:" + port:      http.StatusOK,
		"127.0.0.1:" + port:      http.StatusOK,
	} {
		// The cookie is set by hand: a cookie jar keys cookies by URL.
		if res, _ := get(t, client(t), ts.URL+"/", "Host", host, "Cookie", srv.CookieName()+"="+testToken); res.StatusCode != want {
			t.Errorf("Host %s: %d, want %d", host, res.StatusCode, want)
		}
	}
}

func TestForgetNeedsPostCSRFAndConfirmation(t *testing.T) {
	t.Parallel()
	c := kb(t)
	sd := seedKB(t, c)
	ts, s := testServer(t, c)
	cl := login(t, ts.URL)
	path := filepath.Join(c.DocumentsDir(), sd.Cookie+".md")
	exists := func() bool { _, err := os.Stat(path); return err == nil }
	u := ts.URL + "/learning/" + sd.Cookie + "/forget"

	if res, _ := get(t, cl, u); res.StatusCode != http.StatusMethodNotAllowed || !exists() {
		t.Fatalf("GET forget: %d, exists %v; want 405 and nothing deleted", res.StatusCode, exists())
	}
	if res, _ := post(t, cl, u, url.Values{"confirm": {"yes"}}); res.StatusCode != http.StatusForbidden || !exists() {
		t.Fatalf("POST without CSRF: %d; want 403 and nothing deleted", res.StatusCode)
	}
	if res, _ := post(t, cl, u, url.Values{"confirm": {"yes"}, "csrf": {"forged"}}); res.StatusCode != http.StatusForbidden || !exists() {
		t.Fatalf("POST with a wrong CSRF token: %d; want 403", res.StatusCode)
	}
	if res, _ := post(t, client(t), u, url.Values{"confirm": {"yes"}, "csrf": {s.CSRF()}}); res.StatusCode != http.StatusUnauthorized || !exists() {
		t.Fatalf("POST without the cookie: %d; want 401", res.StatusCode)
	}
	res, body := post(t, cl, u, url.Values{"csrf": {s.CSRF()}})
	if res.StatusCode != http.StatusOK || !strings.Contains(body, `id="confirm-forget"`) || !exists() {
		t.Fatalf("POST without confirm: %d, want the confirmation page and nothing deleted\n%s", res.StatusCode, body)
	}
	res, _ = post(t, cl, u, url.Values{"confirm": {"yes"}}, "X-CSRF-Token", s.CSRF())
	if res.StatusCode != http.StatusSeeOther || exists() {
		t.Fatalf("confirmed forget: %d, exists %v; want 303 and the file gone", res.StatusCode, exists())
	}
	if _, err := os.Stat(filepath.Join(c.DocumentsDir(), sd.Cookie+".entities.yaml")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("sidecar left behind: %v", err)
	}
	var sr SearchResponse
	_, body = get(t, cl, ts.URL+"/api/search?q=SameSite+state+cookie")
	if err := json.Unmarshal([]byte(body), &sr); err != nil {
		t.Fatal(err)
	}
	for _, r := range sr.Results {
		if r.ID == sd.Cookie {
			t.Errorf("forgotten learning still found by search")
		}
	}
}

func TestSearchAPI(t *testing.T) {
	t.Parallel()
	c := kb(t)
	sd := seedKB(t, c)
	ts, _ := testServer(t, c)
	cl := login(t, ts.URL)
	var sr SearchResponse
	res, body := get(t, cl, ts.URL+"/api/search?q=oauth+state+cookie")
	if res.StatusCode != http.StatusOK {
		t.Fatalf("%d %s", res.StatusCode, body)
	}
	if err := json.Unmarshal([]byte(body), &sr); err != nil {
		t.Fatal(err)
	}
	if len(sr.Results) == 0 || sr.Results[0].ID != sd.Cookie {
		t.Fatalf("results %+v, want %s first", sr.Results, sd.Cookie)
	}
	top := sr.Results[0]
	if top.ShortID == "" || len(top.ShortID) >= len(top.ID) || !strings.Contains(top.Explain, "lexical #1") {
		t.Errorf("short id %q, explain %q", top.ShortID, top.Explain)
	}
	// Filters narrow the ranking.
	_, body = get(t, cl, ts.URL+"/api/search?q=cookie&confidence=medium")
	sr = SearchResponse{}
	_ = json.Unmarshal([]byte(body), &sr)
	if len(sr.Results) != 1 || sr.Results[0].ID != sd.Related {
		t.Errorf("confidence=medium: %+v, want only %s", sr.Results, sd.Related)
	}
	_, body = get(t, cl, ts.URL+"/api/search?q=&tag=hostile")
	sr = SearchResponse{}
	_ = json.Unmarshal([]byte(body), &sr)
	if !sr.Recent || len(sr.Results) != 1 || sr.Results[0].ID != sd.Hostile {
		t.Errorf("empty query with tag=hostile: %+v", sr)
	}
	// JSON escapes < and >: the hostile title cannot close a script.
	_, body = get(t, cl, ts.URL+"/api/search?q=hostile")
	if strings.Contains(body, "<") || !strings.Contains(body, `\u003cimg`) {
		t.Errorf("JSON does not escape <:\n%s", body)
	}
}

func TestLearningPageEscapesHostileText(t *testing.T) {
	t.Parallel()
	c := kb(t)
	sd := seedKB(t, c)
	ts, _ := testServer(t, c)
	cl := login(t, ts.URL)
	res, body := get(t, cl, ts.URL+"/learning/"+sd.Hostile)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("%d %s", res.StatusCode, body)
	}
	for _, bad := range []string{"<img", "<script>window", "onerror=\"window", "javascript:"} {
		if strings.Contains(body, bad) {
			t.Errorf("page holds %q unescaped", bad)
		}
	}
	for _, shown := range []string{"&lt;script&gt;window.__pwned=4&lt;/script&gt;", "&lt;img src=x onerror="} {
		if !strings.Contains(body, shown) {
			t.Errorf("page does not show %q as text", shown)
		}
	}
}

func TestLearningPage(t *testing.T) {
	t.Parallel()
	c := kb(t)
	sd := seedKB(t, c)
	ts, s := testServer(t, c)
	cl := login(t, ts.URL)
	_, body := get(t, cl, ts.URL+"/learning/"+sd.Cookie[len(sd.Cookie)-6:])
	for _, want := range []string{"<h2>Solution</h2>", "<code>SameSite=Lax</code>", "callback/cookie.go", "Session cookie lost behind the proxy", "shares SameSite"} {
		if !strings.Contains(body, want) {
			t.Errorf("learning page lacks %q", want)
		}
	}
	if res, _ := get(t, cl, ts.URL+"/learning/lrn-nothing-like-it"); res.StatusCode != http.StatusNotFound {
		t.Errorf("unknown learning: %d, want 404", res.StatusCode)
	}
	// Editing fields rewrites the file and the index.
	res, _ := post(t, cl, ts.URL+"/learning/"+sd.Cookie+"/edit", url.Values{"csrf": {s.CSRF()},
		"title": {"OAuth state cookie wants SameSite Lax"}, "confidence": {"low"}, "scope": {"project"},
		"project": {"auth-service"}, "tags": {"oauth, cookies, edited"}, "key_insight": {"Strict drops it."}})
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("edit: %d", res.StatusCode)
	}
	l, err := store.Open(c.DocumentsDir()).Read(sd.Cookie)
	if err != nil {
		t.Fatal(err)
	}
	if l.Title != "OAuth state cookie wants SameSite Lax" || l.Confidence != "low" || len(l.Tags) != 3 || l.Body == "" {
		t.Errorf("after edit: %+v", l)
	}
	var sr SearchResponse
	_, body = get(t, cl, ts.URL+"/api/search?q=wants")
	_ = json.Unmarshal([]byte(body), &sr)
	if len(sr.Results) == 0 || sr.Results[0].ID != sd.Cookie || sr.Results[0].Confidence != "low" {
		t.Errorf("search after edit: %+v", sr.Results)
	}
	res, body = post(t, cl, ts.URL+"/learning/"+sd.Cookie+"/edit", url.Values{"csrf": {s.CSRF()}, "title": {""}, "confidence": {"sure"}})
	if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, "Not saved") {
		t.Errorf("invalid edit: %d", res.StatusCode)
	}
}

func TestGraphAPI(t *testing.T) {
	t.Parallel()
	c := kb(t)
	seedKB(t, c)
	ts, _ := testServer(t, c)
	cl := login(t, ts.URL)
	var v struct {
		Nodes []struct {
			ID     int64
			Name   string
			Degree int
		}
		Edges []struct{ Source, Target int64 }
		Total int
	}
	_, body := get(t, cl, ts.URL+"/api/graph")
	if err := json.Unmarshal([]byte(body), &v); err != nil {
		t.Fatal(err)
	}
	var sameSite int64
	for _, n := range v.Nodes {
		if n.Name == "SameSite" {
			sameSite = n.ID
			if n.Degree != 3 {
				t.Errorf("SameSite degree %d, want 3", n.Degree)
			}
		}
	}
	if sameSite == 0 || len(v.Edges) < 3 {
		t.Fatalf("graph view %s", body)
	}
	_, body = get(t, cl, ts.URL+"/api/graph?type=tool")
	v.Nodes = nil
	_ = json.Unmarshal([]byte(body), &v)
	if len(v.Nodes) != 1 || v.Nodes[0].Name != "nginx" {
		t.Errorf("type=tool: %s", body)
	}
	_, body = get(t, cl, ts.URL+"/api/entity/"+jsonInt(sameSite))
	if !strings.Contains(body, "OAuth state cookie") || !strings.Contains(body, "Session cookie lost") {
		t.Errorf("entity learnings: %s", body)
	}
	// A neighbourhood: nginx and what it relates to, nothing else.
	var nginx int64
	for _, n := range v.Nodes {
		nginx = n.ID
	}
	v.Nodes, v.Edges = nil, nil
	_, body = get(t, cl, ts.URL+"/api/graph?focus="+jsonInt(nginx))
	_ = json.Unmarshal([]byte(body), &v)
	if len(v.Nodes) != 2 || len(v.Edges) != 1 {
		t.Errorf("focus on nginx: %s, want nginx and SameSite joined by one edge", body)
	}
	if res, _ := get(t, cl, ts.URL+"/api/graph?type=bogus"); res.StatusCode != http.StatusBadRequest {
		t.Errorf("bogus type: %d", res.StatusCode)
	}
}

func jsonInt(n int64) string { b, _ := json.Marshal(n); return string(b) }

func TestActivityQueueActions(t *testing.T) {
	t.Parallel()
	c := kb(t)
	ts, s := testServer(t, c)
	cl := login(t, ts.URL)
	q, err := queue.Open(c.StateDir)
	if err != nil {
		t.Fatal(err)
	}
	transcript := filepath.Join(t.TempDir(), "x.jsonl")
	if err := os.WriteFile(transcript, []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if ok, why, err := q.Enqueue(queue.Record{TranscriptPath: transcript, SessionID: "s1", Trigger: "stop", Harness: "claude", Cwd: "/tmp"}); err != nil || !ok {
		t.Fatalf("enqueue: %v %s", err, why)
	}
	recs, _, _ := q.List()
	if len(recs) != 1 {
		t.Fatalf("queue %+v", recs)
	}
	ledger := `{"ts":"` + time.Now().UTC().Format(time.RFC3339) + `","entry":"q-test-run","writer":"claude","outcome":"ok","learnings":2,"cost_usd":0.25,"duration_ms":1500}` + "\n" +
		`{"ts":"` + time.Now().UTC().Format(time.RFC3339) + `","entry":"q-tiny-run","writer":"claude","outcome":"ok","learnings":1,"cost_usd":0.001,"duration_ms":900}` + "\n"
	if err := os.WriteFile(filepath.Join(c.StateDir, "drain-cost.jsonl"), []byte(ledger), 0o600); err != nil {
		t.Fatal(err)
	}
	today := time.Now().UTC()
	if err := os.WriteFile(filepath.Join(c.StateDir, "recall-hits.json"), []byte(`{"`+today.Format(time.DateOnly)+`":7}`), 0o600); err != nil {
		t.Fatal(err)
	}
	_, body := get(t, cl, ts.URL+"/activity")
	// Under a dollar, cents: a tenth of a cent is not "$0.00". No writer
	// was chosen, so the page says the builtin one runs and how to opt in.
	for _, want := range []string{recs[0].ID, "q-test-run", "25¢", "0.1¢", "1500 ms", "(1 waiting)", today.Format("01-02") + ": 7 learnings recalled",
		"<strong>builtin</strong>: no LLM, nothing is spent", "reflect config set drain.writer claude",
		"Today: 2 writer runs of 20 a day, 25.1¢ spent of $1.00 a day."} {
		if !strings.Contains(body, want) {
			t.Errorf("activity page lacks %q", want)
		}
	}
	if strings.Contains(body, "$0.00") {
		t.Error("activity page shows $0.00 for a run that cost $0.001")
	}
	if res, _ := post(t, cl, ts.URL+"/queue/"+recs[0].ID+"/drop", url.Values{}); res.StatusCode != http.StatusForbidden {
		t.Errorf("drop without CSRF: %d", res.StatusCode)
	}
	if res, _ := post(t, cl, ts.URL+"/queue/"+recs[0].ID+"/drop", url.Values{"csrf": {s.CSRF()}}); res.StatusCode != http.StatusSeeOther {
		t.Errorf("drop: %d", res.StatusCode)
	}
	if q.Depth() != 0 {
		t.Errorf("queue depth %d after drop", q.Depth())
	}
}
