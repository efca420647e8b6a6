package webui

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/yuin/goldmark"

	"github.com/reflectkb/reflect/index"
	"github.com/reflectkb/reflect/internal/config"
	"github.com/reflectkb/reflect/store"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// cookiePrefix names the cookie that carries the token after the first
// request; the server's port completes the name (see Server.CookieName).
const cookiePrefix = "reflect_ui_token_"

// csp allows nothing but the server's own scripts, styles and images: no
// inline script, no eval, no plugin, no framing, forms posting home only.
const csp = "default-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'"

// Options configure a Server.
type Options struct {
	Config *config.Config
	// Addr is the address the server listens on, host:port as bound (the
	// port resolved when 0 was asked for): Host headers must name it, or
	// localhost on its port.
	Addr string
	// Token is the secret every request must carry (see NewToken).
	Token string
	// Project and Root place searches as the CLI's are placed: the
	// project ranked first and the directory relative cites resolve in.
	Project, Root string
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Server is the web view's state: the open index, the parsed templates
// and the secrets of the security checks.
type Server struct {
	opts  Options
	cfg   *config.Config
	st    *store.Store
	csrf  string
	pages map[string]*template.Template
	md    goldmark.Markdown
	hosts map[string]bool
	// anyIPHost accepts a Host that is an IP literal on the port: the
	// server listens on every interface (--listen 0.0.0.0:…), and a DNS
	// rebinding attack needs a name, never an address.
	anyIPHost bool
	port      string

	// mu serialises use of the index: one catalog connection pool, used by
	// searches and by forget and edit, which write.
	mu sync.Mutex
	ix *index.Index

	ledgerCache ledgerCache
}

// NewToken returns a random token of 32 bytes in hex.
func NewToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}

// New opens the index (updating it for documents changed on disk, as a
// search does) and returns the server. Close releases the index.
func New(ctx context.Context, opts Options) (*Server, error) {
	if len(opts.Token) < 16 {
		return nil, errors.New("webui: the token must be at least 16 characters")
	}
	host, port, err := net.SplitHostPort(opts.Addr)
	if err != nil {
		return nil, fmt.Errorf("webui: listen address %q: %w", opts.Addr, err)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	c := opts.Config
	ixOpts, err := index.SettingsOptions(index.Settings(c.Index), false)
	if err != nil {
		return nil, err
	}
	ix, err := index.Open(ctx, c.DocumentsDir(), c.IndexDir(), ixOpts...)
	if err != nil {
		return nil, fmt.Errorf("%w\nrun 'reflect doctor' to see what is wrong", err)
	}
	if _, _, err := ix.Refresh(ctx); err != nil && !errors.Is(err, index.ErrBusy) {
		ix.Close()
		return nil, fmt.Errorf("%w\nrun 'reflect doctor' to see what is wrong", err)
	}
	// The CSRF token is derived from the session token: a page can only
	// learn it by being served by this server, which needs the token.
	mac := hmac.New(sha256.New, []byte(opts.Token))
	mac.Write([]byte("reflect-ui csrf"))
	s := &Server{
		opts: opts, cfg: c, ix: ix, st: ix.Store(),
		csrf:  hex.EncodeToString(mac.Sum(nil)),
		md:    newMarkdown(),
		hosts: map[string]bool{},
		port:  port,
	}
	for _, h := range []string{host, "localhost", "127.0.0.1", "::1"} {
		s.hosts[net.JoinHostPort(h, port)] = true
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		s.anyIPHost = true
	}
	if s.pages, err = parsePages(s.csrf); err != nil {
		ix.Close()
		return nil, err
	}
	return s, nil
}

// Close releases the index.
func (s *Server) Close() error { return s.ix.Close() }

// Handler returns the server's routes behind its security checks.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", s.searchPage)
	mux.HandleFunc("GET /api/search", s.apiSearch)
	mux.HandleFunc("GET /learning/{id}", s.learningPage)
	mux.HandleFunc("POST /learning/{id}/forget", s.forget)
	mux.HandleFunc("POST /learning/{id}/edit", s.edit)
	mux.HandleFunc("POST /learning/{id}/mark", s.mark)
	mux.HandleFunc("POST /learning/{id}/resolve", s.resolve)
	mux.HandleFunc("GET /session/{id}", s.sessionPage)
	mux.HandleFunc("GET /graph", s.graphPage)
	mux.HandleFunc("GET /api/graph", s.apiGraph)
	mux.HandleFunc("GET /api/entity/{id}", s.apiEntity)
	mux.HandleFunc("GET /activity", s.activityPage)
	mux.HandleFunc("GET /inbox", s.inboxPage)
	mux.HandleFunc("POST /inbox/{id}/{action}", s.inboxAction)
	mux.HandleFunc("POST /queue/{id}/retry", s.queueRetry)
	mux.HandleFunc("POST /queue/{id}/drop", s.queueDrop)
	static, _ := fs.Sub(staticFS, "static")
	mux.Handle("GET /static/", http.StripPrefix("/static/", filesOnly(static)))
	return s.guard(mux)
}

