package store

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	yaml "go.yaml.in/yaml/v3"
)

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// docWith builds a minimal valid document with extra frontmatter lines and
// the given fields left out.
func docWith(extra string, omit ...string) string {
	fields := []struct{ key, line string }{
		{"id", "id: lrn-test-1a2b3c"},
		{"title", "title: A test learning"},
		{"confidence", "confidence: high"},
		{"created", "created: 2026-11-22T11:05:00Z"},
	}
	var b strings.Builder
	b.WriteString("---\n")
	for _, f := range fields {
		skip := false
		for _, o := range omit {
			skip = skip || o == f.key
		}
		if !skip {
			b.WriteString(f.line + "\n")
		}
	}
	b.WriteString(extra)
	b.WriteString("---\n## Problem\nSomething.\n")
	return b.String()
}

func TestParseDesignExample(t *testing.T) {
	t.Parallel()
	l, err := Parse(readTestdata(t, "design-example.md"))
	if err != nil {
		t.Fatalf("Parse(ARCHITECTURE §3 example): %v", err)
	}
	ts := time.Date(2026, 11, 22, 11, 5, 0, 0, time.UTC)
	want := &Learning{
		ID:         "lrn-oauth-state-cookie-samesite-1a2b3c",
		Title:      "OAuth state cookie must be SameSite=Lax",
		Type:       "learning",
		Confidence: "high",
		Category:   "debugging",
		Tags:       []string{"oauth", "cookies"},
		Symptoms:   []string{"state mismatch after callback"},
		KeyInsight: "A SameSite=Strict state cookie is dropped on the cross-site redirect back from the IdP.",
		Scope:      "project",
		Project:    "auth-service",
		Source:     &Source{Harness: "claude", SessionID: "8f14e45f-…", Trigger: "precompact-auto"},
		Cites:      []Cite{{Path: "callback/cookie.go", SHA256: "9f2c…"}},
		Body:       "## Problem\n## Solution\n## Context\n",
	}
	assertLearningEqual(t, l, want, ts, ts)
	if len(l.extra) != 0 {
		t.Errorf("the example has no unknown fields, got %d extra nodes", len(l.extra))
	}

	out, err := l.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	again, err := Parse(out)
	if err != nil {
		t.Fatalf("Parse(Marshal(example)): %v\n%s", err, out)
	}
	assertLearningEqual(t, again, want, ts, ts)
	for _, line := range []string{
		"source: {harness: claude, session_id: 8f14e45f-…, trigger: precompact-auto}\n",
		"tags: [oauth, cookies]\n",
	} {
		if !bytes.Contains(out, []byte(line)) {
			t.Errorf("Marshal should keep the compact style of ARCHITECTURE §3 (%q):\n%s", line, out)
		}
	}
}

func TestParseGood(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		data  string
		check func(t *testing.T, l *Learning)
	}{
		{"testdata valid", string(readTestdata(t, "valid.md")), func(t *testing.T, l *Learning) {
			if l.Scope != "global" || l.Confidence != "medium" || !reflect.DeepEqual(l.Tags, []string{"search", "tools"}) {
				t.Errorf("fields: %+v", l)
			}
			if !strings.HasPrefix(l.Body, "## Problem\n") || !strings.HasSuffix(l.Body, "Large monorepo.\n") {
				t.Errorf("body %q", l.Body)
			}
		}},
		{"CRLF line endings", string(readTestdata(t, "crlf.md")), func(t *testing.T, l *Learning) {
			if l.ID != "lrn-crlf" || l.Title != "Windows line endings" || l.Confidence != "low" {
				t.Errorf("fields: %+v", l)
			}
			if l.Body != "## Problem\r\nCRLF\r\n" {
				t.Errorf("body %q", l.Body)
			}
		}},
		{"byte order mark", "\xef\xbb\xbf" + docWith(""), func(t *testing.T, l *Learning) {
			if l.ID != "lrn-test-1a2b3c" {
				t.Errorf("id %q", l.ID)
			}
		}},
		{"longer delimiters", "-----\nid: lrn-x\ntitle: t\nconfidence: low\ncreated: 2026-01-01\n---\nnot: closing\n-----\nbody\n", func(t *testing.T, l *Learning) {
			if l.Body != "body\n" || !l.Created.Equal(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)) {
				t.Errorf("body %q created %v", l.Body, l.Created)
			}
		}},
		{"closing delimiter at end of file", "---\nid: lrn-x\ntitle: t\nconfidence: low\ncreated: 2026-01-01T00:00:00Z\n---", func(t *testing.T, l *Learning) {
			if l.Body != "" {
				t.Errorf("body %q, want empty", l.Body)
			}
		}},
		{"quoted created and offset", docWith("updated: \"2026-11-22T13:05:00+02:00\"\n"), func(t *testing.T, l *Learning) {
			if !l.Updated.Equal(time.Date(2026, 11, 22, 11, 5, 0, 0, time.UTC)) {
				t.Errorf("updated %v", l.Updated)
			}
		}},
		{"body keeps leading blank lines and a missing final newline", "---\nid: lrn-x\ntitle: t\nconfidence: low\ncreated: 2026-01-01T00:00:00Z\n---\n\n\nbody", func(t *testing.T, l *Learning) {
			if l.Body != "\n\nbody" {
				t.Errorf("body %q", l.Body)
			}
		}},
		{"body with its own rule lines", docWith("") + "---\nmore\n---\n", func(t *testing.T, l *Learning) {
			if l.Body != "## Problem\nSomething.\n---\nmore\n---\n" {
				t.Errorf("body %q", l.Body)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := Parse([]byte(tt.data))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			tt.check(t, l)
		})
	}
}

