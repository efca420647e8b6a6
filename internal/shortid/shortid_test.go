package shortid

import (
	"errors"
	"strings"
	"testing"
)

var ids = []string{
	"lrn-oauth-state-cookie-must-be-samesite-lax-3f9a1c",
	"lrn-oauth-token-refresh-races-b41d07",
	"lrn-postgres-pool-exhausted-0c11aa",
	"lrn-cookie",
	"lrn-cookie-jar",
}

func TestResolve(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ ref, want string }{
		{"lrn-postgres-pool-exhausted-0c11aa", "lrn-postgres-pool-exhausted-0c11aa"}, // full id
		{"lrn-oauth-s", "lrn-oauth-state-cookie-must-be-samesite-lax-3f9a1c"},        // prefix
		{"oauth-t", "lrn-oauth-token-refresh-races-b41d07"},                          // prefix without lrn-
		{"3f9a1c", "lrn-oauth-state-cookie-must-be-samesite-lax-3f9a1c"},             // hash tail
		{"lrn-cookie", "lrn-cookie"},                                                 // exact beats prefix
		{"3f9a", "lrn-oauth-state-cookie-must-be-samesite-lax-3f9a1c"},               // start of the tail
	} {
		got, err := Resolve(tc.ref, ids, "lrn-")
		if err != nil || got != tc.want {
			t.Errorf("Resolve(%q) = %q, %v; want %q", tc.ref, got, err, tc.want)
		}
	}
}

func TestResolveAmbiguous(t *testing.T) {
	t.Parallel()
	_, err := Resolve("oauth", ids, "lrn-")
	var ae *AmbiguousError
	if !errors.As(err, &ae) {
		t.Fatalf("Resolve(oauth) err = %v, want *AmbiguousError", err)
	}
	if len(ae.Candidates) != 2 || ae.Candidates[0] != ids[0] || ae.Candidates[1] != ids[1] {
		t.Errorf("candidates = %q", ae.Candidates)
	}
	msg := err.Error()
	for _, want := range []string{`"oauth" is ambiguous`, "matches 2 ids", ids[0], ids[1]} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q lacks %q", msg, want)
		}
	}
}

func TestResolveAmbiguousListsAtMostTen(t *testing.T) {
	t.Parallel()
	var many []string
	for i := 0; i < 13; i++ {
		many = append(many, "q-2026"+string(rune('a'+i)))
	}
	_, err := Resolve("q-", many, "q-")
	if err == nil || !strings.Contains(err.Error(), "… and 3 more") {
		t.Fatalf("err = %v, want the list cut at 10 with '… and 3 more'", err)
	}
}

func TestResolveNotFound(t *testing.T) {
	t.Parallel()
	// "3f9" is too short to match by a tail; "jar" likewise
	for _, ref := range []string{"", "zzz", "lrn-nope", "-", "3f9", "jar"} {
		if _, err := Resolve(ref, ids, "lrn-"); !errors.Is(err, ErrNotFound) {
			t.Errorf("Resolve(%q) err = %v, want ErrNotFound", ref, err)
		}
	}
}

func TestShortAmbiguousTail(t *testing.T) {
	t.Parallel()
	// 0c11aa is also the prefix of another id's slug: the tail would not
	// type back to the id, so it is shown in full.
	ids := []string{"lrn-a-0c11aa", "lrn-0c11aa-notes-123456"}
	if got := Short(ids[0], ids, "lrn-"); got != ids[0] {
		t.Errorf("Short = %q, want the full id", got)
	}
	if got := Short(ids[1], ids, "lrn-"); got != "123456" {
		t.Errorf("Short = %q, want 123456", got)
	}
}

func TestShort(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ id, want string }{
		{ids[0], "3f9a1c"},
		{ids[2], "0c11aa"},
		// chosen ids have no hash tail to shorten to
		{"lrn-cookie", "lrn-cookie"},
		{"lrn-cookie-jar", "lrn-cookie-jar"},
	} {
		if got := Short(tc.id, ids, "lrn-"); got != tc.want {
			t.Errorf("Short(%q) = %q, want %q", tc.id, got, tc.want)
		}
		if back, err := Resolve(Short(tc.id, ids, "lrn-"), ids, "lrn-"); err != nil || back != tc.id {
			t.Errorf("Resolve(Short(%q)) = %q, %v", tc.id, back, err)
		}
	}
}

// Short over the rivals of an id's tail prints what Short over every id
// prints: an index may pass just those (index.ShortIDs).
func TestShortOverRivals(t *testing.T) {
	t.Parallel()
	all := append([]string{
		"lrn-x-b41d07", "lrn-y-b41d07aa", "lrn-0c11aa-notes-123456", "lrn-a-0c11aa",
		"5e5e5e-raw", "lrn-b-5e5e5e", "777777", "lrn-c-777777", "lrn-d-3f9a1c",
	}, ids...)
	for _, id := range all {
		tail, ok := Tail(id)
		if !ok {
			if Short(id, all, "lrn-") != id {
				t.Errorf("Short(%q) shortened an id without a hex tail", id)
			}
			continue
		}
		if got, want := Short(id, Rivals(tail, all, "lrn-"), "lrn-"), Short(id, all, "lrn-"); got != want {
			t.Errorf("Short(%q) over its rivals = %q, over all ids %q", id, got, want)
		}
	}
}
