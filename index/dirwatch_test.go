package index

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// countListings makes listDocs count its calls for the test's duration.
func countListings(t *testing.T) *int {
	t.Helper()
	n := new(int)
	orig := listDocs
	listDocs = func(dir string, mine map[string]bool) (uint64, int, map[string]uint64, error) {
		*n++
		return orig(dir, mine)
	}
	t.Cleanup(func() { listDocs = orig })
	return n
}

// storedDigest is meta.docs_digest.
func storedDigest(t *testing.T, ix *Index) string {
	t.Helper()
	var d string
	if err := ix.db.QueryRow(`SELECT value FROM meta WHERE key='docs_digest'`).Scan(&d); err != nil {
		t.Fatal(err)
	}
	return d
}

// On Linux a Put or a Forget shows through its watch, not a listing of
// documents/, that nothing else changed: it moves docs_stamp without
// listing, and the digest it stores is the one a listing would give.
func TestTargetedWatchedDoesNotList(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("inotify is Linux's")
	}
	ctx := context.Background()
	k := newKB(t)
	k.write(t, simple("lrn-seed", "seed words"))
	ix := openWith(t, k, WithEmbedder(hashEmbedder(t, 32)))
	if w, err := watchDir(k.docs); err != nil {
		t.Skipf("no inotify here: %v", err)
	} else {
		w.close()
	}
	listings := countListings(t)
	res, err := put(ctx, ix, learningOf("Own learning", "own words"), nil, t0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := put(ctx, ix, learningOf("Own learning", "own words again"), nil, t0); err != nil {
		t.Fatal(err) // an update: its document is replaced by a rename
	}
	if err := forget(ctx, ix, "lrn-seed"); err != nil {
		t.Fatal(err)
	}
	if *listings != 0 {
		t.Errorf("two Puts and a Forget listed documents/ %d times, want 0", *listings)
	}
	if want := fmt.Sprintf("%s %s", ix.docsStamp(), ix.docsDigest()); storedDigest(t, ix) != want {
		t.Errorf("docs_digest = %q, a listing gives %q", storedDigest(t, ix), want)
	}
	if st, ran, err := ix.Refresh(ctx); err != nil || ran {
		t.Errorf("Refresh ran (%+v, %v): the watched update did not move docs_stamp", countersOf(st), err)
	}
	if got := docRows(t, ix); got[res.ID] == 0 || got["lrn-seed"] != 0 {
		t.Errorf("index rows %v: want %s and not lrn-seed", got, res.ID)
	}
}

// A change by another process between a targeted update's probe and its
// confirmation (after the probe's stat, before the lock) is in the watch's
// events: the stamp is left behind, and the next Refresh indexes it.
func TestTargetedWatchSeesForeignChange(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name    string
		foreign func(k kb)
	}{
		{"a new document", func(k kb) { k.write(t, simple("lrn-foreign", "foreign words")) }},
		{"a replacement by rename", func(k kb) {
			p := k.docPath("lrn-seed")
			writeRaw(t, p+".new", simple("lrn-seed", "seed words replaced by git").render())
			if err := os.Rename(p+".new", p); err != nil {
				t.Fatal(err)
			}
		}},
		{"a removal", func(k kb) {
			if err := os.Remove(k.docPath("lrn-seed")); err != nil {
				t.Fatal(err)
			}
		}},
		{"a temporary file of another document left behind", func(k kb) {
			writeRaw(t, filepath.Join(k.docs, ".lrn-seed.md.tmp-1234"), "partial")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := newKB(t)
			k.write(t, simple("lrn-seed", "seed words"))
			ix := openWith(t, k, WithEmbedder(hashEmbedder(t, 32)))
			countListings(t)
			l := learningOf("Own learning", "own words")
			pre := ix.probeDocs(ix.ownNames([]string{l.ID}))
			defer pre.close()
			if !pre.ok {
				t.Fatal("the probe of an indexed KB failed")
			}
			if err := ix.store.Write(l); err != nil {
				t.Fatal(err)
			}
			tc.foreign(k)
			if err := ix.updateDocs(ctx, []string{l.ID}, pre, nil); err != nil {
				t.Fatal(err)
			}
			if _, ran, err := ix.Refresh(ctx); err != nil || !ran {
				t.Fatalf("Refresh ran=%v (%v): the targeted update hid %s", ran, err, tc.name)
			}
			if st := update(t, ix, UpdateOptions{}); st.Added+st.Updated+st.Removed != 0 {
				t.Fatalf("an Update after Refresh still had work: %+v", countersOf(st))
			}
		})
	}
}

func TestOwnTemp(t *testing.T) {
	mine := map[string]bool{"lrn-a.md": true, "lrn-a.entities.json": true}
	for name, want := range map[string]bool{
		".lrn-a.md.tmp-123":             true,
		".lrn-a.entities.json.tmp-9":    true,
		".lrn-b.md.tmp-123":             false,
		"lrn-a.md.tmp-123":              false,
		".lrn-a.md":                     false,
		".tmp-1":                        false,
		".lrn-a.md.tmp-1.lrn-b.md.tmp-": false,
	} {
		if got := ownTemp(name, mine); got != want {
			t.Errorf("ownTemp(%q) = %v, want %v", name, got, want)
		}
	}
}