func TestParseBad(t *testing.T) {
	t.Parallel()
	bomb := "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
	for c := 'b'; c <= 'h'; c++ {
		p := string(c - 1)
		bomb += fmt.Sprintf("%c: &%c [*%s, *%s, *%s, *%s, *%s, *%s, *%s, *%s, *%s, *%s]\n", c, c, p, p, p, p, p, p, p, p, p, p)
	}
	tests := []struct {
		name string
		data string
		want []string // substrings of the reason
	}{
		{"bad YAML", docWith("tags: [oauth, cookies\n"), []string{"frontmatter is not valid YAML"}},
		{"bad YAML indentation", docWith("review:\n  a: 1\n b: 2\n"), []string{"frontmatter is not valid YAML", "line"}},
		{"missing title", docWith("", "title"), []string{"missing title"}},
		{"blank title", docWith("title: '  '\n", "title"), []string{"missing title"}},
		{"missing id", docWith("", "id"), []string{"missing id"}},
		{"missing confidence", docWith("", "confidence"), []string{"missing confidence"}},
		{"missing created", docWith("", "created"), []string{"missing created", "RFC 3339"}},
		{"several missing", docWith("", "id", "title"), []string{"missing id", "missing title"}},
		{"bad confidence", docWith("confidence: very\n", "confidence"), []string{`confidence "very" is not one of high, medium, low`}},
		{"bad type", docWith("type: essay\n"), []string{`type "essay"`}},
		{"bad scope", docWith("scope: world\n"), []string{`scope "world"`}},
		{"id with a path", docWith("id: ../../etc/passwd\n", "id"), []string{`id "../../etc/passwd" may only hold`}},
		{"created not a time", docWith("created: yesterday\n", "created"), []string{"wrong type", "yesterday"}},
		{"tags not a list", docWith("tags: {a: b}\n"), []string{"wrong type", "line 6:"}}, // line numbers are the file's
		{"duplicate key", docWith("title: again\n"), []string{`field "title" twice (lines 3 and 6)`}},
		{"duplicate key through an alias", docWith("k: &k title\n*k : again\n"), []string{`field "title" twice`}},
		{"duplicate unknown key", docWith("foo: 1\nfoo: 2\n"), []string{`field "foo" twice`}},
		{"frontmatter is a list", "---\n- a\n- b\n---\nbody\n", []string{"'key: value' fields"}},
		{"frontmatter is empty", "---\n---\nbody\n", []string{"'key: value' fields"}},
		{"no frontmatter", "# Title\n\nJust markdown.\n", []string{"no frontmatter"}},
		{"empty input", "", []string{"no frontmatter"}},
		{"unclosed frontmatter", "---\nid: lrn-x\ntitle: t\n", []string{"closing '---' missing"}},
		{"indented delimiter", " ---\nid: lrn-x\n ---\n", []string{"no frontmatter"}},
		{"two dashes", "--\nid: lrn-x\n--\n", []string{"no frontmatter"}},
		{"closing delimiter differs", "----\nid: lrn-x\n---\n", []string{"closing '----' missing"}},
		{"NUL bytes", docWith("") + "\x00\x00\x00", []string{"not a UTF-8 text file"}},
		{"invalid UTF-8", docWith("") + "caf\xe9\n", []string{"not a UTF-8 text file"}},
		{"binary junk", "\x7fELF\x02\x01\x01\x00\x00\x00\xff\xfe", []string{"not a UTF-8 text file"}},
		{"over MaxDocumentSize", docWith("") + strings.Repeat("x", MaxDocumentSize), []string{"more than the 1048576"}},
		{"alias bomb in an unknown field", docWith(bomb), []string{"too many"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := Parse([]byte(tt.data))
			if err == nil {
				t.Fatalf("Parse succeeded: %+v", l)
			}
			if l != nil {
				t.Errorf("Parse returned a learning with an error")
			}
			var de *DocError
			if !errors.As(err, &de) {
				t.Fatalf("error %T %v is not a *DocError", err, err)
			}
			if de.Path != "" {
				t.Errorf("Parse set Path %q; only ReadFile knows the path", de.Path)
			}
			if err.Error() != de.Reason {
				t.Errorf("Error() = %q, want the bare reason %q", err.Error(), de.Reason)
			}
			for _, w := range tt.want {
				if !strings.Contains(de.Reason, w) {
					t.Errorf("reason %q does not contain %q", de.Reason, w)
				}
			}
		})
	}
}

