package webui

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reflectkb/reflect/index"
	"github.com/reflectkb/reflect/internal/config"
	"github.com/reflectkb/reflect/knowledge"
	"github.com/reflectkb/reflect/store"
)

// testToken is the token of the test servers.
const testToken = "0123456789abcdef0123456789abcdef"

// TestMain runs the tests with HOME (which git reads for a learning's
// history) in a temp dir and reflect's settings cleared, set once for the
// process: the tests load their configuration from a map (kbEnv) instead,
// and run in parallel.
func TestMain(m *testing.M) {
	os.Exit(runIsolated(m))
}

func runIsolated(m *testing.M) int {
	home, err := os.MkdirTemp("", "webui-test-home-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(home)
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "REFLECT_") && !strings.HasPrefix(k, "REFLECT_UI_") {
			os.Unsetenv(k)
		}
	}
	for k, v := range map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, ".config"),
		"REFLECT_STATE_DIR": filepath.Join(home, "state"), "REFLECT_LEARNINGS_DIR": filepath.Join(home, "learnings")} {
		if err := os.Setenv(k, v); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	return m.Run()
}

// kbEnv is the environment of a reflect pointed at empty temp
// directories, for config.MapLookup.
func kbEnv(t testing.TB) map[string]string {
	t.Helper()
	home := t.TempDir()
	return map[string]string{"HOME": home, "REFLECT_STATE_DIR": filepath.Join(home, "state"),
		"REFLECT_LEARNINGS_DIR": filepath.Join(home, "learnings")}
}

// kb points reflect at empty temp directories and returns the configuration.
func kb(t testing.TB) *config.Config {
	t.Helper()
	return load(t, kbEnv(t))
}

func load(t testing.TB, env map[string]string) *config.Config {
	t.Helper()
	c, err := config.Load(config.MapLookup(env))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// put writes a learning, with a sidecar naming entities when sc is not
// nil, through its own index handle as 'reflect add' or the drainer would.
func put(t testing.TB, c *config.Config, l *store.Learning, sc *store.Sidecar) string {
	t.Helper()
	ctx := context.Background()
	ix, err := index.Open(ctx, c.DocumentsDir(), c.IndexDir())
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if l.Confidence == "" {
		l.Confidence = "high"
	}
	if l.Scope == "" {
		l.Scope = "global"
	}
	l.FillDefaults(time.Now())
	if sc != nil {
		sc.DocumentID = l.ID
	}
	res, err := knowledge.New(ix).Put(ctx, l, sc, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return res.ID
}

// seed is the knowledge base of the tests: an OAuth cookie learning with
// entities, a related one, and a hostile one whose text tries to run.
type seed struct {
	Cookie, Related, Hostile string
}

const hostileTitle = `<img src=x onerror="window.__pwned=1"> hostile </script><script>window.__pwned=2</script>`

func seedKB(t testing.TB, c *config.Config) seed {
	t.Helper()
	var s seed
	s.Cookie = put(t, c, &store.Learning{
		Title:      "OAuth state cookie must be SameSite=Lax",
		KeyInsight: "A SameSite=Strict state cookie is dropped on the cross-site redirect back from the IdP.",
		Tags:       []string{"oauth", "cookies"},
		Body:       "## Problem\nstate mismatch after callback\n\n## Solution\nSet `SameSite=Lax` on the state cookie.\n",
		Project:    "auth-service", Scope: "project",
	}, &store.Sidecar{
		Entities: []store.Entity{{Name: "SameSite", Type: "concept"}, {Name: "callback/cookie.go", Type: "file"}, {Name: "OAuth", Type: "technology"}},
		Relationships: []store.Relationship{
			{Source: "SameSite", Target: "callback/cookie.go", Type: "configured_in", Strength: 7},
			{Source: "OAuth", Target: "SameSite", Type: "uses", Strength: 5},
		},
	})
	s.Related = put(t, c, &store.Learning{
		Title:      "Session cookie lost behind the proxy",
		KeyInsight: "The proxy strips SameSite attributes; set them in the app.",
		Body:       "## Problem\nlogin loops\n",
		Confidence: "medium",
	}, &store.Sidecar{
		Entities:      []store.Entity{{Name: "SameSite", Type: "concept"}, {Name: "nginx", Type: "tool"}},
		Relationships: []store.Relationship{{Source: "nginx", Target: "SameSite", Type: "relates_to", Strength: 4}},
	})
	s.Hostile = put(t, c, &store.Learning{
		Title:      hostileTitle,
		KeyInsight: `hostile insight <img src=x onerror="window.__pwned=3">`,
		Body:       "hostile body\n\n<script>window.__pwned=4</script>\n\ninline <img src=x onerror=\"window.__pwned=5\"> and [link](javascript:window.__pwned=6)\n",
		Tags:       []string{"hostile"},
	}, nil)
	return s
}

// testServer serves c on a real 127.0.0.1 port, as reflect-ui does.
func testServer(t testing.TB, c *config.Config) (*httptest.Server, *Server) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(context.Background(), Options{Config: c, Addr: ln.Addr().String(), Token: testToken})
	if err != nil {
		t.Fatal(err)
	}
	ts := &httptest.Server{Listener: ln, Config: &http.Server{Handler: s.Handler()}}
	ts.Start()
	t.Cleanup(func() { ts.Close(); s.Close() })
	return ts, s
}

// client is an HTTP client that keeps cookies and does not follow
// redirects, so tests see each answer.
func client(t testing.TB) *http.Client {
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}
