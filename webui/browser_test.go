package webui

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// The browser tests drive headless Chromium against a seeded knowledge
// base. Without Chromium they skip, except under CI=true, where a missing
// browser is a failure (.ci/run installs Debian's chromium), as the e2e
// suite treats a missing client. Screenshots go to $REFLECT_UI_SCREENSHOTS
// when set, else to the test's temporary directory.

// chromiumPath finds a Chromium or Chrome binary.
func chromiumPath() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// watchdog bounds each wait: a hung browser fails the test instead of
// hanging it. It is not a speed budget; a loaded machine is far faster.
const watchdog = 2 * time.Minute

// problems collects the JavaScript dialogs and uncaught exceptions of a
// page: a hostile learning that ran would raise one.
type problems struct {
	mu   sync.Mutex
	seen []string
}

func (p *problems) add(s string) { p.mu.Lock(); p.seen = append(p.seen, s); p.mu.Unlock() }

func (p *problems) list() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.seen...)
}

// browser starts headless Chromium for the test. Without Chromium the test
// skips, except under CI=true.
func browser(t *testing.T) (context.Context, *problems) {
	t.Helper()
	path := chromiumPath()
	if path == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("browser tests cannot run in CI: no chromium, chromium-browser or google-chrome on PATH (.ci/run installs Debian's chromium)")
		}
		t.Skip("browser tests skipped: no chromium, chromium-browser or google-chrome on PATH (apt-get install chromium)")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.WindowSize(1280, 900),
		chromedp.UserDataDir(t.TempDir()))
	if os.Geteuid() == 0 {
		opts = append(opts, chromedp.NoSandbox) // Chromium refuses its sandbox as root
	}
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelB := chromedp.NewContext(actx)
	ctx, cancelC := context.WithTimeout(ctx, 5*time.Minute)
	t.Cleanup(func() { cancelC(); cancelB(); cancelA() })
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start %s: %v", path, err)
	}
	p := &problems{}
	go func() {
		for ev, err := range chromedp.Events(ctx, cdppage.JavascriptDialogOpening) {
			if err != nil {
				return
			}
			p.add("dialog: " + ev.Message)
			_, _ = chromedp.Call(ctx, cdppage.HandleJavaScriptDialog, cdppage.HandleJavaScriptDialogParams{Accept: false})
		}
	}()
	go func() {
		for ev, err := range chromedp.Events(ctx, runtime.ExceptionThrown) {
			if err != nil {
				return
			}
			p.add("exception: " + ev.ExceptionDetails.Text)
		}
	}()
	return ctx, p
}