func TestParseExactlyMaxDocumentSize(t *testing.T) {
	t.Parallel()
	doc := docWith("")
	data := doc + strings.Repeat("x", MaxDocumentSize-len(doc))
	if _, err := Parse([]byte(data)); err != nil {
		t.Fatalf("a document of exactly MaxDocumentSize bytes must parse: %v", err)
	}
}

// frontmatterKeys lists the top-level keys of a document's frontmatter in order.
func frontmatterKeys(t *testing.T, doc []byte) []string {
	t.Helper()
	fm := frontmatterMap(t, doc)
	var keys []string
	for i := 0; i < len(fm.Content); i += 2 {
		keys = append(keys, fm.Content[i].Value)
	}
	return keys
}

func frontmatterMap(t *testing.T, doc []byte) *yaml.Node {
	t.Helper()
	parts := bytes.SplitN(doc, []byte("\n---\n"), 2)
	if len(parts) != 2 || !bytes.HasPrefix(parts[0], []byte("---\n")) {
		t.Fatalf("not a '---' delimited document:\n%s", doc)
	}
	var n yaml.Node
	if err := yaml.Unmarshal(parts[0][4:], &n); err != nil {
		t.Fatalf("frontmatter: %v\n%s", err, doc)
	}
	return n.Content[0]
}

func unknownKeys(keys []string) []string {
	var out []string
	for _, k := range keys {
		if !knownKeys[k] {
			out = append(out, k)
		}
	}
	return out
}

