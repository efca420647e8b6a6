package recall

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/gofrs/flock"
)

// oauthKB is the calibration corpus plus four more learnings about the
// OAuth login flow of auth-service, so one topic has several learnings.
func oauthKB(t *testing.T) func(docs string) {
	return func(docs string) {
		CopyCorpus(t, docs)
		WriteDoc(t, docs, "lrn-oauth-pkce-verifier-replicas", "OAuth PKCE code verifier lost between login and callback",
			"Keep the PKCE code_verifier in the shared session store keyed by the OAuth state, not in one replica's memory: the callback may reach another instance.",
			"## Problem\nThe OAuth callback failed with invalid_grant at random: the login request and the callback hit different replicas.\n")
		WriteDoc(t, docs, "lrn-oauth-redirect-uri-mismatch", "OAuth redirect_uri_mismatch after moving behind the load balancer",
			"The app built the OAuth redirect URI from the request scheme, which is http behind TLS termination; honour X-Forwarded-Proto or configure the public callback URL.",
			"## Problem\nThe identity provider answered redirect_uri_mismatch for every login once the service moved behind the load balancer.\n")
		WriteDoc(t, docs, "lrn-oauth-token-clock-skew", "OAuth tokens rejected as not yet valid because of clock skew",
			"Allow 60 seconds of leeway when validating the iat and nbf claims of OAuth tokens; containers without NTP drift.",
			"## Problem\nFreshly issued OAuth access tokens were rejected on one node with token used before issued.\n")
		WriteDoc(t, docs, "lrn-oauth-logout-idp-session", "Logout does not end the identity provider session, so the next OAuth login is silent",
			"Call the identity provider's end_session endpoint on logout; clearing our own cookie leaves the IdP session alive.",
			"## Problem\nAfter logout, the next OAuth login went straight through without asking for a password.\n")
	}
}

func readState(t *testing.T, stateDir, sid string) map[string]string {
	t.Helper()
	m := map[string]string{}
	data, err := os.ReadFile(sessionPath(stateDir, sid))
	if os.IsNotExist(err) {
		return m
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("session file is not a JSON object: %v", err)
	}
	return m
}

