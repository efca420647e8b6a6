package graph

import (
	"strings"
	"testing"

	"github.com/reflectkb/reflect/store"
)

// extracted runs Extract on text as a learning body and returns the
// entities by norm.
func extracted(t *testing.T, text string) map[string]store.Entity {
	t.Helper()
	sc := Extract(&store.Learning{ID: "lrn-x", Body: text})
	out := map[string]store.Entity{}
	for _, e := range sc.Entities {
		out[Normalize(e.Name)] = e
	}
	return out
}

func TestExtract(t *testing.T) {
	tests := []struct {
		name string
		text string
		want map[string]string // name -> type; must be found
		not  []string          // names that must not be entities
	}{
		{
			name: "paths",
			text: "See callback/cookie.go and (internal/auth/session.go). Check /etc/hosts, ~/.ssh/config,\n" +
				"./scripts/run.sh and C:\\Users\\me\\app.ini. Edit main.go, the Dockerfile, go.mod, .env.local\n" +
				"and src/components/ then [the guide](docs/setup.md).",
			want: map[string]string{
				"callback/cookie.go": "file", "internal/auth/session.go": "file", "/etc/hosts": "file",
				"~/.ssh/config": "file", "./scripts/run.sh": "file", `C:\Users\me\app.ini`: "config",
				"main.go": "file", "Dockerfile": "config", "go.mod": "config", ".env.local": "config",
				"src/components/": "file", "docs/setup.md": "file",
			},
			not: []string{"and/or", "callback", "cookie", "guide"},
		},
		{
			name: "backticks",
			text: "Wrap it in `sync.Once`, call `parseToken`, set `retry` and `SameSite=Lax`, run `go test -race ./...`;\n" +
				"ignore `E501`. Not `true`, `x`, `v1.2.3`, `-race` or `42`.",
			want: map[string]string{
				"sync.Once": "function", "parseToken": "function", "retry": "function", "SameSite": "config",
				"Go": "tool", "E501": "error",
			},
			not: []string{"true", "x", "v1.2.3", "-race", "42", "test", "./..."},
		},
		{
			name: "CamelCase and snake_case",
			text: "The SameSite attribute; call parseToken or XMLHttpRequest. Tune max_connections in\n" +
				"__init__ and key_insight. Call fsync() and os.ReadFile, console.log(x) and mu.Lock().",
			want: map[string]string{
				"SameSite": "function", "parseToken": "function", "XMLHttpRequest": "function",
				"max_connections": "function", "__init__": "function", "key_insight": "function",
				"fsync": "function", "os.ReadFile": "function", "console.log": "function", "mu.Lock": "function",
			},
			not: []string{"The", "attribute", "call"},
		},
		{
			name: "tools",
			text: "We run docker, kubectl and git against postgres on k8s with Node.js and React.\n" +
				"The service is written in Go. Then go test -run TestX, make build and node server.js.\n" +
				"```\n$ yarn add lodash\nRUN apt-get install -y curl\nimport pandas as pd\n```\n" +
				"Then pip install requests==2.31 and npm i -D @types/node; go get github.com/mattn/go-sqlite3.",
			want: map[string]string{
				"docker": "tool", "kubectl": "tool", "git": "tool", "PostgreSQL": "technology",
				"Kubernetes": "technology", "Node.js": "technology", "React": "library", "Go": "tool",
				"make": "tool", "Yarn": "tool", "Lodash": "library", "apt": "tool", "curl": "tool",
				"pandas": "library", "pip": "tool", "requests": "library", "npm": "tool",
				"@types/node": "library", "github.com/mattn/go-sqlite3": "library",
			},
		},
		{
			name: "ambiguous tool names in prose",
			text: "Go to settings and let's go home. Make sure a node in the graph is a black box,\n" +
				"kind of. Express your intent; the next spring we rest. Black is a colour. You go get 'em,\n" +
				"they make all the difference; how services react to load, let's delve into it. Mm, yum!\n" +
				"Go get 'em, Jon!",
			not: []string{"go", "make", "node", "node.js", "black", "kind", "express", "spring", "em", "react", "delve", "yum"},
		},
		{
			name: "error codes",
			text: "Dial gave ECONNREFUSED; rustc said E0502 and tsc TS2345. The API returned HTTP 404, then\n" +
				"status code 503 and 502 Bad Gateway, a Gateway Timeout, many 4xx. Oracle: ORA-00942;\n" +
				"postgres SQLSTATE 23505 and SQLSTATE[42P01]; Windows 0x80070005. A TypeError, a\n" +
				"java.lang.NullPointerException and sql.ErrNoRows; Chrome showed net::ERR_CONNECTION_REFUSED,\n" +
				"node ERR_SSL_PROTOCOL_ERROR, sqlite SQLITE_BUSY; SIGSEGV; the pod was OOMKilled with\n" +
				"exit code 137: connection refused, then permission denied.",
			want: map[string]string{
				"ECONNREFUSED": "error", "E0502": "error", "TS2345": "error", "HTTP 404": "error",
				"HTTP 503": "error", "HTTP 502": "error", "HTTP 504": "error", "HTTP 4xx": "error",
				"ORA-00942": "error", "SQLSTATE 23505": "error", "SQLSTATE 42P01": "error",
				"0x80070005": "error", "TypeError": "error", "NullPointerException": "error",
				"sql.ErrNoRows": "error", "ERR_CONNECTION_REFUSED": "error", "ERR_SSL_PROTOCOL_ERROR": "error",
				"SQLITE_BUSY": "error", "SIGSEGV": "error", "OOMKilled": "error", "exit status 137": "error",
				"connection refused": "error", "permission denied": "error",
			},
		},
		{
			name: "error look-alikes",
			text: "EVERY ERROR is an Error. We saw 404 people, 3 errors and status updates. SHA256, RFC6265,\n" +
				"ISO8601 and X509 are standards. Exit the room. HTTP is fine; 500 users, Not Found.",
			not: []string{"every", "error", "http 404", "sha256", "rfc6265", "iso8601", "x509", "http 500", "exit status"},
		},
		{
			name: "config",
			text: "Set DATABASE_URL and MAX_RETRIES, read $HOME and ${GOPATH}, pass --no-verify or --force-with-lease=true.",
			want: map[string]string{
				"DATABASE_URL": "config", "MAX_RETRIES": "config", "HOME": "config", "GOPATH": "config",
				"--no-verify": "config", "--force-with-lease": "config",
			},
		},
		{
			name: "prose look-alikes",
			text: "I think The Server is down. However, on Monday Dr. Smith said e.g. 42, 3.14 and v1.2.3\n" +
				"are fine, i.e. and/or TCP/IP 1/2 24/7 w/o input/output. My iPhone, YouTube and McDonald.\n" +
				"Visit https://example.com/docs/setup.md or www.example.org/a/b.html; mail me@example.com.",
			not: []string{"i", "the", "server", "however", "monday", "smith", "42", "3.14", "v1.2.3", "e.g",
				"and/or", "tcp/ip", "1/2", "24/7", "w/o", "input/output", "iphone", "youtube", "mcdonald",
				"example.com", "docs/setup.md", "setup.md", "example.org", "a/b.html", "me@example.com"},
		},
		{
			name: "code blocks keep errors and paths, not local names",
			text: "```go\nfunc fooBar() {\n\tsnake_var := os.Getenv(\"X\")\n\t// see pkg/db/conn.go\n\tpanic(\"ECONNRESET\")\n}\n```\n",
			want: map[string]string{"pkg/db/conn.go": "file", "ECONNRESET": "error"},
			not:  []string{"foobar", "snake_var", "os.getenv"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := extracted(t, tt.text)
			for name, typ := range tt.want {
				e, ok := got[Normalize(name)]
				switch {
				case !ok:
					t.Errorf("missing %q (%s)", name, typ)
				case e.Type != typ:
					t.Errorf("%q: type %q, want %q", name, e.Type, typ)
				case e.Name != name:
					t.Errorf("%q: named %q", name, e.Name)
				}
			}
			for _, name := range tt.not {
				if e, ok := got[Normalize(name)]; ok {
					t.Errorf("%q should not be an entity (got %s %q)", name, e.Type, e.Name)
				}
			}
			if t.Failed() {
				for _, e := range got {
					t.Logf("got %-10s %q", e.Type, e.Name)
				}
			}
		})
	}
}