func TestRoundTripKeepsUnknownFieldsAndBody(t *testing.T) {
	t.Parallel()
	orig := readTestdata(t, "extras.md")
	l, err := Parse(orig)
	if err != nil {
		t.Fatal(err)
	}
	wantBody := string(bytes.SplitN(orig, []byte("\n---\n"), 2)[1])
	if l.Body != wantBody {
		t.Fatalf("parsed body %q, want %q", l.Body, wantBody)
	}

	l.Title = "Use ripgrep instead of grep"
	out, err := l.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	l2, err := Parse(out)
	if err != nil {
		t.Fatalf("Parse(Marshal()): %v\n%s", err, out)
	}
	if l2.Title != "Use ripgrep instead of grep" {
		t.Errorf("title %q", l2.Title)
	}
	if l2.Body != wantBody {
		t.Errorf("body changed:\n got %q\nwant %q", l2.Body, wantBody)
	}
	if !bytes.HasSuffix(out, []byte("\n---\n"+wantBody)) {
		t.Errorf("Marshal did not write the body byte-for-byte:\n%s", out)
	}

	wantUnknown := []string{"reviewer", "review", "related", "steps", "weight", "flag"}
	if got := unknownKeys(frontmatterKeys(t, orig)); !reflect.DeepEqual(got, wantUnknown) {
		t.Fatalf("fixture unknown keys %v, want %v", got, wantUnknown)
	}
	if got := unknownKeys(frontmatterKeys(t, out)); !reflect.DeepEqual(got, wantUnknown) {
		t.Errorf("unknown keys after round trip %v, want %v in that order\n%s", got, wantUnknown, out)
	}

	// Values survive, nested maps and lists included.
	decode := func(doc []byte) map[string]any {
		var m map[string]any
		if err := frontmatterMap(t, doc).Decode(&m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	before, after := decode(orig), decode(out)
	for _, k := range wantUnknown {
		if !reflect.DeepEqual(before[k], after[k]) {
			t.Errorf("%s: %#v became %#v", k, before[k], after[k])
		}
	}
	var review struct {
		State string
		By    struct {
			Name string
			At   time.Time
		}
	}
	if ok, err := l2.Extra("review", &review); !ok || err != nil {
		t.Fatalf("Extra(review) = %v, %v", ok, err)
	}
	if review.State != "approved" || review.By.Name != "bob" || !review.By.At.Equal(time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)) {
		t.Errorf("review = %+v", review)
	}
	if !bytes.Contains(out, []byte("# a comment above an unknown field\nflag: true")) {
		t.Errorf("comment on an unknown field was lost:\n%s", out)
	}
	if ok, _ := l2.Extra("no-such-key", new(string)); ok {
		t.Errorf("Extra of a missing key reported ok")
	}

	// A second round trip is a fixed point.
	out2, err := l2.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out, out2) {
		t.Errorf("Marshal(Parse(Marshal(l))) differs from Marshal(l):\n%s\n---- vs ----\n%s", out, out2)
	}
}

