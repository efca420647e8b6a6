package recall

// Regression tests for what issue 14 saw: a recall that stayed silent when
// the KB knew the answer.

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reflectkb/reflect/index"
)

// writeLearning writes a learning with the given confidence and tags.
func writeLearning(t *testing.T, docs, id, confidence, title, insight, body string, tags ...string) {
	t.Helper()
	doc := fmt.Sprintf("---\nid: %s\ntitle: %q\nconfidence: %s\ntags: [%s]\nkey_insight: %q\nscope: global\ncreated: 2026-01-01T00:00:00Z\n---\n%s\n",
		id, title, confidence, strings.Join(tags, ", "), insight, body)
	if err := os.WriteFile(filepath.Join(docs, id+".md"), []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
}

// recallIDs recalls for prompt and returns the injected ids.
func recallIDs(t *testing.T, ix *index.Index, prompt string) ([]string, Result) {
	t.Helper()
	res, err := Recall(context.Background(), ix, Request{Kind: Prompt, Prompt: prompt})
	if err != nil {
		t.Fatal(err)
	}
	return IDs(res.Injected), res
}

// A new user's KB is small and topical: four near-identical learnings about
// flushing the widget cache with widgetctl and four unrelated ones. Every
// word the prompt shares with them is in half the KB, so its idf is low
// and no learning reached the evidence floor, while search ranked them
// first. The coverage path lets them through; unrelated prompts stay
// silent.
func TestRecallSmallOverlappingKB(t *testing.T) {
	t.Parallel()
	ix := NewKB(t, func(docs string) {
		for i, v := range []string{"--force", "--all", "in staging", "after a deploy"} {
			writeLearning(t, docs, fmt.Sprintf("lrn-widgetctl-flush-%d", i), "high",
				"Flush the widget cache with widgetctl "+v,
				"Run widgetctl cache flush "+v+" to flush the widget cache; stale widgets disappear.",
				"The widget cache keeps rendered widgets. widgetctl cache flush "+v+" empties it.", "widgetctl", "widget", "cache")
		}
		writeLearning(t, docs, "lrn-sqlite-locked", "high", "SQLite database is locked with concurrent writers",
			"Enable WAL and set busy_timeout.", "Two writers got SQLITE_BUSY.", "sqlite")
		writeLearning(t, docs, "lrn-ssh-perms", "high", "ssh ignores a private key with open permissions",
			"chmod 600 the key.", "UNPROTECTED PRIVATE KEY FILE.", "ssh")
		writeLearning(t, docs, "lrn-cron-utc", "medium", "Cron runs at the wrong hour because the server is UTC",
			"Write schedules in UTC or set CRON_TZ.", "The nightly job ran early.", "cron")
		writeLearning(t, docs, "lrn-nginx-413", "high", "nginx 413 Request Entity Too Large on uploads",
			"Raise client_max_body_size.", "Uploads above 1 MB failed.", "nginx")
	})
	ids, res := recallIDs(t, ix, "how do I flush the widget cache with widgetctl?")
	if len(ids) == 0 || !strings.HasPrefix(ids[0], "lrn-widgetctl-flush-") {
		t.Errorf("widgetctl prompt recalled %v (%s); want a widgetctl learning first", ids, res.Skipped)
	}
	for _, p := range []string{"write a haiku about autumn leaves", "rename this variable to count in the parser", "add a cache for the user list page"} {
		if ids, _ := recallIDs(t, ix, p); len(ids) > 0 {
			t.Errorf("%q recalled %v in the small KB; want silence", p, ids)
		}
	}
}

// A pasted "Cannot find module" error with its require stack: the frames'
// words (node, internal, modules, loader, require, dist, routes) matched
// learnings about the loader and drowned the error line. The query keeps
// the error line and drops the frames.
func TestRecallPastedStackTrace(t *testing.T) {
	t.Parallel()
	ix := NewKB(t, func(docs string) {
		writeLearning(t, docs, "lrn-ts-alias", "medium", "TypeScript path aliases like @/lib fail at runtime",
			"Cannot find module '@/lib/db' after tsc: paths only teach the type checker; add tsc-alias or tsx.",
			"tsc does not rewrite @/ imports.", "typescript", "tsconfig")
		writeLearning(t, docs, "lrn-node-loader-hooks", "high", "Node module loader hooks for internal helpers",
			"Module._load and Module._resolveFilename in node:internal/modules/cjs/loader can be wrapped to trace require calls.",
			"We wrapped the cjs loader (node internal modules helpers) to log every require from dist/routes and server.js.", "node", "loader", "require")
		writeLearning(t, docs, "lrn-express-routes-index", "high", "Express routes index file loads users routes twice",
			"dist/routes/index.js and dist/server.js both required dist/routes/users.js.",
			"The users routes were registered twice from the routes index and the server.", "express", "routes")
		writeLearning(t, docs, "lrn-srv-app-layout", "high", "Deploy layout of /srv/app and the dist folder",
			"The server runs from /srv/app/dist/server.js; routes live in /srv/app/dist/routes.",
			"Object anonymous module require stack code layout.", "deploy")
	})
	paste := "Error: Cannot find module '@/lib/db'\nRequire stack:\n- /srv/app/dist/routes/users.js\n- /srv/app/dist/routes/index.js\n- /srv/app/dist/server.js\n" +
		"    at Module._resolveFilename (node:internal/modules/cjs/loader:1145:15)\n    at Module._load (node:internal/modules/cjs/loader:986:27)\n" +
		"    at Module.require (node:internal/modules/cjs/loader:1233:19)\n    at require (node:internal/modules/helpers:179:18)\n" +
		"    at Object.<anonymous> (/srv/app/dist/routes/users.js:4:14) {\n  code: 'MODULE_NOT_FOUND',\n" +
		"  requireStack: [ '/srv/app/dist/routes/users.js', '/srv/app/dist/routes/index.js', '/srv/app/dist/server.js' ]\n}"
	ids, res := recallIDs(t, ix, paste)
	if len(ids) == 0 || ids[0] != "lrn-ts-alias" {
		t.Errorf("pasted stack trace recalled %v (query %q, %s); want lrn-ts-alias first", ids, res.Query, res.Skipped)
	}
	for _, frame := range []string{"loader", "_resolveFilename", "/srv/app", "1145"} {
		if strings.Contains(res.Query, frame) {
			t.Errorf("query %q keeps frame text %q", res.Query, frame)
		}
	}
}

func TestPasteQuery(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		// Not a trace: unchanged, port numbers and all.
		{"why does listen fail with EADDRINUSE :::8080 at startup", "why does listen fail with EADDRINUSE :::8080 at startup"},
		{"Error: listen EADDRINUSE: address already in use :::8080\n    at Server.setupListenHandle [as _listen2] (node:net:1817:16)\n    at listenInCluster (node:net:1865:12)",
			"Error: listen EADDRINUSE: address already in use :::8080"},
		// Python: the error line first, then the user's words and code.
		{"Traceback (most recent call last):\n  File \"import_users.py\", line 14, in <module>\n    uid = row[\"id\"]\nKeyError: 'id'\nthe header says id",
			"KeyError: 'id'\nuid = row[\"id\"]\nthe header says id"},
		// Go: goroutine header, frames and addresses go.
		{"fatal error: concurrent map writes\n\ngoroutine 37 [running]:\nmain.(*Cache).Set(0xc000126000, {0x6c2f1a, 0x5})\n\t/home/dev/svc/cache.go:42 +0x8c\ncreated by main.main in goroutine 1\n\t/home/dev/svc/main.go:31 +0x1a5",
			"fatal error: concurrent map writes"},
		// A dependency's path is reduced to the package's name.
		{"Error [ERR_REQUIRE_ESM]: require() of ES Module /app/node_modules/chalk/source/index.js from /app/bin/cli.js:3:15 not supported.\n    at Object.<anonymous> (/app/bin/cli.js:3:15)\n    at Module._compile (node:internal/modules/cjs/loader:1256:14)",
			"Error [ERR_REQUIRE_ESM]: require() of ES Module chalk from /app/bin/cli.js not supported."},
	} {
		if got := pasteQuery(tc.in); got != tc.want {
			t.Errorf("pasteQuery(%q)\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
}
