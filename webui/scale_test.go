package webui

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/reflectkb/reflect/bench"
	"github.com/reflectkb/reflect/index"
	"github.com/reflectkb/reflect/internal/config"
)

// TestScaleInBrowser measures the web view at 10,000 learnings in headless
// Chromium and logs the numbers docs/benchmarks.md reports: first paint of
// the search page, search-as-you-type latency, the graph page's load and
// its pan/zoom frame times. It asserts only correctness (results shown,
// the graph bounded); timings are logged, never asserted. It runs only
// with REFLECT_UI_BENCH=1; REFLECT_UI_BENCH_KB names an indexed learnings
// directory to reuse (reflect bench generate DIR && REFLECT_LEARNINGS_DIR=DIR
// reflect reindex) instead of generating and indexing one here.
func TestScaleInBrowser(t *testing.T) {
	if os.Getenv("REFLECT_UI_BENCH") != "1" {
		t.Skip("10,000-learning browser benchmark: run with REFLECT_UI_BENCH=1 (see docs/benchmarks.md)")
	}
	env := kbEnv(t)
	if dir := os.Getenv("REFLECT_UI_BENCH_KB"); dir != "" {
		env["REFLECT_LEARNINGS_DIR"] = dir
	}
	c := load(t, env)
	if os.Getenv("REFLECT_UI_BENCH_KB") == "" {
		generate(t, c)
	}
	ts, _ := testServer(t, c)
	ctx, _ := browser(t)
	shots := screenshotDir(t)

	// First paint and first results of the search page, 5 loads.
	do(t, ctx, "login", chromedp.Navigate(ts.URL+"/?token="+testToken), visible(`#results li`))
	var fcp, results []float64
	for i := 0; i < 5; i++ {
		do(t, ctx, "reload", chromedp.Navigate(ts.URL+"/"), visible(`#results li`),
			until(`performance.getEntriesByName('reflect-results').length > 0`))
		v := value(t, ctx, "paint", chromedp.Evaluate[[]float64](`[
			(performance.getEntriesByName('first-contentful-paint')[0] || {startTime: -1}).startTime,
			performance.getEntriesByName('reflect-results')[0].startTime]`))
		fcp, results = append(fcp, v[0]), append(results, v[1])
	}
	t.Logf("BENCH search page: first contentful paint median %.0f ms, first results median %.0f ms (5 loads)", median(fcp), median(results))

	// Search as you type: each prefix of a few queries, from the input
	// event to the results on screen (the 120 ms debounce included).
	lat := value(t, ctx, "typing", chromedp.Evaluate[[]float64](`(async () => {
		const q = document.getElementById('q');
		const out = [];
		for (const text of ["oauth state cookie", "docker build cache", "postgres index timeout", "retry backoff jitter"]) {
			for (let i = 1; i <= text.length; i++) {
				const before = document.body.dataset.searched;
				q.value = text.slice(0, i);
				const t0 = performance.now();
				q.dispatchEvent(new Event('input', {bubbles: true}));
				await new Promise((done) => { const check = () => document.body.dataset.searched !== before ? done() : requestAnimationFrame(check); requestAnimationFrame(check); });
				out.push(performance.now() - t0);
			}
		}
		return out;
	})()`, chromedp.EvalAwaitPromise))
	if n := value(t, ctx, "results", chromedp.Evaluate[int](`document.querySelectorAll('#results li').length`)); n == 0 {
		t.Errorf("no results for %q at scale", "retry backoff jitter")
	}
	t.Logf("BENCH search as you type: %d keystrokes, keystroke to results median %.0f ms, p95 %.0f ms, max %.0f ms (120 ms of it is the debounce)",
		len(lat), median(lat), pct(lat, 0.95), slices.Max(lat))
	api := value(t, ctx, "api", chromedp.Evaluate[[]float64](`(async () => {
		const out = [];
		for (const text of ["oauth", "oauth state", "docker build cache", "postgres index timeout", "retry backoff jitter"]) {
			for (let k = 0; k < 3; k++) {
				const t0 = performance.now();
				await (await fetch('/api/search?q=' + encodeURIComponent(text))).json();
				out.push(performance.now() - t0);
			}
		}
		return out;
	})()`, chromedp.EvalAwaitPromise))
	t.Logf("BENCH /api/search from the page: median %.0f ms, p95 %.0f ms (%d requests)", median(api), pct(api, 0.95), len(api))
	screenshot(t, ctx, shots, "scale-search")

	// The graph page: its JSON, the load until laid out, then pan and
	// zoom frame times.
	gapi := value(t, ctx, "graph api", chromedp.Evaluate[[]float64](`(async () => {
		const out = [];
		for (let k = 0; k < 3; k++) { const t0 = performance.now(); await (await fetch('/api/graph')).json(); out.push(performance.now() - t0); }
		return out;
	})()`, chromedp.EvalAwaitPromise))
	t.Logf("BENCH /api/graph from the page: median %.0f ms (3 requests)", median(gapi))
	var load []float64
	for i := 0; i < 3; i++ {
		do(t, ctx, "graph", chromedp.Navigate(ts.URL+"/graph"), until(`document.body.dataset.graphReady > 0`))
		load = append(load, value(t, ctx, "graph mark", chromedp.Evaluate[float64](`performance.getEntriesByName('reflect-graph-ready')[0].startTime`)))
	}
	nodes := value(t, ctx, "nodes", chromedp.Evaluate[int](`reflectGraph.nodes().length`))
	if nodes == 0 || nodes > graphNodes {
		t.Errorf("graph drew %d nodes at scale, want 1..%d", nodes, graphNodes)
	}
	screenshot(t, ctx, shots, "scale-graph")
	frames := value(t, ctx, "pan/zoom", chromedp.Evaluate[[]float64](`(async () => {
		const cy = reflectGraph, out = [];
		let last = performance.now();
		for (let i = 0; i < 180; i++) {
			await new Promise((r) => requestAnimationFrame(r));
			const now = performance.now();
			out.push(now - last);
			last = now;
			cy.zoom({level: cy.zoom() * (i % 60 < 30 ? 1.03 : 0.97), renderedPosition: {x: 420, y: 300}});
			cy.panBy({x: i % 20 < 10 ? 4 : -4, y: 2});
		}
		return out.slice(2);
	})()`, chromedp.EvalAwaitPromise))
	t.Logf("BENCH graph page: %d nodes, %d edges; load to laid out median %.0f ms (3 loads); pan/zoom frame time median %.1f ms, p95 %.1f ms, max %.1f ms (%d frames)",
		nodes, value(t, ctx, "edges", chromedp.Evaluate[int](`reflectGraph.edges().length`)), median(load), median(frames), pct(frames, 0.95), slices.Max(frames), len(frames))
}

// generate writes and indexes 10,000 synthetic learnings, communities
// included, as 'reflect bench generate' and 'reflect reindex' do.
func generate(t *testing.T, c *config.Config) {
	t.Helper()
	if err := bench.Generate(c.DocumentsDir(), 10000, 1); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	ix, err := index.Open(ctx, c.DocumentsDir(), c.IndexDir())
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if _, err := ix.Update(ctx, index.UpdateOptions{Communities: true}); err != nil {
		t.Fatal(err)
	}
	if n, _ := filepath.Glob(filepath.Join(c.DocumentsDir(), "*.md")); len(n) != 10000 {
		t.Fatalf("generated %d learnings", len(n))
	}
}

func median(v []float64) float64 { return pct(v, 0.5) }

// pct is the p-th quantile of v (nearest rank).
func pct(v []float64, p float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	i := int(p*float64(len(s))+0.5) - 1
	return s[max(0, min(i, len(s)-1))]
}
