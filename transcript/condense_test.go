package transcript

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// The AWS example credentials planted in the Claude fixture.
var fixtureSecrets = []string{"AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"}

func TestCondenseClaudeFixture(t *testing.T) {
	c, err := Condense("testdata/claude-session.jsonl", "", Limits{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"user: fix the OAuth redirect bug: login fails with state mismatch after the callback",
		"assistant: Let me reproduce the callback locally.",
		"failed(60) curl https://localhost:8443/callback?state=abc: curl: (60) SSL certificate problem: self-signed certificate",
		"user: no, use --insecure for local dev instead, the dev cert is self-signed",
		"ok curl --insecure -i https://localhost:8443/callback?state=abc: HTTP/1.1 400 Bad Request",
		"assistant: The state cookie is set with SameSite=Strict, so the browser drops it on the cross-site redirect back from the identity provider. Switching it to SameSite=Lax. [callback/cookie.go]",
		"user: perfect, that works. remember: always run the callback tests with the fake IdP (make idp-fake) before pushing",
		"assistant: The redirect now round-trips the state cookie with SameSite=Lax; tests pass.",
	}
	if got := briefs(c.Events); !reflect.DeepEqual(got, want) {
		t.Errorf("events:\n got %q\nwant %q", got, want)
	}
	if c.Harness != "claude" || c.SessionID != "8f14e45f-ceea-467f-a8e0-2c1d1b1e6a01" ||
		c.Cwd != "/home/dev/auth-service" || c.Branch != "fix/oauth-redirect" {
		t.Errorf("metadata: %q %q %q %q", c.Harness, c.SessionID, c.Cwd, c.Branch)
	}
	if !reflect.DeepEqual(c.Files, []string{"callback/cookie.go"}) {
		t.Errorf("files = %q", c.Files)
	}
	if c.RawBytes != fileSize(t, "testdata/claude-session.jsonl") || c.Skip != "" || c.Dropped != 0 {
		t.Errorf("raw %d skip %q dropped %d", c.RawBytes, c.Skip, c.Dropped)
	}
	for _, s := range []string{
		"USER: fix the OAuth redirect bug",
		"FAILED `curl https://localhost:8443/callback?state=abc` (exit 60): curl: (60) SSL certificate problem",
		"OK `curl --insecure -i https://localhost:8443/callback?state=abc`: HTTP/1.1 400 Bad Request",
		"EDITED: callback/cookie.go",
		"FILES: callback/cookie.go",
	} {
		if !strings.Contains(c.Text, s) {
			t.Errorf("Text lacks %q:\n%s", s, c.Text)
		}
	}
	if strings.Contains(c.Text, "reflect-learnings") || strings.Contains(c.Text, "lrn-oauth") {
		t.Errorf("injected learnings block reached the text:\n%s", c.Text)
	}
}

func TestCondenseCodexFixture(t *testing.T) {
	c, err := Condense("testdata/codex-rollout.jsonl", "", Limits{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"user: add OAuth refresh tokens to the login flow",
		"failed(1) go test ./...: --- FAIL: TestRefresh (0.00s) | refresh_test.go:31: token expired",
		"user: don't use time.Now in the token code, inject a clock instead so the test can control expiry",
		"ok go test ./...: ok auth-service/refresh 0.22s [refresh/token.go]",
		"assistant: Refresh tokens are stored server-side; the test clock is injected. [refresh/token.go]",
	}
	if got := briefs(c.Events); !reflect.DeepEqual(got, want) {
		t.Errorf("events:\n got %q\nwant %q", got, want)
	}
	if c.Harness != "codex" || c.SessionID != "019aad50-a7e6-7422-b7a8-0b384290624f" ||
		c.Cwd != "/home/dev/auth-service" || c.Branch != "feat/refresh-tokens" {
		t.Errorf("metadata: %q %q %q %q", c.Harness, c.SessionID, c.Cwd, c.Branch)
	}
	if !reflect.DeepEqual(c.Files, []string{"refresh/token.go"}) {
		t.Errorf("files = %q", c.Files)
	}
}

func fileSize(t testing.TB, path string) int64 {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st.Size()
}

// allText is every string of a condensation, for privacy scans.
func allText(t testing.TB, c *Condensed) string {
	t.Helper()
	j, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	return string(j) + "\n" + c.Text
}

// TestWindowCutKeepsNoSecretPrefix: text is cut before it is redacted
// (redacting megabytes to keep 2 kB would dominate the cost). A secret
// that straddles the cut must not leave a prefix that redaction no longer
// recognises, even when earlier redactions shrink the text so that the cut
// lands within the kept part.
func TestWindowCutKeepsNoSecretPrefix(t *testing.T) {
	pem := "-----BEGIN RSA PRIVATE KEY-----\n" + strings.Repeat("MIIEowIBAAKCAQEAuu3x5Zk7qlzQx1k2oXzv8Yq3mQ0kqRk\n", 40) + "-----END RSA PRIVATE KEY-----\n"
	key := fixtureSecrets[0]
	cut := maxPromptBytes + windowSlack
	for inside := 1; inside < len(key); inside++ {
		// Three private key blocks shrink to placeholders, pulling what
		// follows them 5 kB forward, into the kept 2 kB.
		s := strings.Repeat(pem, 3)
		s += strings.Repeat("w", cut-inside-len(s)-1) + " " + key + " tail"
		if got := bound(s, maxPromptBytes); strings.Contains(got, key[:max(inside, 2)]) {
			t.Fatalf("%d bytes of the key inside the window: its prefix survived: …%s", inside, got[max(0, len(got)-60):])
		}
	}
}

func TestUnknownHarnessIsAnError(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.jsonl")
	os.WriteFile(path, []byte(cUser(`"x"`)), 0o600)
	if _, err := Condense(path, "cursor", Limits{}); err == nil {
		t.Error("want an error for harness cursor")
	}
	if _, err := Condense(filepath.Join(t.TempDir(), "missing.jsonl"), "claude", Limits{}); err == nil {
		t.Error("want an error for a missing file")
	}
}

func TestPerEventCaps(t *testing.T) {
	long := strings.Repeat("word ", 5000)
	c := condenseString(t, "claude", lines(
		cUser(quote("PROMPT "+long)),
		cBash("t1", "make "+long),
		cResult("t1", quote("Exit code 2\nerror: "+long), true),
		cAsst(`[{"type":"text","text":`+quote("ANSWER "+long)+`}]`),
	), Limits{})
	caps := map[EventKind]int{UserPrompt: maxPromptBytes, AssistantFinal: maxAssistantBytes, ToolFailed: MaxErrorBytes}
	if len(c.Events) != 3 {
		t.Fatalf("events: %q", briefs(c.Events))
	}
	for _, ev := range c.Events {
		if n := len(ev.Text); n > caps[ev.Kind] || n < caps[ev.Kind]/2 {
			t.Errorf("%s text is %d bytes, cap %d", ev.Kind, n, caps[ev.Kind])
		}
		if n := len(ev.Command); n > maxCommandBytes {
			t.Errorf("%s command is %d bytes", ev.Kind, n)
		}
	}
	if !strings.HasSuffix(c.Events[0].Text, "…") {
		t.Errorf("a cut is not marked: %q", c.Events[0].Text[len(c.Events[0].Text)-20:])
	}
}

func TestEventBoundKeepsFirstPromptFailuresAndRecent(t *testing.T) {
	var sb strings.Builder
	sb.WriteString(cUser(`"the first prompt"`) + "\n")
	fails := 0
	for i := 0; i < 600; i++ {
		sb.WriteString(cUser(quote(fmt.Sprintf("prompt %d", i))) + "\n")
		sb.WriteString(cAsst(`[{"type":"text","text":`+quote(fmt.Sprintf("answer %d", i))+`}]`) + "\n")
		if i%20 == 0 {
			id := fmt.Sprintf("t%d", i)
			sb.WriteString(cBash(id, fmt.Sprintf("tool%d run", i)) + "\n")
			sb.WriteString(cResult(id, quote(fmt.Sprintf("Exit code 1\nerror %d", i)), true) + "\n")
			fails++
		}
	}
	const max = 60
	c := condenseString(t, "claude", sb.String(), Limits{MaxEvents: max})
	if len(c.Events) != max {
		t.Fatalf("%d events, want %d", len(c.Events), max)
	}
	if c.Events[0].Text != "the first prompt" {
		t.Errorf("first event %q, want the first prompt", brief(c.Events[0]))
	}
	failed := 0
	for _, ev := range c.Events {
		if ev.Kind == ToolFailed {
			failed++
		}
	}
	if failed != fails {
		t.Errorf("kept %d of %d failures", failed, fails)
	}
	if last := c.Events[max-1]; last.Text != "answer 599" {
		t.Errorf("last event %q, want the most recent answer", brief(last))
	}
	total := 1 + 600*2 + fails
	if c.Dropped != total-max {
		t.Errorf("Dropped = %d, want %d", c.Dropped, total-max)
	}
	// Order is the transcript's.
	prev := -1
	for _, ev := range c.Events[1:] {
		var n int
		if _, err := fmt.Sscanf(ev.Text[strings.LastIndex(ev.Text, " ")+1:], "%d", &n); err == nil && ev.Kind != ToolFailed {
			if n < prev {
				t.Errorf("events out of order at %q", brief(ev))
			}
			prev = n
		}
	}
}

// A correction among hundreds of prompts is kept by both bounds, the
// events' and the text's, while the prompts around it go.
func TestBoundsKeepCorrections(t *testing.T) {
	const correction = "no, use make test instead, the build tags are set there"
	var sb strings.Builder
	sb.WriteString(cUser(`"the first prompt"`) + "\n")
	for i := 0; i < 500; i++ {
		text := fmt.Sprintf("prompt %d about the widget cache", i)
		if i == 100 {
			text = correction
		}
		sb.WriteString(cUser(quote(text)) + "\n")
		sb.WriteString(cAsst(`[{"type":"text","text":`+quote(fmt.Sprintf("answer %d", i))+`}]`) + "\n")
	}
	for _, lim := range []Limits{{MaxEvents: 20}, {MaxChars: 600}} {
		c := condenseString(t, "claude", sb.String(), lim)
		if !strings.Contains(c.Text, correction) {
			t.Errorf("%+v: the correction was dropped:\n%s", lim, c.Text)
		}
		if strings.Contains(c.Text, "prompt 101 ") {
			t.Errorf("%+v: the prompt after the correction was kept, so the bound kept everything", lim)
		}
	}
}

func TestTextBound(t *testing.T) {
	path := writeSynthetic(t, 1<<20)
	for _, max := range []int{300, 2000, 8000, DefaultMaxChars} {
		c, err := Condense(path, "claude", Limits{MaxChars: max})
		if err != nil {
			t.Fatal(err)
		}
		if len(c.Text) > max || !utf8.ValidString(c.Text) {
			t.Errorf("MaxChars %d: text is %d bytes (valid UTF-8: %v)", max, len(c.Text), utf8.ValidString(c.Text))
		}
		if max >= 2000 && max < DefaultMaxChars {
			if !strings.Contains(c.Text, "USER: Set up the synthetic service") {
				t.Errorf("MaxChars %d: the first prompt is gone", max)
			}
			if !strings.Contains(c.Text, "events omitted") {
				t.Errorf("MaxChars %d: no omission note", max)
			}
		}
	}
}

func TestOverlongLinesAreSkipped(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 17 MB line")
	}
	huge := cResult("t1", quote(strings.Repeat("x", maxLineBytes+1<<20)), true)
	c := condenseString(t, "claude", lines(cUser(`"before"`), cBash("t1", "make"), huge, cUser(`"after"`)), Limits{})
	if got, want := briefs(c.Events), []string{"user: before", "user: after"}; !reflect.DeepEqual(got, want) {
		t.Errorf("events %q, want %q", got, want)
	}
}

// writeSynthetic writes a Claude-style transcript of about size bytes: a
// long session of tool calls with long outputs, some failing and fixed,
// edits, prompts and answers — what a day of agent work looks like.
func writeSynthetic(t testing.TB, size int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "long.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rng := rand.New(rand.NewSource(1))
	w := 0
	put := func(s string) {
		n, err := f.WriteString(s + "\n")
		if err != nil {
			t.Fatal(err)
		}
		w += n
	}
	logLines := func(n int) string {
		var sb strings.Builder
		for i := 0; i < n; i++ {
			fmt.Fprintf(&sb, "=== RUN   TestCase%d/sub_%d\n    case_test.go:%d: value %d ok\n", i, rng.Intn(100), rng.Intn(500), rng.Int())
		}
		return sb.String()
	}
	programs := []string{"go test ./...", "npm run build", "make lint", "cargo build", "pytest -q"}
	put(cUser(`"Set up the synthetic service and make the tests pass"`))
	for turn := 0; w < size; turn++ {
		put(cUser(quote(fmt.Sprintf("step %d: continue with the next module, keep the API stable", turn))))
		for call := 0; call < 6 && w < size; call++ {
			id := fmt.Sprintf("t%d_%d", turn, call)
			prog := programs[rng.Intn(len(programs))]
			put(cAsst(`[{"type":"text","text":"Running the checks again."},{"type":"tool_use","id":"` + id + `","name":"Bash","input":{"command":` + quote(prog) + `}}]`))
			if rng.Intn(4) == 0 {
				put(cResult(id, quote("Exit code 1\n"+logLines(30+rng.Intn(60))+"--- FAIL: TestCase7 (0.01s)\n    case_test.go:88: want 3, got 4"), true))
			} else {
				put(cResult(id, quote(logLines(30+rng.Intn(120))+"ok  \tsynthetic\t0.4s"), false))
			}
			if call%3 == 2 {
				eid := id + "e"
				put(cAsst(`[{"type":"tool_use","id":"` + eid + `","name":"Edit","input":{"file_path":"/repo/pkg` + fmt.Sprint(rng.Intn(30)) + `/file.go","old_string":"` + strings.Repeat("a", 300) + `","new_string":"b"}}]`))
				put(cResult(eid, `"The file has been updated."`, false))
			}
		}
		put(cAsst(`[{"type":"text","text":` + quote(fmt.Sprintf("Turn %d done: the module builds and its tests pass.", turn)) + `}]`))
	}
	return path
}

// TestCondensedSize measures how much smaller the condensation is than
// the transcript. Run with -v for the numbers.
func TestCondensedSize(t *testing.T) {
	synthetic := writeSynthetic(t, 5<<20)
	for _, tc := range []struct {
		name, path string
		minRatio   float64
	}{
		{"claude fixture", "testdata/claude-session.jsonl", 2},
		{"codex fixture", "testdata/codex-rollout.jsonl", 2},
		{"synthetic 5 MB claude", synthetic, 10},
	} {
		c, err := Condense(tc.path, "", Limits{})
		if err != nil {
			t.Fatal(err)
		}
		raw, text := c.RawBytes, int64(len(c.Text))
		ratio := float64(raw) / float64(text)
		t.Logf("%-22s raw %9d B (~%7d tokens) → text %6d B (~%5d tokens): %6.1f× smaller; %d events, %d dropped",
			tc.name, raw, raw/4, text, text/4, ratio, len(c.Events), c.Dropped)
		if ratio < tc.minRatio {
			t.Errorf("%s: only %.1f× smaller, want ≥ %.0f×", tc.name, ratio, tc.minRatio)
		}
		if text > DefaultMaxChars {
			t.Errorf("%s: text %d bytes over the default bound", tc.name, text)
		}
	}
}

func BenchmarkCondense(b *testing.B) {
	path := writeSynthetic(b, 5<<20)
	b.SetBytes(fileSize(b, path))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Condense(path, "claude", Limits{}); err != nil {
			b.Fatal(err)
		}
	}
}