// Unknown fields may use YAML aliases to anchors on known fields; known
// fields are re-encoded without anchors, so Marshal must not emit a
// dangling alias.
func TestRoundTripAliases(t *testing.T) {
	t.Parallel()
	doc := "---\n" +
		"id: &id lrn-alias-1a2b3c\n" +
		"title: &t Aliases in frontmatter\n" +
		"confidence: high\n" +
		"created: 2026-11-22T11:05:00Z\n" +
		"source: &src {harness: codex, trigger: stop}\n" +
		"same_as: *id\n" +
		"origin: *src\n" +
		"pair: [*t, *id]\n" +
		"defaults: &d {color: blue, size: 3}\n" +
		"widget:\n  <<: *d\n  size: 4\n" +
		"---\nbody\n"
	l, err := Parse([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	l.Title = "Changed"
	out, err := l.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	l2, err := Parse(out)
	if err != nil {
		t.Fatalf("Parse(Marshal()) of a document using aliases: %v\n%s", err, out)
	}
	if l2.Title != "Changed" || l2.Source == nil || l2.Source.Harness != "codex" {
		t.Errorf("known fields: %+v", l2)
	}
	checks := []struct {
		key  string
		want any
	}{
		{"same_as", "lrn-alias-1a2b3c"},
		{"origin", map[string]any{"harness": "codex", "trigger": "stop"}},
		{"pair", []any{"Aliases in frontmatter", "lrn-alias-1a2b3c"}},
		{"widget", map[string]any{"color": "blue", "size": 4}},
	}
	for _, c := range checks {
		var got any
		if ok, err := l2.Extra(c.key, &got); !ok || err != nil {
			t.Errorf("Extra(%s) = %v, %v", c.key, ok, err)
			continue
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s = %#v, want %#v", c.key, got, c.want)
		}
	}
}

func TestMarshalFreshLearningParsesBackEqual(t *testing.T) {
	t.Parallel()
	now := time.Now()
	tests := []*Learning{
		{
			ID:         NewID("Use ripgrep, not grep", "rg is faster"),
			Title:      "Use ripgrep, not grep",
			Confidence: "medium",
			Created:    now,
		},
		{
			ID:           "lrn-everything-000000",
			Title:        "Don't: quote # this? [or] {that}: yes",
			Type:         "mini",
			Confidence:   "low",
			Category:     "tooling",
			Tags:         []string{"yes", "no", "null", "123", "a b"},
			Symptoms:     []string{"exit code 1", "- dash", "'quotes'"},
			KeyInsight:   "line one\nline two: with colon\n  indented",
			Scope:        "global",
			Project:      "reflect",
			Created:      time.Date(2026, 11, 22, 11, 5, 0, 123456789, time.FixedZone("", 3600)),
			Updated:      time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC),
			Source:       &Source{Harness: "claude", SessionID: "8f14e45f-…", Trigger: "precompact-auto"},
			Cites:        []Cite{{Path: "callback/cookie.go", SHA256: "9f2c"}, {Path: "a b/c:d.go"}},
			SupersededBy: "lrn-newer-111111",
			Body:         "\n## Problem\n---\nnot frontmatter\n---\n\n```go\nx := 1\n```\n\ttab\r\nno final newline",
		},
		{
			ID:         "yes",
			Title:      "true",
			Confidence: "high",
			Created:    time.Date(1, 1, 1, 0, 0, 1, 0, time.UTC),
			Body:       "---\n",
		},
	}
	for _, l := range tests {
		t.Run(l.ID, func(t *testing.T) {
			if err := l.Validate(); err != nil {
				t.Fatalf("fixture is invalid: %v", err)
			}
			out, err := l.Marshal()
			if err != nil {
				t.Fatal(err)
			}
			got, err := Parse(out)
			if err != nil {
				t.Fatalf("Parse(Marshal()): %v\n%s", err, out)
			}
			assertLearningEqual(t, got, l, l.Created, l.Updated)
		})
	}
}

// assertLearningEqual compares the exported fields of got and want, times
// with Equal (a parsed time has another *Location than the one written).
func assertLearningEqual(t *testing.T, got, want *Learning, created, updated time.Time) {
	t.Helper()
	if !got.Created.Equal(created) {
		t.Errorf("Created = %v, want %v", got.Created, created)
	}
	if !got.Updated.Equal(updated) {
		t.Errorf("Updated = %v, want %v", got.Updated, updated)
	}
	g, w := *got, *want
	g.Created, g.Updated, w.Created, w.Updated = time.Time{}, time.Time{}, time.Time{}, time.Time{}
	g.extra, w.extra = nil, nil
	if !reflect.DeepEqual(g, w) {
		t.Errorf("learning differs:\n got %+v\nwant %+v", g, w)
	}
}

func TestValidateFreshLearning(t *testing.T) {
	t.Parallel()
	l := &Learning{ID: "lrn-x", Title: "t", Confidence: "high", Created: time.Now()}
	if err := l.Validate(); err != nil {
		t.Fatalf("minimal learning: %v", err)
	}
	l.Type, l.Scope, l.Confidence = "mini", "project", "medium"
	if err := l.Validate(); err != nil {
		t.Fatalf("mini learning: %v", err)
	}
	var de *DocError
	if err := (&Learning{}).Validate(); !errors.As(err, &de) || !strings.Contains(de.Reason, "missing id; missing title; missing confidence") {
		t.Errorf("empty learning: %v", err)
	}
}

func TestDocErrorMessage(t *testing.T) {
	t.Parallel()
	if got := (&DocError{Path: "/kb/x.md", Reason: "missing title"}).Error(); got != "/kb/x.md: missing title" {
		t.Errorf("Error() = %q", got)
	}
	if got := (&DocError{Reason: "missing title"}).Error(); got != "missing title" {
		t.Errorf("Error() = %q", got)
	}
}

func TestPlainBody(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		body     string
		want     []string
		dontWant []string
	}{
		{
			name: "template headings dropped, text and code kept",
			body: "## Problem\nThe state cookie was dropped.\n\n## Solution\nSet `SameSite=Lax` in **cookie.go**:\n\n" +
				"```go\nhttp.SetCookie(w, &http.Cookie{SameSite: http.SameSiteLaxMode})\n```\n\n## Context\nAuth service behind the IdP.\n",
			want: []string{"The state cookie was dropped.", "SameSite=Lax", "cookie.go",
				"http.SetCookie(w, &http.Cookie{SameSite: http.SameSiteLaxMode})", "Auth service behind the IdP."},
			dontWant: []string{"Problem", "Solution", "Context", "##", "```", "**", "`"},
		},
		{
			name:     "headings in any case and level",
			body:     "# problem\nA\n### SOLUTION ###\nB\n\nContext\n-------\nC\n",
			want:     []string{"A", "B", "C"},
			dontWant: []string{"problem", "SOLUTION", "Context", "#"},
		},
		{
			name: "other headings kept",
			body: "## Root cause\nIt was DNS.\n## Problem statement\nx\n",
			want: []string{"Root cause", "It was DNS.", "Problem statement"},
		},
		{
			name: "template words in text kept",
			body: "## Problem\nThe problem is the context of the solution.\n",
			want: []string{"The problem is the context of the solution."},
		},
		{
			name:     "indented code, lists, links",
			body:     "Run:\n\n    go test ./...\n\n- first item\n- [the docs](https://example.com/docs)\n- <https://example.com/auto>\n",
			want:     []string{"go test ./...", "first item", "the docs", "https://example.com/auto"},
			dontWant: []string{"](", "https://example.com/docs"},
		},
		{
			name: "body opening with a thematic break",
			body: "---\nEverything after a leading rule still counts.\n",
			want: []string{"Everything after a leading rule still counts."},
		},
		{
			name: "body opening with two rule lines",
			body: "---\nBetween the rules.\n---\n\nAfter them.\n",
			want: []string{"Between the rules.", "After them."},
		},
		{name: "empty", body: "", want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := (&Learning{Body: tt.body}).PlainBody()
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("PlainBody lacks %q:\n%s", w, got)
				}
			}
			for _, w := range tt.dontWant {
				if strings.Contains(got, w) {
					t.Errorf("PlainBody keeps %q:\n%s", w, got)
				}
			}
			if got != strings.TrimSpace(got) {
				t.Errorf("PlainBody not trimmed: %q", got)
			}
			if tt.body == "" && got != "" {
				t.Errorf("PlainBody of an empty body = %q", got)
			}
		})
	}
}

