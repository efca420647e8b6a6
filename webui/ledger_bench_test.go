package webui

import (
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/reflectkb/reflect/recall"
	"github.com/reflectkb/reflect/store"
)

// TestLedgerPageCost measures what listing a learning's sessions costs
// its page: the learning page served with an empty injection ledger and
// with one of 10,000 injections (the ledger's bound is about that many),
// interleaved, and logs the medians and their ratio for
// docs/benchmarks.md. It asserts only that both pages list what they
// should. It runs only with REFLECT_UI_BENCH=1.
func TestLedgerPageCost(t *testing.T) {
	if os.Getenv("REFLECT_UI_BENCH") != "1" {
		t.Skip("ledger cost of the learning page: run with REFLECT_UI_BENCH=1 (see docs/benchmarks.md)")
	}
	serve := func(injections int) (string, string, *http.Client) {
		c := kb(t)
		id := put(t, c, &store.Learning{Title: "Vendored protoc needs PATH", Body: "## Problem\nprotoc not found\n"}, nil)
		start := time.Now().UTC().AddDate(0, 0, -30)
		for i := 0; i < injections; i++ {
			ids := []string{fmt.Sprintf("lrn-other-%06x", i%997), fmt.Sprintf("lrn-more-%06x", i%991), fmt.Sprintf("lrn-also-%06x", i%983)}
			if i%50 == 0 {
				ids = append(ids, id)
			}
			res := recall.Result{Query: "why does protoc fail when the vendored bin directory is not on PATH"}
			for _, x := range ids {
				res.Injected = append(res.Injected, recall.Hit{ID: x, Evidence: 1.2})
			}
			at := start.Add(time.Duration(i) * 30 * 24 * time.Hour / time.Duration(injections))
			if err := recall.RecordInjection(c.StateDir, "claude", "prompt", fmt.Sprintf("session-%04d", i/10), res, at); err != nil {
				t.Fatal(err)
			}
		}
		ts, _ := testServer(t, c)
		return ts.URL, id, login(t, ts.URL)
	}
	emptyURL, emptyID, emptyCl := serve(0)
	fullURL, fullID, fullCl := serve(10000)
	if _, page := get(t, fullCl, fullURL+"/learning/"+fullID); !strings.Contains(page, `id="injected"`) {
		t.Fatal("the full ledger's learning page lists no session")
	}
	var a, b []float64
	for i := 0; i < 100; i++ {
		t0 := time.Now()
		get(t, emptyCl, emptyURL+"/learning/"+emptyID)
		t1 := time.Now()
		get(t, fullCl, fullURL+"/learning/"+fullID)
		t2 := time.Now()
		a, b = append(a, float64(t1.Sub(t0).Microseconds())/1000), append(b, float64(t2.Sub(t1).Microseconds())/1000)
	}
	slices.Sort(a)
	slices.Sort(b)
	t.Logf("BENCH learning page: empty ledger median %.1f ms, 10,000-injection ledger median %.1f ms, ratio %.2f (100 interleaved pairs)",
		a[len(a)/2], b[len(b)/2], b[len(b)/2]/a[len(a)/2])
}