// TestSessionScenario follows one session: session start, three prompts
// on one topic, a compaction, and the same prompt again. Each step states
// exactly what is injected.
func TestSessionScenario(t *testing.T) {
	GitEnv(t)
	ix := NewKB(t, oauthKB(t))
	ctx := context.Background()
	state := filepath.Join(t.TempDir(), "state")
	repo := filepath.Join(t.TempDir(), "checkout")
	NewRepo(t, repo, "feature/pkce-login", "git@github.com:acme/auth-service.git",
		"Store the PKCE verifier in the session store",
		"Pass the OAuth state through the callback")
	const sid = "8f14e45f-ceea-467f-a8e0-2c1d1b1e6a01"
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	step, hits := 0, 0
	run := func(req Request) Result {
		t.Helper()
		step++
		req.SessionID, req.StateDir, req.Cwd, req.GitTimeout = sid, state, repo, gitWait
		req.Now = now.Add(time.Duration(step) * time.Minute)
		res, err := Recall(ctx, ix, req)
		if err != nil {
			t.Fatal(err)
		}
		hits += len(res.Injected)
		t.Logf("step %d: query %q → injected %v, still relevant %q, skipped %q", step, res.Query, IDs(res.Injected), res.StillRelevant, res.Skipped)
		return res
	}
	expect := func(res Result, injected []string, still string) {
		t.Helper()
		if got := IDs(res.Injected); !reflect.DeepEqual(got, append([]string{}, injected...)) {
			t.Errorf("step %d: injected %v, want %v", step, got, injected)
		}
		if res.StillRelevant != still {
			t.Errorf("step %d: still relevant %q, want %q", step, res.StillRelevant, still)
		}
		for _, id := range injected {
			if !strings.Contains(res.Context, "("+id+")") {
				t.Errorf("step %d: %s missing from the block:\n%s", step, id, res.Context)
			}
		}
		if still != "" && !strings.Contains(res.Context, "still relevant: "+still+" (") {
			t.Errorf("step %d: no still-relevant line for %s:\n%s", step, still, res.Context)
		}
		if still != "" && strings.Contains(res.Context, "("+still+")\n") {
			t.Errorf("step %d: %s repeated in full:\n%s", step, still, res.Context)
		}
		if len(injected) == 0 && still == "" && res.Context != "" {
			t.Errorf("step %d: want silence, got:\n%s", step, res.Context)
		}
	}
	seen := map[string]bool{}
	noRepeats := func(res Result) {
		t.Helper()
		for _, h := range res.Injected {
			if seen[h.ID] {
				t.Errorf("step %d: %s injected twice in one context", step, h.ID)
			}
			seen[h.ID] = true
		}
	}

	// Session start: the project, the branch and the commits are about
	// PKCE and the OAuth state; the project's other learning (Redis
	// eviction) comes with the briefing, whatever its words.
	start := run(Request{Kind: SessionStart, Source: "startup"})
	expect(start, sessionStartIDs, "")
	noRepeats(start)
	if n := InjectedCount(state, sid); n != 3 {
		t.Errorf("InjectedCount after start = %d, want 3", n)
	}

	// Prompt 1: the state cookie learning is the top hit, but session
	// start injected it already: one line instead of a repeat.
	p1 := run(Request{Kind: Prompt, Prompt: "the OAuth state cookie is missing when the browser comes back to the callback in Safari"})
	expect(p1, nil, "lrn-oauth-state-cookie-samesite")
	noRepeats(p1)

	// Prompt 2: a new aspect of the same topic brings a new learning.
	const redirect = "redirect_uri_mismatch from the identity provider since the service moved behind the load balancer"
	p2 := run(Request{Kind: Prompt, Prompt: redirect})
	expect(p2, []string{"lrn-oauth-redirect-uri-mismatch"}, "")
	noRepeats(p2)

	// Prompt 3: back to a learning of session start, and a new one.
	p3 := run(Request{Kind: Prompt, Prompt: "the OAuth callback fails with invalid_grant, is the PKCE code verifier lost between replicas? also seeing tokens rejected as not yet valid"})
	expect(p3, []string{"lrn-oauth-token-clock-skew"}, "lrn-oauth-pkce-verifier-replicas")
	noRepeats(p3)

	got := readState(t, state, sid)
	want := []string{"lrn-oauth-pkce-verifier-replicas", "lrn-oauth-state-cookie-samesite", "lrn-redis-eviction-policy", "lrn-oauth-redirect-uri-mismatch", "lrn-oauth-token-clock-skew"}
	if len(got) != len(want) {
		t.Errorf("session file holds %v, want %v", got, want)
	}
	for _, id := range want {
		if _, err := time.Parse(time.RFC3339, got[id]); err != nil {
			t.Errorf("session file: %s = %q, want an RFC 3339 time", id, got[id])
		}
	}
	if got["lrn-oauth-pkce-verifier-replicas"] != "2026-11-22T10:01:00Z" || got["lrn-oauth-token-clock-skew"] != "2026-11-22T10:04:00Z" {
		t.Errorf("each learning keeps the time it was injected: %v", got)
	}
	if n := InjectedCount(state, sid); n != 5 {
		t.Errorf("InjectedCount = %d, want 5", n)
	}

	// Compaction: the agent's context was summarised, so what it was told
	// is gone. The session starts over and injects again.
	compact := run(Request{Kind: SessionStart, Source: "compact"})
	expect(compact, sessionStartIDs, "")
	if n := InjectedCount(state, sid); n != 3 {
		t.Errorf("InjectedCount after compaction = %d, want 3", n)
	}

	// The redirect learning was forgotten with the context: in full again.
	again := run(Request{Kind: Prompt, Prompt: redirect})
	expect(again, []string{"lrn-oauth-redirect-uri-mismatch"}, "")

	// And asking once more only names it.
	once := run(Request{Kind: Prompt, Prompt: redirect})
	expect(once, nil, "lrn-oauth-redirect-uri-mismatch")

	// An unrelated prompt stays silent and changes nothing.
	quiet := run(Request{Kind: Prompt, Prompt: "write a haiku about autumn leaves"})
	expect(quiet, nil, "")
	if quiet.Skipped == "" {
		t.Error("silence should say why")
	}
	if n := InjectedCount(state, sid); n != 4 {
		t.Errorf("InjectedCount = %d, want 4", n)
	}

	// /clear empties the set too; ClearSession does the same for a hook.
	clear := run(Request{Kind: SessionStart, Source: "clear"})
	expect(clear, sessionStartIDs, "")
	if err := ClearSession(state, sid); err != nil {
		t.Fatal(err)
	}
	if n := InjectedCount(state, sid); n != 0 {
		t.Errorf("InjectedCount after ClearSession = %d", n)
	}
	if err := ClearSession(state, sid); err != nil {
		t.Errorf("clearing a session without state: %v", err)
	}

	// Every injection of the session is counted on its day, the ones
	// before the compaction included (its dedupe file started again).
	if got := HitsPerDay(state); hits == 0 || !reflect.DeepEqual(got, map[string]int{"2026-11-22": hits}) {
		t.Errorf("HitsPerDay = %v, want 2026-11-22: %d", got, hits)
	}
}