// screenshotDir is where screenshots go: $REFLECT_UI_SCREENSHOTS, else a
// temporary directory of the test.
func screenshotDir(t *testing.T) string {
	dir := os.Getenv("REFLECT_UI_SCREENSHOTS")
	if dir == "" {
		return t.TempDir()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// screenshot saves the page as <name>.png.
func screenshot(t *testing.T, ctx context.Context, dir, name string) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	path := filepath.Join(dir, name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)
}

func do(t *testing.T, ctx context.Context, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

func value[T any](t *testing.T, ctx context.Context, what string, a chromedp.Action[T]) T {
	t.Helper()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	return v
}

// until waits for a JavaScript condition to hold.
func until(cond string) chromedp.Action[chromedp.Void] {
	return chromedp.Poll[chromedp.Void](cond, chromedp.WithPollingTimeout(watchdog))
}

func visible(css string) chromedp.Action[chromedp.Void] {
	return chromedp.WaitVisible(chromedp.CSS(css))
}

func text(t *testing.T, ctx context.Context, css string) string {
	t.Helper()
	return value(t, ctx, "text of "+css, chromedp.Text(chromedp.CSS(css)))
}

func TestBrowser(t *testing.T) {
	c := kb(t)
	sd := seedKB(t, c)
	ts, _ := testServer(t, c)
	ctx, seen := browser(t)
	shots := screenshotDir(t)

	// A request without the token is refused.
	do(t, ctx, "open without token", chromedp.Navigate(ts.URL+"/"))
	if got := text(t, ctx, "body"); !strings.Contains(got, "401") {
		t.Fatalf("without the token the page says %q, want a 401", got)
	}

	// The token URL sets the cookie and shows the search page.
	do(t, ctx, "open with token", chromedp.Navigate(ts.URL+"/?token="+testToken), visible(`#results li`))
	if loc := value(t, ctx, "location", chromedp.Location()); strings.Contains(loc, "token") {
		t.Errorf("the token stays in the address bar: %s", loc)
	}

	// Search as you type returns the right learning first.
	do(t, ctx, "search",
		chromedp.SendKeys(chromedp.CSS(`#q`), "samesite state"),
		until(`document.querySelector('#results li') !== null && document.querySelector('#results li').dataset.id === `+jsString(sd.Cookie)))
	if first := text(t, ctx, `#results li .title`); first != "OAuth state cookie must be SameSite=Lax" {
		t.Errorf("first result %q", first)
	}
	do(t, ctx, "explain", chromedp.Click(chromedp.CSS(`#f-explain`)), visible(`#results .why`))
	screenshot(t, ctx, shots, "search")

	// The hostile learning, in results and on its page, does not run. (The
	// query comes from the address, as a shared search link gives it.)
	do(t, ctx, "hostile search",
		chromedp.Navigate(ts.URL+"/?q=hostile"), visible(`#results li[data-id="`+sd.Hostile+`"]`))
	screenshot(t, ctx, shots, "search-hostile")
	do(t, ctx, "hostile page", chromedp.Navigate(ts.URL+"/learning/"+sd.Hostile), visible(`#body`),
		chromedp.Sleep(300*time.Millisecond)) // time for a broken image's onerror, were there one
	pwned := value(t, ctx, "pwned", chromedp.Evaluate[bool](`window.__pwned !== undefined`))
	imgs := value(t, ctx, "imgs", chromedp.Evaluate[int](`document.querySelectorAll('img').length`))
	if title := text(t, ctx, `#title`); pwned || imgs != 0 || title != hostileTitle {
		t.Errorf("hostile learning: pwned %v, %d img elements, title shown as %q", pwned, imgs, title)
	}
	screenshot(t, ctx, shots, "learning-hostile")

	// A learning page, then forget: it asks first, then removes.
	do(t, ctx, "learning page", chromedp.Navigate(ts.URL+"/learning/"+sd.Cookie), visible(`#body h2`))
	if aside := text(t, ctx, `aside`); !strings.Contains(aside, "Session cookie lost behind the proxy") || !strings.Contains(aside, "callback/cookie.go") {
		t.Errorf("learning page aside lacks the related learning or an entity:\n%s", aside)
	}
	screenshot(t, ctx, shots, "learning")
	do(t, ctx, "forget asks", chromedp.Click(chromedp.CSS(`#forget`)), visible(`#confirm-forget`))
	path := filepath.Join(c.DocumentsDir(), sd.Cookie+".md")
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("the learning went before it was confirmed: %v", err)
	}
	screenshot(t, ctx, shots, "forget-confirm")
	do(t, ctx, "forget confirmed", chromedp.Click(chromedp.CSS(`#confirm-forget`)), visible(`#results`),
		until(`document.body.dataset.searched !== undefined`))
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("after confirming, the file is still there: %v", err)
	}
	if got := text(t, ctx, `#status`); !strings.HasPrefix(got, "Forgot "+sd.Cookie+".") {
		t.Errorf("after forgetting the search page says %q", got)
	}
	if n := value(t, ctx, "listed", chromedp.Evaluate[int](`document.querySelectorAll('#results li[data-id="`+sd.Cookie+`"]').length`)); n != 0 {
		t.Errorf("forgotten learning still listed")
	}

	// The graph renders nodes (SameSite and nginx: the learning forgotten
	// above took OAuth and callback/cookie.go with it); clicking one lists
	// its learnings.
	do(t, ctx, "graph", chromedp.Navigate(ts.URL+"/graph"), until(`document.body.dataset.graphReady > 0`))
	if n := value(t, ctx, "nodes", chromedp.Evaluate[int](`reflectGraph.nodes().length`)); n != 2 {
		t.Errorf("graph drew %d nodes", n)
	}
	do(t, ctx, "graph click",
		chromedp.Evaluate[chromedp.Void](`reflectGraph.nodes().filter(n => n.data('label') === 'SameSite').emit('tap'), undefined`),
		visible(`#g-learnings li a`))
	if got := text(t, ctx, `#g-learnings`); !strings.Contains(got, "Session cookie lost") {
		t.Errorf("entity panel: %q", got)
	}
	screenshot(t, ctx, shots, "graph")

	// Activity charts the drain runs of the ledger, day by day.
	var ledger strings.Builder
	for i, usd := range []string{"0.40", "0.15", "0.90"} {
		when := time.Now().UTC().AddDate(0, 0, -2*i).Format(time.RFC3339)
		ledger.WriteString(`{"ts":"` + when + `","entry":"q-run-` + usd + `","writer":"claude","outcome":"ok","learnings":2,"cost_usd":` + usd + `,"duration_ms":900}` + "\n")
	}
	if err := os.MkdirAll(c.StateDir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(c.StateDir, "drain-cost.jsonl"), []byte(ledger.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	do(t, ctx, "activity", chromedp.Navigate(ts.URL+"/activity"), visible(`svg.chart`))
	if bars := value(t, ctx, "bars", chromedp.Evaluate[int](`[...document.querySelectorAll('svg.chart rect')].filter(r => r.getBoundingClientRect().height > 0).length`)); bars != 6 {
		t.Errorf("activity charts show %d bars, want 3 days of spend and 3 of learnings", bars)
	}
	if first := text(t, ctx, `#runs tr:nth-child(2) td:nth-child(2)`); first != "q-run-0.40" {
		t.Errorf("first drain run listed is %q, want today's q-run-0.40", first)
	}
	screenshot(t, ctx, shots, "activity")

	if p := seen.list(); len(p) > 0 {
		t.Errorf("the pages raised dialogs or exceptions: %q", p)
	}
}

// jsString quotes s for a JavaScript expression.
func jsString(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}