// guard applies the security model to every request, in this order: the
// headers, the Host check (403), the token (401), and for anything but
// GET and HEAD the CSRF token (403).
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", csp)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		// The first URL holds the token: it must not leave in a Referer.
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cache-Control", "no-store")
		if !s.hostAllowed(r.Host) {
			http.Error(w, "403 forbidden: unexpected Host header "+r.Host+"; open the URL 'reflect ui' printed", http.StatusForbidden)
			return
		}
		if tok := r.URL.Query().Get("token"); tok != "" {
			if !s.tokenOK(tok) {
				http.Error(w, "401 unauthorized: wrong token; open the URL 'reflect ui' printed", http.StatusUnauthorized)
				return
			}
			http.SetCookie(w, &http.Cookie{Name: s.CookieName(), Value: s.opts.Token, Path: "/",
				HttpOnly: true, SameSite: http.SameSiteStrictMode})
			if r.Method == http.MethodGet {
				// Drop the token from the address bar and history.
				u := *r.URL
				q := u.Query()
				q.Del("token")
				u.RawQuery = q.Encode()
				http.Redirect(w, r, u.RequestURI(), http.StatusSeeOther)
				return
			}
		} else if c, err := r.Cookie(s.CookieName()); err != nil || !s.tokenOK(c.Value) {
			http.Error(w, "401 unauthorized: this page needs the token; open the URL 'reflect ui' printed", http.StatusUnauthorized)
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			got := r.Header.Get("X-CSRF-Token")
			if got == "" {
				got = r.PostFormValue("csrf")
			}
			if subtle.ConstantTimeCompare([]byte(got), []byte(s.csrf)) != 1 {
				http.Error(w, "403 forbidden: missing or wrong CSRF token; reload the page and try again", http.StatusForbidden)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// CookieName is the name of the cookie that carries the token:
// "reflect_ui_token_<port>". A browser scopes cookies by host, not by port
// (RFC 6265 §8.5), and no cookie attribute can change that, so the port
// goes into the name: two web views on 127.0.0.1 (two KBs, or a restart
// on another port) no longer overwrite each other's cookie and log each
// other out, and the server reads only the cookie of its own port. A
// cookie of another port or an earlier run carries another random token
// and is refused (401).
func (s *Server) CookieName() string { return cookiePrefix + s.port }

// filesOnly serves the files of fsys and nothing else: a directory (the
// root, /static/vendor/ ...) is 404, not a listing of what is there.
func filesOnly(fsys fs.FS) http.Handler {
	files := http.FileServerFS(fsys)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := strings.TrimPrefix(r.URL.Path, "/")
		if name == "" || strings.HasSuffix(name, "/") {
			http.NotFound(w, r)
			return
		}
		if fi, err := fs.Stat(fsys, name); err != nil || fi.IsDir() {
			http.NotFound(w, r)
			return
		}
		files.ServeHTTP(w, r)
	})
}

func (s *Server) tokenOK(tok string) bool {
	return subtle.ConstantTimeCompare([]byte(tok), []byte(s.opts.Token)) == 1
}

// hostAllowed is the DNS-rebinding check: a page of another site that
// resolved its name to 127.0.0.1 still sends its own name as Host.
func (s *Server) hostAllowed(host string) bool {
	if s.hosts[host] {
		return true
	}
	if !s.anyIPHost {
		return false
	}
	h, p, err := net.SplitHostPort(host)
	return err == nil && p == s.port && net.ParseIP(h) != nil
}

// CSRF is the token forms and scripts send with a change.
func (s *Server) CSRF() string { return s.csrf }

// lockedIndex runs fn with the index to itself.
func (s *Server) lockedIndex(fn func(ix *index.Index) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return fn(s.ix)
}

// URL is the address to open: the listen address with the token.
func URL(addr, token string) string {
	host, port, err := net.SplitHostPort(addr)
	if err == nil {
		if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
			host = "127.0.0.1"
		}
		addr = net.JoinHostPort(host, port)
	}
	return "http://" + addr + "/?token=" + token
}

// trimField folds a form field to one trimmed line.
func trimField(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