// TestResumeKeepsDedupe checks that only compact and clear reset the set:
// a resumed session still has what it was told.
func TestResumeKeepsDedupe(t *testing.T) {
	GitEnv(t)
	ix := NewKB(t, oauthKB(t))
	state := t.TempDir()
	repo := filepath.Join(t.TempDir(), "auth-service")
	NewRepo(t, repo, "main", "", "Pass the OAuth state through the callback")
	req := Request{Kind: SessionStart, Source: "startup", Cwd: repo, SessionID: "s1", StateDir: state, GitTimeout: gitWait}
	first, err := Recall(context.Background(), ix, req)
	if err != nil || len(first.Injected) == 0 {
		t.Fatalf("first start injected nothing: %v %+v", err, first)
	}
	req.Source = "resume"
	second, err := Recall(context.Background(), ix, req)
	if err != nil {
		t.Fatal(err)
	}
	if len(second.Injected) != 0 || second.StillRelevant != first.Injected[0].ID {
		t.Errorf("resume repeated learnings: %v, still %q", IDs(second.Injected), second.StillRelevant)
	}
}

func TestNoSessionNoState(t *testing.T) {
	t.Parallel()
	ix := NewKB(t, oauthKB(t))
	state := t.TempDir()
	for _, sid := range []string{"", "s1"} {
		req := Request{Kind: Prompt, Prompt: "login fails with state mismatch after the OAuth callback", SessionID: sid}
		if sid == "s1" {
			req.StateDir = "" // no state dir: no dedupe either
		} else {
			req.StateDir = state
		}
		for i := 0; i < 2; i++ {
			res, err := Recall(context.Background(), ix, req)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Injected) == 0 || res.StillRelevant != "" {
				t.Errorf("without dedupe every recall is fresh: %+v", res)
			}
		}
	}
	if ents, _ := os.ReadDir(state); len(ents) != 0 {
		t.Errorf("state written without a session: %v", ents)
	}
}

