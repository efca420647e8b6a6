package webui

import (
	"fmt"
	"strings"
	"testing"

	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/reflectkb/reflect/store"
)

// cspWatch records every Content-Security-Policy violation a page
// reports, from before its first script runs: Chromium blocks what the
// policy forbids, so a page that trips it is a page that silently lost
// some of its styles or scripts.
const cspWatch = `window.__csp = [];
document.addEventListener('securitypolicyviolation', (e) => {
	window.__csp.push(e.violatedDirective + ' ' + (e.blockedURI || '') + ' ' + (e.sourceFile || '') + ':' + e.lineNumber + ' ' + (e.sample || ''));
});`

// smallKB is a knowledge base as a new user's looks after a few drains:
// learnings whose sidecars name entities and no relations between them.
func smallKB(t *testing.T) (string, func()) {
	c := kb(t)
	names := [][]store.Entity{
		{{Name: "go test", Type: "tool"}, {Name: "ledger/balance.go", Type: "file"}, {Name: "TestBalance", Type: "function"}},
		{{Name: "go test", Type: "tool"}, {Name: "TestRefresh", Type: "function"}, {Name: "refresh/token.go", Type: "file"}, {Name: "time.Now", Type: "function"}},
		{{Name: "curl", Type: "tool"}, {Name: "TLS", Type: "concept"}, {Name: "self-signed certificate", Type: "error"}},
		{{Name: "curl", Type: "tool"}, {Name: "OAuth", Type: "technology"}, {Name: "SameSite", Type: "concept"}, {Name: "callback/cookie.go", Type: "file"}},
		{{Name: "OAuth", Type: "technology"}, {Name: "SameSite", Type: "concept"}, {Name: "nginx", Type: "tool"}},
		{{Name: "npm ci", Type: "tool"}, {Name: "package-lock.json", Type: "file"}, {Name: "ERESOLVE", Type: "error"}},
		{{Name: "docker compose", Type: "tool"}, {Name: "postgres", Type: "service"}, {Name: "ECONNREFUSED", Type: "error"}},
		{{Name: "postgres", Type: "service"}, {Name: "DATABASE_URL", Type: "config"}, {Name: "migrations/0003_users.sql", Type: "file"}},
		{{Name: "pytest", Type: "tool"}, {Name: "conftest.py", Type: "file"}},
	}
	for i, ents := range names {
		var ns []string
		for _, e := range ents {
			ns = append(ns, e.Name)
		}
		put(t, c, &store.Learning{
			Title:      fmt.Sprintf("Learning %d about %s", i, strings.Join(ns, " and ")),
			KeyInsight: "What " + strings.Join(ns, ", ") + " have to do with each other.",
			Body:       "## Problem\nsomething failed\n",
		}, &store.Sidecar{Entities: ents})
	}
	ts, _ := testServer(t, c)
	return ts.URL, func() {}
}

// TestGraphInBrowser: the graph page of a small knowledge base without
// relations in its sidecars draws the entities linked by the learnings
// they share, lays them out with no two labels overlapping, and trips no
// Content-Security-Policy rule.
func TestGraphInBrowser(t *testing.T) {
	url, _ := smallKB(t)
	ctx, seen := browser(t)
	shots := screenshotDir(t)
	if _, err := chromedp.Call(ctx, cdppage.AddScriptToEvaluateOnNewDocument, cdppage.AddScriptToEvaluateOnNewDocumentParams{Source: cspWatch}); err != nil {
		t.Fatal(err)
	}
	do(t, ctx, "login", chromedp.Navigate(url+"/?token="+testToken), visible(`#results`))
	do(t, ctx, "graph", chromedp.Navigate(url+"/graph"), until(`document.body.dataset.graphReady > 0`))
	screenshot(t, ctx, shots, "graph-small")

	nodes := value(t, ctx, "nodes", chromedp.Evaluate[int](`reflectGraph.nodes().length`))
	edges := value(t, ctx, "edges", chromedp.Evaluate[int](`reflectGraph.edges().length`))
	if nodes != 23 || edges == 0 {
		t.Errorf("graph drew %d nodes and %d edges, want the 23 entities and the relations of the learnings they share", nodes, edges)
	}
	if st := text(t, ctx, "#g-status"); st != fmt.Sprintf("23 entities, %d relations", edges) {
		t.Errorf("status %q", st)
	}
	// Entities that share a learning are joined: go test and TestBalance.
	joined := value(t, ctx, "joined", chromedp.Evaluate[bool](`(() => {
		const a = reflectGraph.nodes().filter(n => n.data('label') === 'go test')[0];
		const b = reflectGraph.nodes().filter(n => n.data('label') === 'TestBalance')[0];
		return !!a && !!b && a.edgesWith(b).length === 1;
	})()`))
	if !joined {
		t.Error("go test and TestBalance share a learning but are not joined")
	}
	overlaps := value(t, ctx, "overlaps", chromedp.Evaluate[[]string](`(() => {
		const out = [];
		const ns = reflectGraph.nodes().toArray();
		const boxes = ns.map(n => n.boundingBox({ includeLabels: true, includeOverlays: false }));
		for (let i = 0; i < ns.length; i++) for (let j = i + 1; j < ns.length; j++) {
			const a = boxes[i], b = boxes[j];
			if (a.x1 < b.x2 && b.x1 < a.x2 && a.y1 < b.y2 && b.y1 < a.y2) out.push(ns[i].data('label') + ' / ' + ns[j].data('label'));
		}
		return out;
	})()`))
	if len(overlaps) > 0 {
		t.Errorf("%d pairs of nodes overlap with their labels: %q", len(overlaps), overlaps)
	}
	if v := value(t, ctx, "csp", chromedp.Evaluate[[]string](`window.__csp`)); len(v) > 0 {
		t.Errorf("the pages tripped the Content-Security-Policy %d times: %q", len(v), v)
	}
	if p := seen.list(); len(p) > 0 {
		t.Errorf("the graph page raised dialogs or exceptions: %q", p)
	}
}
