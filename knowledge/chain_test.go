package knowledge

import (
	"bytes"
	"context"
	"os"
	"testing"
	"time"

	"github.com/reflectkb/reflect/store"
)

// activeLearning is a learning the user wrote or approved, on the cookie
// subject (its body matches "SameSite state cookie").
func activeLearning(title string) *store.Learning {
	l := pendingLearning(title)
	l.Status = ""
	return l
}

func mustRead(t *testing.T, k *Base, id string) *store.Learning {
	t.Helper()
	l, err := k.Store().Read(id)
	if err != nil {
		t.Fatalf("read %s: %v", id, err)
	}
	return l
}

func mustPut(t *testing.T, k *Base, l *store.Learning, at time.Time) PutResult {
	t.Helper()
	res, err := k.Put(context.Background(), l, nil, at)
	if err != nil {
		t.Fatalf("Put %s: %v", l.ID, err)
	}
	return res
}

// wantLinks checks the supersedes and superseded_by of the learning id on
// disk, and that the index holds it back (as superseded) exactly when it
// is superseded.
func wantLinks(t *testing.T, k *Base, id, supersedes, supersededBy string) {
	t.Helper()
	l := mustRead(t, k, id)
	if l.Supersedes != supersedes || l.SupersededBy != supersededBy {
		t.Errorf("%s: supersedes %q, superseded_by %q; want %q, %q", l.Title, l.Supersedes, l.SupersededBy, supersedes, supersededBy)
	}
	want := ""
	if supersededBy != "" {
		want = "superseded"
	}
	if l.Held() != want {
		t.Errorf("%s: held %q on disk, want %q", l.Title, l.Held(), want)
	}
	if r, ok := heldOf(t, k, "SameSite state cookie", id); !ok || r.Held != want {
		t.Errorf("%s in search: found %v, held %q; want found, held %q", l.Title, ok, r.Held, want)
	}
}

// putAll puts ls in order, an hour apart.
func putAll(t *testing.T, k *Base, ls ...*store.Learning) {
	t.Helper()
	for i, l := range ls {
		mustPut(t, k, l, t0.Add(time.Duration(i)*time.Hour))
	}
}

// supersededPair puts X and an active A that supersedes it.
func supersededPair(t *testing.T, k *Base) (x, a *store.Learning) {
	t.Helper()
	x, a = cookieLearning(), activeLearning("OAuth state cookie: a correction")
	a.Supersedes = x.ID
	putAll(t, k, x, a)
	return x, a
}

