package webui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/reflectkb/reflect/internal/money"
	"github.com/reflectkb/reflect/knowledge"
)

// pageNames are the templates under templates/, each parsed with
// layout.html.
var pageNames = []string{"search", "learning", "forget", "graph", "activity", "inbox", "session", "error"}

func parsePages(csrf string) (map[string]*template.Template, error) {
	funcs := template.FuncMap{
		"join": strings.Join,
		"date": func(t time.Time) string {
			if t.IsZero() {
				return ""
			}
			return t.UTC().Format("2006-01-02 15:04 UTC")
		},
		"usd":  money.USD,
		"csrf": func() string { return csrf },
		// path puts an id in a URL path as one segment: a session id is
		// whatever the agent sent, '/', '?' and '#' included.
		"path":   url.PathEscape,
		"rcdata": rcdata,
	}
	pages := map[string]*template.Template{}
	for _, name := range pageNames {
		t, err := template.New("layout.html").Funcs(funcs).ParseFS(templateFS, "templates/layout.html", "templates/"+name+".html")
		if err != nil {
			return nil, fmt.Errorf("webui: template %s: %w", name, err)
		}
		pages[name] = t
	}
	return pages, nil
}

// rcdata escapes a learning's text for a textarea, colons included: the
// browser decodes the references back into the same value, and the page's
// source never holds a 'javascript:' a link in the body could have
// carried (the rendered body drops such links; the markdown source keeps
// them as text).
func rcdata(s string) template.HTML {
	return template.HTML(strings.ReplaceAll(template.HTMLEscapeString(s), ":", "&#58;"))
}

// page is what every page's layout needs besides its own data.
type page struct {
	Title string
	Nav   string
	CSRF  string
	// Scripts are the page's scripts under /static/, loaded as files:
	// the CSP allows no inline script.
	Scripts []string
	Data    any
	// Pending is how many drafts wait for review, for the nav's count.
	Pending int
}

// renderPage writes a page whole or, when its template fails, a 500
// without half a page before it.
func (s *Server) renderPage(w http.ResponseWriter, status int, name string, p page) {
	p.CSRF = s.csrf
	// The count the drain, the CLI and the inbox record: reading it
	// takes no index lock, which a page may be rendered under.
	p.Pending = knowledge.RecordedPending(s.cfg.StateDir)
	var buf bytes.Buffer
	if err := s.pages[name].Execute(&buf, p); err != nil {
		http.Error(w, "500 internal error: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = buf.WriteTo(w)
}

// fail shows an error page; JSON routes use failJSON instead.
func (s *Server) fail(w http.ResponseWriter, status int, msg string) {
	s.renderPage(w, status, "error", page{Title: http.StatusText(status), Data: msg})
}

// writeJSON writes v with <, > and & escaped (encoding/json's default),
// so a learning's text cannot close a script element it is pasted into.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func failJSON(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"error": msg})
}
