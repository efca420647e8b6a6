package knowledge

import (
	"bytes"
	"context"
	"errors"
	"os"
	"reflect"
	"testing"

	"github.com/reflectkb/reflect/store"
)

// chain4 puts the chain X -> A -> C -> B (each correcting the one before)
// and an unrelated learning U; it returns them by name.
func chain4(t *testing.T, k *Base) map[string]*store.Learning {
	t.Helper()
	ls := map[string]*store.Learning{
		"X": cookieLearning(),
		"A": activeLearning("OAuth state cookie: first correction"),
		"C": activeLearning("OAuth state cookie: second correction"),
		"B": activeLearning("OAuth state cookie: third correction"),
		"U": activeLearning("Unrelated note on cookie sizes"),
	}
	ls["A"].Supersedes, ls["C"].Supersedes, ls["B"].Supersedes = ls["X"].ID, ls["A"].ID, ls["C"].ID
	putAll(t, k, ls["X"], ls["A"], ls["C"], ls["B"], ls["U"])
	return ls
}

// wantGone checks that id is neither on disk nor found by a search.
func wantGone(t *testing.T, k *Base, id string) {
	t.Helper()
	if _, err := k.Store().Read(id); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("%s after forget: read %v, want not found", id, err)
	}
	if _, ok := heldOf(t, k, "SameSite state cookie", id); ok {
		t.Errorf("%s after forget: still found by search", id)
	}
}

// Forgetting learnings of a chain joins what stays around them: the
// learning the first forgotten one superseded stays superseded, now by
// the one that superseded the last (X -> A -> B, A forgotten: X -> B),
// whichever of them are forgotten and in whichever order; forgetting the
// head brings the previous one back. Only the two joined learnings are
// rewritten. (On the old code X came back beside B, and B named a
// learning that no longer existed; forgetting X left A naming it.)
func TestForgetJoinsTheChain(t *testing.T) {
	for _, tc := range []struct {
		name   string
		forget []string
		// chain is what stays, oldest first; the last one is active.
		chain  []string
		joined []Joined // by name
		// rewritten are the learnings whose files change.
		rewritten []string
	}{
		{"the one after the first", []string{"A"}, []string{"X", "C", "B"},
			[]Joined{{Superseded: "X", By: "C", Forgotten: []string{"A"}}}, []string{"X", "C"}},
		{"the one before the head", []string{"C"}, []string{"X", "A", "B"},
			[]Joined{{Superseded: "A", By: "B", Forgotten: []string{"C"}}}, []string{"A", "B"}},
		{"two in a row", []string{"A", "C"}, []string{"X", "B"},
			[]Joined{{Superseded: "X", By: "B", Forgotten: []string{"A", "C"}}}, []string{"X", "B"}},
		{"two in a row, newest named first", []string{"C", "A"}, []string{"X", "B"},
			[]Joined{{Superseded: "X", By: "B", Forgotten: []string{"A", "C"}}}, []string{"X", "B"}},
		{"the head", []string{"B"}, []string{"X", "A", "C"}, nil, []string{"C"}},
		{"the head and the one before", []string{"C", "B"}, []string{"X", "A"}, nil, []string{"A"}},
		{"two apart", []string{"A", "B"}, []string{"X", "C"},
			[]Joined{{Superseded: "X", By: "C", Forgotten: []string{"A"}}}, []string{"X", "C"}},
		// The first of a chain: the one after it no longer names it (a
		// forgotten learning's id, which carries its title, stays nowhere).
		{"the first", []string{"X"}, []string{"A", "C", "B"}, nil, []string{"A"}},
		{"the first two", []string{"A", "X"}, []string{"C", "B"}, nil, []string{"C"}},
		{"the first and the head", []string{"X", "B"}, []string{"A", "C"}, nil, []string{"A", "C"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := newDirs(t)
			k := d.open(t)
			ls := chain4(t, k)
			before := map[string][]byte{}
			for name, l := range ls {
				before[name] = fileOf(t, d, l.ID)
			}
			var ids []string
			for _, name := range tc.forget {
				ids = append(ids, ls[name].ID)
			}
			res, err := k.ForgetAll(context.Background(), ids...)
			if err != nil {
				t.Fatal(err)
			}
			var want []Joined
			for _, j := range tc.joined {
				jj := Joined{Superseded: ls[j.Superseded].ID, By: ls[j.By].ID}
				for _, name := range j.Forgotten {
					jj.Forgotten = append(jj.Forgotten, ls[name].ID)
				}
				want = append(want, jj)
			}
			if !reflect.DeepEqual(res.Joined, want) {
				t.Errorf("joined %+v; want %+v", res.Joined, want)
			}
			for _, id := range ids {
				wantGone(t, k, id)
			}
			for i, name := range tc.chain {
				var sup, by string
				if i > 0 {
					sup = ls[tc.chain[i-1]].ID
				}
				if i < len(tc.chain)-1 {
					by = ls[tc.chain[i+1]].ID
				}
				wantLinks(t, k, ls[name].ID, sup, by)
			}
			wantLinks(t, k, ls["U"].ID, "", "")
			rewritten := map[string]bool{}
			for _, name := range tc.rewritten {
				rewritten[name] = true
			}
			for _, name := range tc.chain {
				if changed := !bytes.Equal(before[name], fileOf(t, d, ls[name].ID)); changed != rewritten[name] {
					t.Errorf("%s rewritten: %v; want %v", name, changed, rewritten[name])
				}
			}
			if !bytes.Equal(before["U"], fileOf(t, d, ls["U"].ID)) {
				t.Error("the unrelated learning was rewritten")
			}
			wantChainsConsistent(t, k)
		})
	}
}