// Words of adjacent blocks must not run together, or the index sees
// "droppedSet" instead of two words.
func TestPlainBodySeparatesBlocks(t *testing.T) {
	t.Parallel()
	got := (&Learning{Body: "## Problem\nfirst paragraph\n\nsecond paragraph\n## Solution\nthird\nline\n"}).PlainBody()
	want := "first paragraph\nsecond paragraph\nthird\nline"
	if got != want {
		t.Errorf("PlainBody = %q, want %q", got, want)
	}
}

// status: pending parses, holds the learning out of injection before any
// other reason, and round-trips; any other status is refused with a reason.
func TestStatusPending(t *testing.T) {
	l, err := Parse([]byte(docWith("status: pending\nsuperseded_by: other\n")))
	if err != nil {
		t.Fatal(err)
	}
	if !l.Pending() || l.Held() != StatusPending {
		t.Errorf("Pending() = %v, Held() = %q, want a pending learning held as pending", l.Pending(), l.Held())
	}
	data, err := l.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "\nstatus: pending\n") {
		t.Errorf("Marshal lost the status:\n%s", data)
	}
	l.Status = ""
	if l.Pending() || l.Held() != "superseded" {
		t.Errorf("after approval Held() = %q, want superseded", l.Held())
	}
	_, err = Parse([]byte(docWith("status: active\n")))
	if err == nil || !strings.Contains(err.Error(), `status "active" is not pending`) {
		t.Errorf("status: active: %v, want a refusal naming the field", err)
	}
}

// updates names the learning a draft would rewrite: it round-trips as a
// known field, and is validated like supersedes (an id, not its own).
func TestUpdatesField(t *testing.T) {
	l, err := Parse([]byte(docWith("status: pending\nupdates: lrn-target-aaaaaa\n")))
	if err != nil {
		t.Fatal(err)
	}
	if l.Updates != "lrn-target-aaaaaa" {
		t.Errorf("Updates = %q, want lrn-target-aaaaaa", l.Updates)
	}
	data, err := l.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(string(data), "updates: lrn-target-aaaaaa") != 1 {
		t.Errorf("Marshal did not keep updates once:\n%s", data)
	}
	for extra, want := range map[string]string{
		"updates: ../etc/passwd\n":   `updates "../etc/passwd" is not a learning id`,
		"updates: lrn-test-1a2b3c\n": "cannot update itself",
	} {
		if _, err := Parse([]byte(docWith(extra))); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", extra, err, want)
		}
	}
}