func fileOf(t *testing.T, d dirs, id string) []byte {
	t.Helper()
	data, err := os.ReadFile(d.docPath(id))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// Two corrections of X keep X's history linear: the second supersedes
// the first (X -> A -> B) instead of taking X from it, and only B is
// recalled as active, however they arrive. (On the old code the second
// overwrote X.superseded_by: X named B while A still claimed X and stayed
// active.)
func TestSupersedeContinuesTheChain(t *testing.T) {
	for _, tc := range []struct {
		name string
		// write puts A and B, both naming X as superseded, and returns
		// what the write of B said it superseded.
		write func(t *testing.T, d dirs, k *Base, x, a, b *store.Learning) (supersedes, named string)
	}{
		{"review on, approved one after the other", func(t *testing.T, d dirs, k *Base, x, a, b *store.Learning) (string, string) {
			ctx := context.Background()
			mustPut(t, k, a, t0.Add(time.Hour))
			mustPut(t, k, b, t0.Add(2*time.Hour))
			if _, err := k.Approve(ctx, a.ID); err != nil {
				t.Fatal(err)
			}
			// A pending draft links nothing, even past the chain.
			aBefore := fileOf(t, d, a.ID)
			if got := mustRead(t, k, b.ID); got.Supersedes != x.ID || !got.Pending() {
				t.Errorf("draft B before approval: supersedes %q, status %q", got.Supersedes, got.Status)
			}
			done, err := k.ApproveDrafts(ctx, b.ID)
			if err != nil || len(done) != 1 {
				t.Fatalf("ApproveDrafts(B) = %v, %v", done, err)
			}
			if bytes.Equal(aBefore, fileOf(t, d, a.ID)) {
				t.Error("approving B did not write A")
			}
			return done[0].Supersedes, done[0].SupersedesNamed
		}},
		{"review on, approved together", func(t *testing.T, d dirs, k *Base, x, a, b *store.Learning) (string, string) {
			mustPut(t, k, a, t0.Add(time.Hour))
			mustPut(t, k, b, t0.Add(2*time.Hour))
			done, err := k.ApproveDrafts(context.Background(), a.ID, b.ID)
			if err != nil || len(done) != 2 {
				t.Fatalf("ApproveDrafts(A, B) = %v, %v", done, err)
			}
			if done[0].Supersedes != x.ID || done[0].SupersedesNamed != "" {
				t.Errorf("A approved: supersedes %q, named %q; want %s, none", done[0].Supersedes, done[0].SupersedesNamed, x.ID)
			}
			return done[1].Supersedes, done[1].SupersedesNamed
		}},
		{"review off", func(t *testing.T, d dirs, k *Base, x, a, b *store.Learning) (string, string) {
			a.Status, b.Status = "", ""
			if res := mustPut(t, k, a, t0.Add(time.Hour)); res.Supersedes != x.ID || res.SupersedesNamed != "" {
				t.Errorf("Put A: supersedes %q, named %q; want %s, none", res.Supersedes, res.SupersedesNamed, x.ID)
			}
			res := mustPut(t, k, b, t0.Add(2*time.Hour))
			return res.Supersedes, res.SupersedesNamed
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := newDirs(t)
			k := d.open(t)
			x := cookieLearning()
			mustPut(t, k, x, t0)
			a := pendingLearning("OAuth state cookie: SameSite=Lax, first correction")
			b := pendingLearning("OAuth state cookie: SameSite=None with Secure, second correction")
			a.Supersedes, b.Supersedes = x.ID, x.ID
			sup, named := tc.write(t, d, k, x, a, b)
			if sup != a.ID || named != x.ID {
				t.Errorf("B's write says it superseded %q (named %q); want %s, named %s", sup, named, a.ID, x.ID)
			}
			wantLinks(t, k, x.ID, "", a.ID)
			wantLinks(t, k, a.ID, x.ID, b.ID)
			wantLinks(t, k, b.ID, a.ID, "")
			sups, by := k.Store().Chain(mustRead(t, k, b.ID))
			if len(sups) != 2 || sups[0].ID != a.ID || sups[1].ID != x.ID || len(by) != 0 {
				t.Errorf("B's chain: %+v / %+v; want supersedes A then X", sups, by)
			}
		})
	}
}

// A learning already in X's chain, named again as superseding X (a drain
// writing it again, an edit of its supersedes), changes no link: linking
// it to the head of X's chain would make a loop. One whose own successors
// X's chain runs into (a hand-edited link) supersedes nothing rather than
// closing a loop.
func TestSupersedeChainLoopLinksNothing(t *testing.T) {
	for _, tc := range []struct {
		name string
		// again rewrites b naming x as superseded.
		again func(t *testing.T, d dirs, k *Base, b *store.Learning, x string) PutResult
	}{
		{"put again", func(t *testing.T, d dirs, k *Base, b *store.Learning, x string) PutResult {
			b.Supersedes = x
			return mustPut(t, k, b, t0.Add(5*time.Hour))
		}},
		{"edited", func(t *testing.T, d dirs, k *Base, b *store.Learning, x string) PutResult {
			b = mustRead(t, k, b.ID)
			b.Supersedes = x
			data, err := b.Marshal()
			if err != nil {
				t.Fatal(err)
			}
			res, err := k.Edit(context.Background(), b.ID, data, t0.Add(5*time.Hour))
			if err != nil {
				t.Fatal(err)
			}
			return res
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := newDirs(t)
			k := d.open(t)
			x, a := cookieLearning(), activeLearning("OAuth state cookie: first correction")
			b, c := activeLearning("OAuth state cookie: second correction"), activeLearning("OAuth state cookie: third correction")
			a.Supersedes, b.Supersedes, c.Supersedes = x.ID, a.ID, b.ID
			putAll(t, k, x, a, b, c)
			before := map[string][]byte{}
			for _, id := range []string{x.ID, a.ID, c.ID} {
				before[id] = fileOf(t, d, id)
			}
			res := tc.again(t, d, k, b, x.ID)
			if res.Supersedes != a.ID {
				t.Errorf("B's write says it superseded %q; want %s (as before)", res.Supersedes, a.ID)
			}
			for id, data := range before {
				if !bytes.Equal(data, fileOf(t, d, id)) {
					t.Errorf("%s was rewritten:\n%s", id, fileOf(t, d, id))
				}
			}
			wantLinks(t, k, x.ID, "", a.ID)
			wantLinks(t, k, a.ID, x.ID, b.ID)
			wantLinks(t, k, b.ID, a.ID, c.ID)
			wantLinks(t, k, c.ID, b.ID, "")
		})
	}

	t.Run("into its own successors", func(t *testing.T) {
		d := newDirs(t)
		k := d.open(t)
		x, b, c := cookieLearning(), activeLearning("OAuth state cookie: a correction"), activeLearning("OAuth state cookie: its correction")
		c.Supersedes = b.ID
		for _, l := range []*store.Learning{x, b, c} {
			mustPut(t, k, l, t0)
		}
		// By hand: X names C as its successor; C already supersedes B.
		addFrontmatter(t, d.docPath(x.ID), "superseded_by: "+c.ID+"\n")
		xBefore, cBefore := fileOf(t, d, x.ID), fileOf(t, d, c.ID)
		b = mustRead(t, k, b.ID)
		b.Supersedes = x.ID
		if res := mustPut(t, k, b, t0.Add(time.Hour)); res.Supersedes != "" {
			t.Errorf("Put B says it superseded %q; want none", res.Supersedes)
		}
		if !bytes.Equal(xBefore, fileOf(t, d, x.ID)) || !bytes.Equal(cBefore, fileOf(t, d, c.ID)) {
			t.Error("X or C was rewritten")
		}
		if got := mustRead(t, k, b.ID); got.Supersedes != "" || got.SupersededBy != c.ID {
			t.Errorf("B: supersedes %q, superseded_by %q; want none, %s", got.Supersedes, got.SupersededBy, c.ID)
		}
	})
}

// The walk to the head of X's chain stops at a learning it cannot follow
// (missing, malformed, or a loop made by hand) and the new learning
// supersedes the last one it could read; the rest is left as it is.
func TestSupersedeChainStopsAtTheLastReadable(t *testing.T) {
	for _, tc := range []struct {
		name string
		// breakChain spoils the chain X -> A -> B -> C.
		breakChain func(t *testing.T, d dirs, x, a, b, c *store.Learning)
		// head is the learning D must supersede, of x, a, b, c.
		head func(x, a, b, c *store.Learning) *store.Learning
	}{
		{"middle learning missing", func(t *testing.T, d dirs, x, a, b, c *store.Learning) {
			if err := os.Remove(d.docPath(b.ID)); err != nil {
				t.Fatal(err)
			}
		}, func(x, a, b, c *store.Learning) *store.Learning { return a }},
		{"middle learning malformed", func(t *testing.T, d dirs, x, a, b, c *store.Learning) {
			writeRaw(t, d.docPath(b.ID), "---\ntitle: [unclosed\n---\nbroken\n")
		}, func(x, a, b, c *store.Learning) *store.Learning { return a }},
		{"first successor missing", func(t *testing.T, d dirs, x, a, b, c *store.Learning) {
			if err := os.Remove(d.docPath(a.ID)); err != nil {
				t.Fatal(err)
			}
		}, func(x, a, b, c *store.Learning) *store.Learning { return x }},
		{"loop made by hand", func(t *testing.T, d dirs, x, a, b, c *store.Learning) {
			addFrontmatter(t, d.docPath(c.ID), "superseded_by: "+x.ID+"\n")
		}, func(x, a, b, c *store.Learning) *store.Learning { return c }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := newDirs(t)
			k := d.open(t)
			x := cookieLearning()
			a, b, c := activeLearning("OAuth state cookie: first"), activeLearning("OAuth state cookie: second"), activeLearning("OAuth state cookie: third")
			a.Supersedes, b.Supersedes, c.Supersedes = x.ID, a.ID, b.ID
			putAll(t, k, x, a, b, c)
			tc.breakChain(t, d, x, a, b, c)
			head := tc.head(x, a, b, c)
			headBy := mustRead(t, k, head.ID).SupersededBy
			dl := activeLearning("OAuth state cookie: fourth")
			dl.Supersedes = x.ID
			res := mustPut(t, k, dl, t0.Add(5*time.Hour))
			wantNamed := x.ID
			if head.ID == x.ID {
				wantNamed = ""
			}
			if res.Supersedes != head.ID || res.SupersedesNamed != wantNamed {
				t.Errorf("Put D: supersedes %q, named %q; want %s (%s), named %q", res.Supersedes, res.SupersedesNamed, head.ID, head.Title, wantNamed)
			}
			got := mustRead(t, k, head.ID)
			if got.SupersededBy != dl.ID {
				t.Errorf("%s: superseded_by %q (was %q); want D", head.Title, got.SupersededBy, headBy)
			}
			wantLinks(t, k, dl.ID, head.ID, "")
			if head.ID != x.ID {
				if got := mustRead(t, k, x.ID); got.SupersededBy != a.ID {
					t.Errorf("X: superseded_by %q; want A, untouched", got.SupersededBy)
				}
			}
		})
	}
}