// TestSessionIDSanitised feeds hostile session ids: every file recall
// writes stays directly under session-injected/.
func TestSessionIDSanitised(t *testing.T) {
	t.Parallel()
	ix := NewKB(t, oauthKB(t))
	root := t.TempDir()
	state := filepath.Join(root, "state")
	for _, sid := range []string{"../../x", "../escape", "/etc/passwd", "a/b/c", "..", ".hidden", strings.Repeat("long", 100), "nul\x00byte", "ünïcode"} {
		res, err := Recall(context.Background(), ix, Request{Kind: Prompt, Prompt: "login fails with state mismatch after the OAuth callback", SessionID: sid, StateDir: state})
		if err != nil || len(res.Injected) == 0 {
			t.Fatalf("sid %q: %v %+v", sid, err, res)
		}
		p := sessionPath(state, sid)
		if filepath.Dir(p) != filepath.Join(state, sessionDir) || strings.HasPrefix(filepath.Base(p), ".") {
			t.Errorf("sid %q → %s", sid, p)
		}
		if InjectedCount(state, sid) == 0 {
			t.Errorf("sid %q: nothing recorded", sid)
		}
	}
	err := filepath.Walk(root, func(path string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		switch {
		case fi.IsDir():
			if rel != "." && rel != "state" && rel != filepath.Join("state", sessionDir) {
				t.Errorf("unexpected directory %s", rel)
			}
			if rel != "." && fi.Mode().Perm() != 0o700 {
				t.Errorf("%s has mode %v, want 0700", rel, fi.Mode().Perm())
			}
		default:
			// The per-day hit counter is the one file recall keeps beside
			// the session directory; no session id may name it.
			if filepath.Dir(rel) != filepath.Join("state", sessionDir) && rel != filepath.Join("state", hitsFile) {
				t.Errorf("file outside session-injected: %s", rel)
			}
			if fi.Mode().Perm() != 0o600 {
				t.Errorf("%s has mode %v, want 0600", rel, fi.Mode().Perm())
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestDamagedSessionFile(t *testing.T) {
	t.Parallel()
	ix := NewKB(t, oauthKB(t))
	state := t.TempDir()
	p := sessionPath(state, "s1")
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	if n := InjectedCount(state, "s1"); n != 0 {
		t.Errorf("damaged file counts %d", n)
	}
	res, err := Recall(context.Background(), ix, Request{Kind: Prompt, Prompt: "login fails with state mismatch after the OAuth callback", SessionID: "s1", StateDir: state})
	if err != nil || len(res.Injected) == 0 {
		t.Fatalf("a damaged dedupe file must not stop recall: %v %+v", err, res)
	}
	if n := InjectedCount(state, "s1"); n != len(res.Injected) {
		t.Errorf("the damaged file should be replaced: count %d", n)
	}
}

// TestConcurrentHooks runs several recalls of one session at once, as two
// hooks may: the lock makes each learning injected exactly once.
func TestConcurrentHooks(t *testing.T) {
	t.Parallel()
	ix := NewKB(t, oauthKB(t))
	state := t.TempDir()
	const n = 8
	var wg sync.WaitGroup
	results := make([]Result, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			res, err := Recall(context.Background(), ix, Request{Kind: Prompt, Prompt: "login fails with state mismatch after the OAuth callback", SessionID: "s1", StateDir: state})
			if err != nil {
				t.Error(err)
			}
			results[i] = res
		}(i)
	}
	wg.Wait()
	count := map[string]int{}
	fresh := 0
	for _, r := range results {
		if r.Warning != "" {
			t.Errorf("warning: %s", r.Warning)
		}
		if len(r.Injected) > 0 {
			fresh++
		}
		for _, h := range r.Injected {
			count[h.ID]++
		}
	}
	for id, c := range count {
		if c != 1 {
			t.Errorf("%s injected %d times", id, c)
		}
	}
	if fresh != 1 || InjectedCount(state, "s1") != len(count) {
		t.Errorf("%d recalls injected, state holds %d of %d", fresh, InjectedCount(state, "s1"), len(count))
	}
}

// TestDedupeLockBusyInjectsNothing holds the dedupe lock as a stuck hook
// would: the recall must not go ahead without it (on main it injected, with
// a warning, so two hooks of a session could inject the same learning), and
// it must not wait past lockWait either.
func TestDedupeLockBusyInjectsNothing(t *testing.T) {
	t.Parallel()
	ix := NewKB(t, oauthKB(t))
	state := t.TempDir()
	if err := os.MkdirAll(filepath.Join(state, sessionDir), 0o700); err != nil {
		t.Fatal(err)
	}
	held := flock.New(filepath.Join(state, sessionDir, ".lock"))
	if err := held.Lock(); err != nil {
		t.Fatal(err)
	}
	req := Request{Kind: Prompt, Prompt: "login fails with state mismatch after the OAuth callback", SessionID: "s1", StateDir: state}
	res, err := Recall(context.Background(), ix, req)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Injected) != 0 || res.Context != "" || !strings.Contains(res.Skipped, "lock busy") {
		t.Errorf("recall under a held dedupe lock injected %d (skipped %q); want nothing, said why", len(res.Injected), res.Skipped)
	}
	if err := held.Unlock(); err != nil {
		t.Fatal(err)
	}
	res, err = Recall(context.Background(), ix, req)
	if err != nil || len(res.Injected) == 0 || res.Warning != "" {
		t.Errorf("recall after the lock was released: %v, %+v", err, res)
	}
	if n := InjectedCount(state, "s1"); n != len(res.Injected) {
		t.Errorf("InjectedCount = %d, want %d", n, len(res.Injected))
	}
}

// A prompt of megabytes is searched by its first MaxPromptBytes: on main
// all of it went through the block filter and the tokenizer (1.6–2.3 s and
// up to 250 MB for a 4–7 MB prompt).
func TestHugePromptClipped(t *testing.T) {
	t.Parallel()
	ix := NewKB(t, oauthKB(t))
	huge := "login fails with state mismatch after the OAuth callback " + strings.Repeat("padding wörds here ", 300_000)
	res, err := Recall(context.Background(), ix, Request{Kind: Prompt, Prompt: huge})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Query) > MaxPromptBytes || !utf8.ValidString(res.Query) {
		t.Errorf("searched a %d-byte query (valid UTF-8: %v), want at most %d", len(res.Query), utf8.ValidString(res.Query), MaxPromptBytes)
	}
	if len(res.Injected) == 0 {
		t.Errorf("the clipped prompt's topic was not recalled: %+v", res)
	}
}

// The hit counter keeps days apart and drops the ones past its window.
func TestRecordHitsKeepsDaysAndForgetsOldOnes(t *testing.T) {
	t.Parallel()
	state := t.TempDir()
	day := time.Date(2026, 11, 25, 23, 59, 0, 0, time.UTC)
	for _, tc := range []struct {
		at time.Time
		n  int
	}{{day.AddDate(0, 0, -hitsKeepDays-1), 5}, {day.Add(-24 * time.Hour), 2}, {day, 1}, {day, 3}, {day, 0}} {
		if err := recordHits(state, tc.at, tc.n); err != nil {
			t.Fatal(err)
		}
	}
	want := map[string]int{"2026-11-24": 2, "2026-11-25": 4}
	if got := HitsPerDay(state); !reflect.DeepEqual(got, want) {
		t.Errorf("HitsPerDay = %v, want %v", got, want)
	}
	if got := HitsPerDay(filepath.Join(state, "missing")); len(got) != 0 {
		t.Errorf("no file: %v", got)
	}
}

// sessionStartIDs is what TestSessionScenario's session start injects: the
// two learnings its query finds, with the project's Redis learning from
// the briefing in the slot left between them for a learning that is not
// the project's (the PKCE learning names no project).
var sessionStartIDs = []string{"lrn-oauth-state-cookie-samesite", "lrn-redis-eviction-policy", "lrn-oauth-pkce-verifier-replicas"}
