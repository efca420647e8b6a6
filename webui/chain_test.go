package webui

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/reflectkb/reflect/knowledge"
	"github.com/reflectkb/reflect/store"
)

// Approving from the inbox says which learning each draft superseded, as
// 'reflect review approve' does: a second draft that names a learning the
// first one superseded continues its chain (X → A → B) and the inbox says
// so, naming both. (On the old code the inbox said only "approved 1".)
func TestInboxApproveSaysRepointing(t *testing.T) {
	t.Parallel()
	c, old, first := supersedingDraftKB(t)
	second := put(t, c, &store.Learning{Title: "Widget cache warm-up moved to the loader", KeyInsight: "The loader warms the widget cache.",
		Status: store.StatusPending, Supersedes: old}, nil)
	ts, s := testServer(t, c)
	cl := login(t, ts.URL)

	res, _ := post(t, cl, ts.URL+"/inbox/"+first+"/approve", url.Values{"csrf": {s.CSRF()}})
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("approve: %d", res.StatusCode)
	}
	_, body := get(t, cl, ts.URL+res.Header.Get("Location"))
	plain := `<code>` + first + `</code> supersedes <a href="/learning/` + old + `"><code>` + old + `</code></a> (no longer injected).`
	if !strings.Contains(body, plain) || strings.Contains(body, "newest correction") {
		t.Errorf("the first approval does not say what it superseded:\n%s", body)
	}

	res, _ = post(t, cl, ts.URL+"/inbox/all/approve", url.Values{"csrf": {s.CSRF()}, "id": {second}})
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("approve: %d", res.StatusCode)
	}
	_, body = get(t, cl, ts.URL+res.Header.Get("Location"))
	want := `<code>` + second + `</code> supersedes <a href="/learning/` + first + `"><code>` + first + `</code></a> (no longer injected), the newest correction of <a href="/learning/` + old + `"><code>` + old + `</code></a>, which was already superseded.`
	if !strings.Contains(body, "approved 1.") || !strings.Contains(body, want) {
		t.Errorf("the second approval does not say it continued the chain:\n%s", body)
	}
	if l, err := store.Open(c.DocumentsDir()).Read(first); err != nil || l.SupersededBy != second {
		t.Errorf("the first draft after the second approval: %+v, %v", l, err)
	}
}

// The inbox echoes only ids from its address: anything else in a note is
// dropped, and what it shows is escaped.
func TestInboxNotesOnlyIDs(t *testing.T) {
	t.Parallel()
	c := kb(t)
	ts, _ := testServer(t, c)
	cl := login(t, ts.URL)
	q := url.Values{"done": {"approved"}, "n": {"1"}, "sup": {"a~<b>", "only-one", "a~b~c~d", "d1~s1"}}
	_, body := get(t, cl, ts.URL+"/inbox?"+q.Encode())
	if strings.Count(body, `class="superseded"`) != 1 || !strings.Contains(body, `<code>d1</code> supersedes`) || strings.Contains(body, "<b>") {
		t.Errorf("the inbox's notes from a crafted address:\n%s", body)
	}
}

// Forgetting the middle learning of X → A → B says that X stays
// superseded, now by B, as 'reflect forget' does. (On the old code the
// page said nothing of it.)
func TestForgetSaysJoin(t *testing.T) {
	t.Parallel()
	c := kb(t)
	x := put(t, c, &store.Learning{Title: "Widget cache needs warming", KeyInsight: "Run warm-cache before the benchmark."}, nil)
	a := put(t, c, &store.Learning{Title: "Widget cache warms itself since v2", KeyInsight: "Drop the warm-cache step.", Supersedes: x}, nil)
	b := put(t, c, &store.Learning{Title: "Widget cache warm-up moved to the loader", KeyInsight: "The loader warms the widget cache.", Supersedes: a}, nil)
	ts, s := testServer(t, c)
	cl := login(t, ts.URL)

	res, _ := post(t, cl, ts.URL+"/learning/"+a+"/forget", url.Values{"confirm": {"yes"}}, "X-CSRF-Token", s.CSRF())
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("forget: %d", res.StatusCode)
	}
	if l, err := store.Open(c.DocumentsDir()).Read(x); err != nil || l.SupersededBy != b {
		t.Fatalf("X after forgetting A: %+v, %v", l, err)
	}
	_, body := get(t, cl, ts.URL+res.Header.Get("Location"))
	want := `<a href="/learning/` + x + `"><code>` + x + `</code></a> stays superseded, now by <a href="/learning/` + b + `"><code>` + b + `</code></a>.`
	if !strings.Contains(body, `id="forget-joined"`) || !strings.Contains(body, want) {
		t.Errorf("the page after the forget does not say the chain was joined:\n%s", body)
	}

	// Forgetting the head (B) joins nothing: X is active again, and the
	// page says no join.
	res, _ = post(t, cl, ts.URL+"/learning/"+b+"/forget", url.Values{"confirm": {"yes"}}, "X-CSRF-Token", s.CSRF())
	if res.StatusCode != http.StatusSeeOther || strings.Contains(res.Header.Get("Location"), "joined") {
		t.Fatalf("forget of the head: %d %s", res.StatusCode, res.Header.Get("Location"))
	}
	if _, body := get(t, cl, ts.URL+res.Header.Get("Location")); strings.Contains(body, "forget-joined") {
		t.Errorf("a join said where there was none:\n%s", body)
	}
}

// An approval of many superseding drafts keeps the redirect's address
// bounded: the notes past maxNotes are counted, and the inbox says how
// many more there were.
func TestApprovedQueryBounded(t *testing.T) {
	t.Parallel()
	var done []knowledge.Approved
	for i := range maxNotes + 3 {
		id := "d" + strconv.Itoa(i)
		done = append(done, knowledge.Approved{Learning: &store.Learning{ID: id}, Supersedes: "s" + strconv.Itoa(i)})
	}
	done = append(done, knowledge.Approved{Learning: &store.Learning{ID: "plain"}})
	q, err := url.ParseQuery(approvedQuery(done))
	if err != nil {
		t.Fatal(err)
	}
	notes, more := supersedeNotes(q)
	if q.Get("n") != strconv.Itoa(maxNotes+4) || len(notes) != maxNotes || more != 3 || notes[0] != (supersedeNote{Draft: "d0", Sup: "s0"}) {
		t.Errorf("query %v: notes %v, more %d", q, notes, more)
	}
}