// Forgetting the learning that continued X's chain brings back the one it
// superseded (A), and X stays superseded by A.
func TestForgetChainHeadRestoresThePrevious(t *testing.T) {
	d := newDirs(t)
	k := d.open(t)
	ctx := context.Background()
	x, a, b := cookieLearning(), activeLearning("OAuth state cookie: first correction"), activeLearning("OAuth state cookie: second correction")
	a.Supersedes, b.Supersedes = x.ID, x.ID
	putAll(t, k, x, a, b)
	wantLinks(t, k, a.ID, x.ID, b.ID)
	if err := k.Forget(ctx, b.ID); err != nil {
		t.Fatal(err)
	}
	wantLinks(t, k, x.ID, "", a.ID)
	wantLinks(t, k, a.ID, x.ID, "")
}

// A proposed update that supersedes a learning Y superseded since by Z
// makes the updated learning supersede Z when approved.
func TestProposalSupersedesTheChainHead(t *testing.T) {
	k, target, p, y := proposedSuperseding(t)
	ctx := context.Background()
	z := activeLearning("Newer cookie advice")
	z.Supersedes = y.ID
	mustPut(t, k, z, t0.Add(time.Hour))
	done, err := k.ApproveDrafts(ctx, p.ID)
	if err != nil || len(done) != 1 {
		t.Fatalf("ApproveDrafts = %v, %v", done, err)
	}
	if done[0].Supersedes != z.ID || done[0].SupersedesNamed != y.ID {
		t.Errorf("approval says it superseded %q (named %q); want %s, named %s", done[0].Supersedes, done[0].SupersedesNamed, z.ID, y.ID)
	}
	if got := mustRead(t, k, y.ID); got.SupersededBy != z.ID {
		t.Errorf("Y: superseded_by %q; want Z", got.SupersededBy)
	}
	if got := mustRead(t, k, z.ID); got.SupersededBy != target.ID || got.Supersedes != y.ID {
		t.Errorf("Z: supersedes %q, superseded_by %q; want Y, the target", got.Supersedes, got.SupersededBy)
	}
	if got := mustRead(t, k, target.ID); got.Supersedes != z.ID {
		t.Errorf("target: supersedes %q; want Z", got.Supersedes)
	}
}