func TestExtractPlainProse(t *testing.T) {
	got := extracted(t, "Be careful. Nothing to see here, e.g. in the docs. It was Tuesday and I went Home.\n")
	if len(got) != 0 {
		t.Errorf("entities in plain prose: %v", got)
	}
}

func TestExtractLearning(t *testing.T) {
	l := &store.Learning{
		ID:         "lrn-x",
		Title:      "Dial fails with ECONNREFUSED in callback/cookie.go",
		KeyInsight: "The `parseToken` helper returns a TypeError when `SameSite` is unset.",
		Symptoms:   []string{"connection refused after deploy"},
		Tags:       []string{"oauth", "cookies", "docker"},
		Cites:      []store.Cite{{Path: "internal/auth/session.go"}},
		Body:       "## Problem\nSee callback/cookie.go. Run `go test -race ./...`.\n",
	}
	sc := Extract(l)
	if sc.DocumentID != l.ID {
		t.Errorf("DocumentID = %q", sc.DocumentID)
	}
	got := map[string]string{}
	for _, e := range sc.Entities {
		if e.Extracted != Heuristic {
			t.Errorf("%q: Extracted = %q", e.Name, e.Extracted)
		}
		if !validType[e.Type] {
			t.Errorf("%q: type %q", e.Name, e.Type)
		}
		if _, dup := got[Normalize(e.Name)]; dup {
			t.Errorf("duplicate %q", e.Name)
		}
		got[Normalize(e.Name)] = e.Type
	}
	want := map[string]string{
		"econnrefused": "error", "callback/cookie.go": "file", "parsetoken": "function", "typeerror": "error",
		"samesite": "function", "connection refused": "error", "internal/auth/session.go": "file",
		"oauth": "concept", "cookies": "concept", "docker": "tool", "go": "tool",
	}
	for n, typ := range want {
		if got[n] != typ {
			t.Errorf("%s: type %q, want %q", n, got[n], typ)
		}
	}
	if err := sc.Validate(); err != nil {
		t.Errorf("extracted sidecar does not validate: %v", err)
	}
	// relations: every pair of the first maxRelated, relates_to, weak
	n := min(len(sc.Entities), maxRelated)
	if len(sc.Relationships) != n*(n-1)/2 {
		t.Errorf("%d relationships for %d entities", len(sc.Relationships), n)
	}
	for _, r := range sc.Relationships {
		if r.Type != "relates_to" || r.Strength != heuristicStrength {
			t.Errorf("relationship %+v", r)
		}
	}
	// cited and erroring entities come first: they survive the cut
	if sc.Entities[0].Name != "internal/auth/session.go" {
		t.Errorf("first entity %q, want the cited file", sc.Entities[0].Name)
	}
}