// wantChainsConsistent checks that every link of every learning left is
// answered by the learning it names: superseded_by Y means Y exists and
// supersedes it, supersedes Y means Y exists and is superseded by it.
func wantChainsConsistent(t *testing.T, k *Base) {
	t.Helper()
	ids, err := k.Store().IDs()
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		l := mustRead(t, k, id)
		if l.SupersededBy != "" {
			if y, err := k.Store().Read(l.SupersededBy); err != nil || y.Supersedes != l.ID {
				t.Errorf("%s: superseded_by %s, which does not supersede it (%v)", l.Title, l.SupersededBy, err)
			}
		}
		if l.Supersedes != "" {
			if y, err := k.Store().Read(l.Supersedes); err != nil || y.SupersededBy != l.ID {
				t.Errorf("%s: supersedes %s, which is not superseded by it (%v)", l.Title, l.Supersedes, err)
			}
		}
	}
}

// The learning that superseded the forgotten middle one is superseded in
// its turn: the join keeps it so (X -> A -> B -> C, A forgotten: X -> B
// -> C, only C recalled as active).
func TestForgetMiddleJoinsASupersededSuccessor(t *testing.T) {
	d := newDirs(t)
	k := d.open(t)
	x, a := supersededPair(t, k)
	b, c := activeLearning("OAuth state cookie: second correction"), activeLearning("OAuth state cookie: third correction")
	b.Supersedes, c.Supersedes = a.ID, b.ID
	putAll(t, k, b, c)
	res, err := k.ForgetAll(context.Background(), a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Joined) != 1 || res.Joined[0].Superseded != x.ID || res.Joined[0].By != b.ID {
		t.Errorf("joined %+v; want X by B", res.Joined)
	}
	wantGone(t, k, a.ID)
	wantLinks(t, k, x.ID, "", b.ID)
	wantLinks(t, k, b.ID, x.ID, c.ID)
	wantLinks(t, k, c.ID, b.ID, "")
	if sups, by := k.Store().Chain(mustRead(t, k, c.ID)); len(sups) != 2 || sups[0].ID != b.ID || sups[1].ID != x.ID || len(by) != 0 {
		t.Errorf("C's chain: %+v / %+v; want supersedes B then X", sups, by)
	}
}

// writeByHand writes l's file as an edit outside reflect would.
func writeByHand(t *testing.T, d dirs, l *store.Learning) {
	t.Helper()
	data, err := l.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	writeRaw(t, d.docPath(l.ID), string(data))
}

// When the learning after the forgotten one cannot be followed, the one
// before it comes back as it did before chains were joined: a
// replacement that is gone replaces nothing, and X must not be held by a
// learning that is not there or does not claim it.
func TestForgetMiddleSuccessorUnfollowable(t *testing.T) {
	for _, tc := range []struct {
		name  string
		spoil func(t *testing.T, d dirs, b *store.Learning)
	}{
		{"missing", func(t *testing.T, d dirs, b *store.Learning) {
			if err := os.Remove(d.docPath(b.ID)); err != nil {
				t.Fatal(err)
			}
		}},
		{"malformed", func(t *testing.T, d dirs, b *store.Learning) {
			writeRaw(t, d.docPath(b.ID), "---\ntitle: [unclosed\n---\nbroken\n")
		}},
		{"a pending draft", func(t *testing.T, d dirs, b *store.Learning) {
			b.Status = store.StatusPending
			writeByHand(t, d, b)
		}},
		{"naming another", func(t *testing.T, d dirs, b *store.Learning) {
			b.Supersedes = cookieLearning().ID + "-other"
			writeByHand(t, d, b)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := newDirs(t)
			k := d.open(t)
			x, a := supersededPair(t, k)
			b := activeLearning("OAuth state cookie: second correction")
			b.Supersedes = a.ID
			putAll(t, k, b)
			tc.spoil(t, d, b)
			var bBefore []byte
			if _, err := os.Stat(d.docPath(b.ID)); err == nil {
				bBefore = fileOf(t, d, b.ID)
			}
			res, err := k.ForgetAll(context.Background(), a.ID)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Joined) != 0 {
				t.Errorf("joined %+v; want none", res.Joined)
			}
			wantGone(t, k, a.ID)
			wantLinks(t, k, x.ID, "", "")
			if bBefore != nil && !bytes.Equal(bBefore, fileOf(t, d, b.ID)) {
				t.Errorf("B was rewritten:\n%s", fileOf(t, d, b.ID))
			}
		})
	}
}