// A learning written again (a drain repeating it, an import of the same
// rule) keeps the learning that superseded it: the writer does not know
// the chain, and the rewrite must not make it active again beside its
// replacement. (On the old code Put dropped superseded_by.)
func TestPutAgainKeepsSupersededBy(t *testing.T) {
	k := newDirs(t).open(t)
	x, a := supersededPair(t, k)
	again := cookieLearning()
	again.Tags = append(again.Tags, "redirect")
	if res := mustPut(t, k, again, t0.Add(2*time.Hour)); res.Action != "updated" {
		t.Fatalf("Put again: %s", res.Action)
	}
	wantLinks(t, k, x.ID, "", a.ID)
	wantLinks(t, k, a.ID, x.ID, "")
}

// While it waits, a draft naming a learning superseded already shows, as
// what approving would retire, the newest learning of that one's chain,
// which stays active until then (and whose show names the draft). (On the
// old code review named X, already held, and said approving stopped its
// injection.)
func TestSupersedesOfShowsTheChainHead(t *testing.T) {
	k := newDirs(t).open(t)
	x, a := supersededPair(t, k)
	draft := pendingLearning("OAuth state cookie: a later correction")
	draft.Supersedes = x.ID
	mustPut(t, k, draft, t0.Add(2*time.Hour))
	if c := k.SupersedesOf(mustRead(t, k, draft.ID)); c == nil || c.ID != a.ID || c.Title != a.Title {
		t.Errorf("SupersedesOf(draft) = %+v; want A", c)
	}
	if got := mustRead(t, k, draft.ID); got.Supersedes != x.ID {
		t.Errorf("the draft on disk: supersedes %q; want X, as written", got.Supersedes)
	}
	wantLinks(t, k, a.ID, x.ID, "")
	ctx := context.Background()
	if sups, err := k.PendingSupersessors(ctx, a.ID); err != nil || len(sups) != 1 || sups[0] != draft.ID {
		t.Errorf("PendingSupersessors(A) = %v, %v; want [draft]", sups, err)
	}
	if sups, err := k.PendingSupersessors(ctx, x.ID); err != nil || len(sups) != 0 {
		t.Errorf("PendingSupersessors(X) = %v, %v; want none (A holds it)", sups, err)
	}
}