func TestExtractCap(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 60; i++ {
		b.WriteString("see pkg/f" + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + string(rune('a'+i/26)) + ".go and parseT" + string(rune('a'+i%26)) + string(rune('a'+i/26)) + "Thing\n")
	}
	sc := Extract(&store.Learning{ID: "lrn-x", Body: b.String()})
	if len(sc.Entities) != maxEntities {
		t.Fatalf("%d entities, want the cap %d", len(sc.Entities), maxEntities)
	}
	for _, e := range sc.Entities {
		if e.Type != "file" {
			t.Errorf("%q (%s) kept before files", e.Name, e.Type)
		}
	}
}

func TestNormalize(t *testing.T) {
	tests := []struct{ in, want string }{
		{"SameSite", "samesite"},
		{"  `SameSite` ", "samesite"},
		{"state   cookie", "state cookie"},
		{"./callback/cookie.go", "callback/cookie.go"},
		{`C:\Users\Me\x.txt`, `c:\users\me\x.txt`},
		{"node_modules/", "node_modules"},
		{"k8s", "kubernetes"},
		{"Postgres", "postgresql"},
		{"golang", "go"},
		{"node", "node"}, // ambiguous aliases are not folded
		{"C++", "c++"},
		{"Node.js.", "node.js"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := Normalize(tt.in); got != tt.want {
			t.Errorf("Normalize(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestQueryCandidates(t *testing.T) {
	q := "why does postgres refuse: ECONNREFUSED in callback/cookie.go with SameSite=Strict; let's go, 404 not found"
	got := queryCandidates(q)
	for _, want := range []string{"postgresql", "econnrefused", "callback/cookie.go", "samesite=strict", "samesite", "http 404", "postgres refuse"} {
		if _, ok := got[want]; !ok {
			t.Errorf("missing candidate %q", want)
		}
	}
	// n-grams never start or end inside a token, stop words never bound
	// them, and ambiguous tool names count only as Extract finds them
	for _, bad := range []string{"go", "go with samesite", "cookie", "callback", "why", "the", "does postgres", "refuse in"} {
		if _, ok := got[bad]; ok {
			t.Errorf("unexpected candidate %q", bad)
		}
	}
	if _, ok := queryCandidates("flaky go test -run TestX")["go"]; !ok {
		t.Errorf("go test: Go not a candidate")
	}
}

func FuzzExtract(f *testing.F) {
	for _, s := range []string{
		"See callback/cookie.go and `parseToken`; ECONNREFUSED, HTTP 404, go test ./...",
		"```\n$ make build\n```\n`unclosed",
		"status code 5", "exit code", "SQLSTATE", "http", "İstanbul ÇAĞRI `x` ß.go /ü/ö",
		"[a](b) ](( `` ` `` --= $ ${} 0x8", "pip install", "a/b/ ./ ../ ~/ C:\\",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		sc := Extract(&store.Learning{ID: "lrn-x", Title: text, Body: text})
		seen := map[string]bool{}
		for _, e := range sc.Entities {
			n := Normalize(e.Name)
			if n == "" || seen[n] || !validType[e.Type] || e.Extracted != Heuristic {
				t.Fatalf("bad entity %+v", e)
			}
			seen[n] = true
		}
		if len(sc.Entities) > maxEntities {
			t.Fatalf("%d entities", len(sc.Entities))
		}
		for n, spans := range queryCandidates(text) {
			for _, sp := range spans {
				if n == "" || sp.start < 0 || sp.end > len(text) || sp.start > sp.end {
					t.Fatalf("candidate %q span %v of %d bytes", n, sp, len(text))
				}
			}
		}
	})
}

// TestExtractCoversStore checks that Extract finds what the store's first
// heuristic (store.ExtractEntities) finds on the store's own test case,
// except where it is deliberately different.
func TestExtractCoversStore(t *testing.T) {
	l := &store.Learning{
		ID:         "lrn-x",
		Title:      "Dial fails with ECONNREFUSED in callback/cookie.go",
		KeyInsight: "The `parseToken` helper returns a TypeError when `SameSite` is unset.",
		Body: "## Problem\nSee callback/cookie.go and (internal/auth/session.go). Run `go test -race ./...`.\n" +
			"Again: `callback/cookie.go`, `ECONNREFUSED`, ECONNREFUSED, `parseToken`.\n" +
			"Also main.go and HTTP502. Wrap it in `sync.Once` and `fetchAll`.\n",
	}
	differs := map[string]string{
		// a command line is not an entity a query names; its tool is
		"go test -race ./...": "go",
		// an HTTP status is named one way whatever the spelling
		"http502": "http 502",
	}
	got := extracted(t, l.Title+"\n"+l.KeyInsight+"\n"+l.Body)
	for _, e := range store.ExtractEntities(l) {
		norm := Normalize(e.Name)
		if d, ok := differs[strings.ToLower(e.Name)]; ok {
			norm = d
		}
		if _, ok := got[norm]; !ok {
			t.Errorf("store finds %q (%s), Extract does not", e.Name, e.Type)
		}
	}
}
