package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reflectkb/reflect/index"
	"github.com/reflectkb/reflect/knowledge"
	"github.com/reflectkb/reflect/store"
)

// addJSON runs `reflect add --json` with args and returns the result.
func addJSON(t *testing.T, k *testKB, args ...string) knowledge.PutResult {
	t.Helper()
	var res knowledge.PutResult
	out := k.mustRun(t, append([]string{"add", "--json"}, args...)...)
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.ID == "" {
		t.Fatalf("add --json: %v\n%s", err, out)
	}
	return res
}

// A second `add --supersedes X` continues X's chain from the learning that
// superseded it, and says so; show prints the whole chain.
func TestAddSupersedesContinuesTheChain(t *testing.T) {
	t.Parallel()
	k := tempKB(t)
	x := addJSON(t, k, "--title", "Widget cache needs warming by hand", "--insight", "run warm-cache before the widget benchmark")
	a := addJSON(t, k, "--supersedes", x.ID, "--title", "Widget cache warms itself since v2", "--insight", "v2 warms the widget cache on start")
	if a.Supersedes != x.ID || a.SupersedesNamed != "" {
		t.Errorf("first add --supersedes: %+v", a)
	}
	out := k.mustRun(t, "add", "--supersedes", x.ID, "--title", "Gadget preload replaced widget warming", "--insight", "v3 preloads gadgets; no warm step at all")
	if want := "supersedes " + a.ID + " (no longer injected), the newest correction of " + x.ID + ", which was already superseded"; !strings.Contains(out, want) {
		t.Errorf("second add --supersedes does not say it continued the chain (%q):\n%s", want, out)
	}
	b := strings.Fields(out)[1]
	out = k.mustRun(t, "show", b)
	if !strings.Contains(out, "Supersedes:\n  - "+a.ID) || !strings.Contains(out, x.ID) {
		t.Errorf("show of the newest learning:\n%s", out)
	}
	if out := k.mustRun(t, "show", a.ID); !strings.Contains(out, "Superseded by:\n  - "+b) {
		t.Errorf("show of the first correction:\n%s", out)
	}
}

// Two drafts superseding the same learning, approved one after the other:
// the second continues the chain, and approve says so (text and --json).
func TestReviewApproveContinuesTheChain(t *testing.T) {
	t.Parallel()
	k := tempKB(t)
	old, first := supersedingDraft(t, k)
	ctx := context.Background()
	ix, err := index.Open(ctx, k.docs, filepath.Join(filepath.Dir(k.docs), "index"))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	l := &store.Learning{Title: "Gadget preload replaced widget warming", KeyInsight: "v3 preloads gadgets; no warm step at all.",
		Confidence: "high", Scope: "global", Status: store.StatusPending, Supersedes: old}
	l.FillDefaults(now)
	_, err = knowledge.New(ix).Put(ctx, l, nil, now)
	ix.Close()
	if err != nil {
		t.Fatal(err)
	}
	var res reviewResult
	if err := json.Unmarshal([]byte(k.mustRun(t, "review", "approve", "--json", first)), &res); err != nil {
		t.Fatal(err)
	}
	if res.Supersedes[first] != old || len(res.SupersedesNamed) != 0 {
		t.Errorf("approve --json of the first draft: %+v", res)
	}
	out := k.mustRun(t, "review", "approve", l.ID)
	if want := "supersedes " + first + " (no longer injected), the newest correction of " + old; !strings.Contains(out, want) {
		t.Errorf("approve of the second draft does not say it continued the chain (%q):\n%s", want, out)
	}
	if out := k.mustRun(t, "show", first); !strings.Contains(out, "Superseded by:\n  - "+l.ID) || !strings.Contains(out, "Supersedes:\n  - "+old) {
		t.Errorf("show of the first draft:\n%s", out)
	}
}

// Forgetting the middle of X -> A -> B keeps X superseded, now by B, and
// forget says so (text and --json); forgetting the head says nothing of it.
func TestForgetMiddleSaysTheJoin(t *testing.T) {
	t.Parallel()
	for _, asJSON := range []bool{false, true} {
		k := tempKB(t)
		x := addJSON(t, k, "--title", "Widget cache needs warming by hand", "--insight", "run warm-cache before the widget benchmark")
		a := addJSON(t, k, "--supersedes", x.ID, "--title", "Widget cache warms itself since v2", "--insight", "v2 warms the widget cache on start")
		b := addJSON(t, k, "--supersedes", a.ID, "--title", "Gadget preload replaced widget warming", "--insight", "v3 preloads gadgets; no warm step at all")
		if !asJSON {
			out := k.mustRun(t, "forget", "--yes", a.ID)
			if want := "Forgot " + a.ID + ".\n" + x.ID + " stays superseded, now by " + b.ID + ".\n"; out != want {
				t.Errorf("forget of the middle learning:\n%s\nwant:\n%s", out, want)
			}
		} else {
			var res struct {
				IDs       []string           `json:"ids"`
				Forgotten bool               `json:"forgotten"`
				Joined    []knowledge.Joined `json:"joined"`
			}
			out := k.mustRun(t, "forget", "--yes", "--json", a.ID)
			if err := json.Unmarshal([]byte(out), &res); err != nil {
				t.Fatalf("forget --json: %v\n%s", err, out)
			}
			if !res.Forgotten || len(res.Joined) != 1 || res.Joined[0].Superseded != x.ID || res.Joined[0].By != b.ID ||
				len(res.Joined[0].Forgotten) != 1 || res.Joined[0].Forgotten[0] != a.ID {
				t.Errorf("forget --json of the middle learning: %s", out)
			}
		}
		if out := k.mustRun(t, "show", x.ID); !strings.Contains(out, "Superseded by:\n  - "+b.ID) {
			t.Errorf("show of X after the forget:\n%s", out)
		}
		if out := k.mustRun(t, "show", b.ID); !strings.Contains(out, "Supersedes:\n  - "+x.ID) {
			t.Errorf("show of B after the forget:\n%s", out)
		}
		out := k.mustRun(t, "forget", "--yes", b.ID)
		if out != "Forgot "+b.ID+".\n" {
			t.Errorf("forget of the head:\n%s", out)
		}
	}
}
