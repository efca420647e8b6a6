package webui

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reflectkb/reflect/internal/config"
	"github.com/reflectkb/reflect/store/storetest"
)

func TestHostileDocumentsAreNotShown(t *testing.T) {
	t.Parallel()
	c := kb(t)
	sd := seedKB(t, c)
	before := storetest.Place(t, c.DocumentsDir(), "1111").IDs() // indexed (refused) at start
	ts, _ := testServer(t, c)
	after := storetest.Place(t, c.DocumentsDir(), "2222").IDs() // never seen by the index
	cl := login(t, ts.URL)
	for _, id := range append(before, after...) {
		storetest.Promptly(t, "/learning/"+id, func() {
			res, body := get(t, cl, ts.URL+"/learning/"+id)
			if res.StatusCode != http.StatusNotFound || strings.Contains(body, storetest.Secret) {
				t.Errorf("/learning/%s: %d, want 404 showing nothing of the file:\n%.300s", id, res.StatusCode, body)
			}
		})
	}
	if res, _ := get(t, cl, ts.URL+"/learning/"+sd.Cookie); res.StatusCode != http.StatusOK {
		t.Errorf("a regular learning: %d", res.StatusCode)
	}
}

func TestLearningPageRedactsAHandEditedFile(t *testing.T) {
	t.Parallel()
	c := kb(t)
	seedKB(t, c)
	const token = "ghp_0123456789abcdefghijklmnopqrstuvwxyzAB"
	doc := "---\nid: lrn-deploy-token-e5e5e5\ntitle: Deploy token\ntype: learning\nconfidence: high\nkey_insight: use " + token +
		" to deploy\ncreated: 2026-11-22T11:05:00Z\n---\nexport GITHUB_TOKEN=" + token + "\n"
	if err := os.WriteFile(filepath.Join(c.DocumentsDir(), "lrn-deploy-token-e5e5e5.md"), []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	ts, _ := testServer(t, c)
	res, body := get(t, login(t, ts.URL), ts.URL+"/learning/lrn-deploy-token-e5e5e5")
	if res.StatusCode != http.StatusOK || strings.Contains(body, token) || !strings.Contains(body, "REDACTED") {
		t.Errorf("learning page: %d\n%s", res.StatusCode, body)
	}
}

func TestStaticDirectoriesAreNotListed(t *testing.T) {
	t.Parallel()
	c := kb(t)
	ts, _ := testServer(t, c)
	cl := login(t, ts.URL)
	for _, path := range []string{"/static/", "/static/vendor/", "/static/vendor", "/static/vendor/cytoscape/", "/static/nope.js"} {
		res, body := get(t, cl, ts.URL+path)
		if res.StatusCode != http.StatusNotFound || strings.Contains(body, ".js") || strings.Contains(body, ".css") {
			t.Errorf("GET %s: %d, want 404 and no listing:\n%.300s", path, res.StatusCode, body)
		}
	}
	if res, _ := get(t, cl, ts.URL+"/static/app.css"); res.StatusCode != http.StatusOK {
		t.Errorf("GET /static/app.css: %d, want 200", res.StatusCode)
	}
}

// serverWithToken is testServer with a token of the test's choosing.
func serverWithToken(t *testing.T, c *config.Config, token string) (*httptest.Server, *Server) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(context.Background(), Options{Config: c, Addr: ln.Addr().String(), Token: token})
	if err != nil {
		t.Fatal(err)
	}
	ts := &httptest.Server{Listener: ln, Config: &http.Server{Handler: s.Handler()}}
	ts.Start()
	t.Cleanup(func() { ts.Close(); s.Close() })
	return ts, s
}

// A browser sends every 127.0.0.1 cookie to every port: two web views
// (two KBs, or a restart on another port) must not log each other out,
// and a server reads only the cookie named for its port.
func TestTokenCookieIsBoundToThePort(t *testing.T) {
	t.Parallel()
	c := kb(t)
	a, sa := serverWithToken(t, c, testToken)
	b, sb := serverWithToken(t, c, "fedcba9876543210fedcba9876543210")
	if sa.CookieName() == sb.CookieName() || !strings.HasSuffix(sa.CookieName(), a.URL[strings.LastIndex(a.URL, ":")+1:]) {
		t.Fatalf("cookie names %q and %q should each carry the port", sa.CookieName(), sb.CookieName())
	}
	cl := client(t) // one jar, as one browser: cookies keyed by host, not port
	if res, _ := get(t, cl, a.URL+"/?token="+testToken); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("login a: %d", res.StatusCode)
	}
	if res, _ := get(t, cl, b.URL+"/?token=fedcba9876543210fedcba9876543210"); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("login b: %d", res.StatusCode)
	}
	for name, u := range map[string]string{"a": a.URL, "b": b.URL} {
		if res, _ := get(t, cl, u+"/"); res.StatusCode != http.StatusOK {
			t.Errorf("after logging in to both, %s answers %d: one web view's cookie replaced the other's", name, res.StatusCode)
		}
	}
	// The token under a name that is not this port's is not read.
	for _, name := range []string{"reflect_ui_token", sb.CookieName()} {
		if res, _ := get(t, client(t), a.URL+"/", "Cookie", name+"="+testToken); res.StatusCode != http.StatusUnauthorized {
			t.Errorf("cookie %s with a's token: %d, want 401", name, res.StatusCode)
		}
	}
}
