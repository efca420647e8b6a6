package store

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"
)

// oddStrings are values that need quoting, escaping or another style in
// YAML, or none, at the first character, inside or at the end.
var oddStrings = []string{
	"plain words", "Rule 1.1: call handler1_1 through the client of module1, never directly; retry 1 times.",
	"a:b", "a: b", "a :b", "x:", "a,b", "a, b", "[x]", "x]", "{x}", "a{b", "a?b", "a #b", "a#b", "#a", "a #",
	"'quoted'", "it's", `"double"`, `a "b" c`, `back\slash`, "`code`", "a `b` c",
	"- x", "-x", "-", "--", "---", "---x", "...", "..x", ".x", "? x", "?x", "?", ": x", ":x", ":",
	"%x", "@x", "!x", "&x", "*x", "|x", ">x", ",x", "]x", "}x",
	" lead", "trail ", " both ", "two  spaces", "  ",
	"1", "1.5", "-1", "+1", ".5", "0x1F", "1e3", "1_000", "2026-01-01", "2026-01-01T10:00:00Z", "1:30", "0o17", "0b101", ".inf", "-.inf", ".nan", "12abc", "1 2",
	"true", "True", "TRUE", "false", "null", "Null", "~", "~x", "<<", "<x>", "<", "y", "Y", "yes", "no", "No", "on", "Off", "OFF", "n", "Nope", "True story", "onward", "tru", "nulls",
	"é", "naïve café", "em — dash", "中文说明", "\u00a0nbsp", "nb\u00a0sp", "line\u2028sep", "para\u2029sep", "\ufeffbom", "x\ufeff", "private\ue000use", "repl\ufffd", "emoji 😀", "\u0085next",
	"tab\there", "\ttab", "nul\x00", "del\x7f", "bell\a", "cr\rhere", "two\nlines", "trailing\n", "\n", "esc\x1b",
	"bad\xffutf8", "\xc3", "",
	strings.Repeat("long words without end ", 12),
}

// sameAsEncoder checks that Marshal, whichever path it takes, writes what
// the YAML encoder writes, and reports whether the fast path took it.
func sameAsEncoder(t testing.TB, l *Learning) bool {
	t.Helper()
	want, werr := l.marshalYAML()
	fast, ok := l.marshalFast()
	if ok && (werr != nil || !bytes.Equal(fast, want)) {
		t.Fatalf("marshalFast writes\n%s\nthe encoder (%v)\n%s", fast, werr, want)
	}
	got, err := l.Marshal()
	if !bytes.Equal(got, want) || (err == nil) != (werr == nil) {
		t.Fatalf("Marshal writes\n%s (%v)\nthe encoder\n%s (%v)", got, err, want, werr)
	}
	return ok
}

func sidecarSameAsEncoder(t testing.TB, sc *Sidecar) bool {
	t.Helper()
	want, werr := sc.marshalYAML()
	fast, ok := sc.marshalFast()
	if ok && (werr != nil || !bytes.Equal(fast, want)) {
		t.Fatalf("sidecar marshalFast writes\n%s\nthe encoder (%v)\n%s", fast, werr, want)
	}
	got, err := sc.Marshal()
	if !bytes.Equal(got, want) || (err == nil) != (werr == nil) {
		t.Fatalf("sidecar Marshal writes\n%s (%v)\nthe encoder\n%s (%v)", got, err, want, werr)
	}
	return ok
}

func fullLearning() *Learning {
	created := time.Date(2026, 11, 22, 11, 5, 0, 0, time.UTC)
	return &Learning{
		ID: "lrn-x-1a2b3c", Title: "OAuth state cookie", Type: "learning", Confidence: "high",
		Category: "debugging", Tags: []string{"oauth", "cookies"}, Symptoms: []string{"state mismatch"},
		KeyInsight: "A SameSite=Strict cookie is dropped.", Scope: "project", Project: "auth-service",
		Created: created, Updated: created.Add(time.Hour),
		Source:       &Source{Harness: "claude", SessionID: "8f14e45f", Trigger: "stop", File: "AGENTS.md", Line: 12},
		Cites:        []Cite{{Path: "callback/cookie.go", SHA256: "9f2c"}, {Path: "main.go"}},
		SupersededBy: "lrn-new", Supersedes: "lrn-old", Feedback: &Feedback{Helpful: 2, Wrong: 1, Confirmed: 3},
		Private: true, NeedsReview: true, Status: StatusPending, Updates: "lrn-target",
		Body: "## Problem\n\nbody text: with `code`\n",
	}
}

// Every odd string in every string field of a learning, and in every
// flow collection, is written as the encoder writes it.
func TestFastYAMLWritesWhatTheEncoderWrites(t *testing.T) {
	setters := map[string]func(*Learning, string){
		"title": func(l *Learning, s string) { l.Title = s }, "key_insight": func(l *Learning, s string) { l.KeyInsight = s },
		"category": func(l *Learning, s string) { l.Category = s }, "project": func(l *Learning, s string) { l.Project = s },
		"id": func(l *Learning, s string) { l.ID = s }, "status": func(l *Learning, s string) { l.Status = s },
		"tag": func(l *Learning, s string) { l.Tags = []string{"a", s, "b"} }, "symptom": func(l *Learning, s string) { l.Symptoms = []string{s} },
		"question":    func(l *Learning, s string) { l.Questions = []string{"why?", s} },
		"source.file": func(l *Learning, s string) { l.Source.File = s }, "source.session": func(l *Learning, s string) { l.Source.SessionID = s },
		"cite.path": func(l *Learning, s string) { l.Cites[0].Path = s }, "cite.sha": func(l *Learning, s string) { l.Cites[1].SHA256 = s },
		"body": func(l *Learning, s string) { l.Body = s },
	}
	fast := 0
	for _, set := range setters {
		for _, s := range oddStrings {
			l := fullLearning()
			set(l, s)
			if sameAsEncoder(t, l) {
				fast++
			}
		}
	}
	if total := len(setters) * len(oddStrings); fast < total/2 {
		t.Errorf("the fast path took %d of %d learnings; want most", fast, total)
	}
}

// The shapes the optional fields take: absent, empty, partly set.
func TestFastYAMLOptionalFields(t *testing.T) {
	cases := map[string]func(*Learning){
		"minimal": func(l *Learning) {
			*l = Learning{ID: l.ID, Title: l.Title, Confidence: "low", Created: l.Created}
		},
		"empty source":       func(l *Learning) { l.Source = &Source{} },
		"line only":          func(l *Learning) { l.Source = &Source{Line: 7} },
		"file only":          func(l *Learning) { l.Source = &Source{File: "CLAUDE.md"} },
		"negative line":      func(l *Learning) { l.Source.Line = -3 },
		"zero feedback":      func(l *Learning) { l.Feedback = &Feedback{} },
		"one count":          func(l *Learning) { l.Feedback = &Feedback{Refuted: 4} },
		"every count":        func(l *Learning) { l.Feedback = &Feedback{1, 2, 3, 4, 5, 6, "", time.Time{}} },
		"stale feedback":     func(l *Learning) { l.Feedback = &Feedback{Stale: "gone: a.go"} },
		"reviewed feedback":  func(l *Learning) { l.Feedback = &Feedback{Reviewed: l.Created} },
		"cite without sha":   func(l *Learning) { l.Cites = []Cite{{Path: "a.go"}} },
		"empty lists":        func(l *Learning) { l.Tags, l.Symptoms, l.Cites = []string{}, []string{}, []Cite{} },
		"no updated":         func(l *Learning) { l.Updated = time.Time{} },
		"zero created":       func(l *Learning) { l.Created = time.Time{} },
		"nanoseconds":        func(l *Learning) { l.Created = l.Created.Add(123456789) },
		"another zone":       func(l *Learning) { l.Updated = l.Updated.In(time.FixedZone("x", 5*3600+1800)) },
		"empty title":        func(l *Learning) { l.Title = "" },
		"empty confidence":   func(l *Learning) { l.Confidence = "" },
		"flags off":          func(l *Learning) { l.Private, l.NeedsReview = false, false },
		"no body":            func(l *Learning) { l.Body = "" },
		"body without break": func(l *Learning) { l.Body = "x" },
	}
	for name, change := range cases {
		t.Run(name, func(t *testing.T) {
			l := fullLearning()
			change(l)
			sameAsEncoder(t, l)
		})
	}
}

// Unknown keys read from a file are kept, by the encoder.
func TestFastYAMLLeavesUnknownKeysToTheEncoder(t *testing.T) {
	l, err := Parse([]byte("---\nid: lrn-x\ntitle: t\nconfidence: low\ncreated: 2026-01-01T00:00:00Z\nmine: {a: 1}\n---\nbody\n"))
	if err != nil {
		t.Fatal(err)
	}
	if sameAsEncoder(t, l) {
		t.Error("the fast path wrote a learning with unknown keys")
	}
	if out, _ := l.Marshal(); !strings.Contains(string(out), "mine: {a: 1}") {
		t.Errorf("the unknown key is lost:\n%s", out)
	}
}

// An imported rule, as import writes it, takes the fast path.
func TestFastYAMLTakesImportedRules(t *testing.T) {
	for i := range 50 {
		title := fmt.Sprintf("Rule %d.%d: call handler%d through the client of module%d, never directly; retry %d times.", i/8, i%8, i, i%7, i%5)
		l := &Learning{ID: NewID(title, title), Title: title, KeyInsight: title, Type: "rule", Confidence: "high",
			Scope: "project", Project: "shop", Created: time.Date(2026, 11, 28, 13, 0, 0, 0, time.UTC),
			Source: &Source{File: "AGENTS.md", Line: i + 3}, Body: title + "\n", Tags: []string{"imported", "agents-md"}}
		l.Updated = l.Created
		if !sameAsEncoder(t, l) {
			t.Fatalf("rule %d left to the encoder", i)
		}
		sc := &Sidecar{DocumentID: l.ID, Entities: ExtractEntities(l)}
		if !sidecarSameAsEncoder(t, sc) {
			t.Fatalf("sidecar of rule %d left to the encoder", i)
		}
	}
}

func TestFastYAMLSidecars(t *testing.T) {
	sidecarSameAsEncoder(t, &Sidecar{DocumentID: "lrn-x"})
	sidecarSameAsEncoder(t, &Sidecar{DocumentID: "lrn-x", Entities: []Entity{}, Relationships: []Relationship{}})
	if sidecarSameAsEncoder(t, &Sidecar{DocumentID: "lrn-x", Entities: []Entity{{Name: "a", Type: "tool"}, {Name: "b", Type: "file"}},
		Relationships: []Relationship{{Source: "a", Target: "b", Type: "uses", Strength: 7.5}}}) {
		t.Error("the fast path wrote relationships")
	}
	for _, s := range oddStrings {
		for _, e := range []Entity{
			{Name: s, Type: "tool"}, {Name: "n", Type: s}, {Name: "n", Type: "file", Description: s},
			{Name: "n", Type: "error", Extracted: s}, {Name: s, Type: "concept", Description: s, Extracted: "heuristic"},
		} {
			sidecarSameAsEncoder(t, &Sidecar{DocumentID: "lrn-x", Entities: []Entity{{Name: "first", Type: "tool"}, e}})
		}
		sidecarSameAsEncoder(t, &Sidecar{DocumentID: s})
	}
}

// FuzzFastYAML: whatever the text, Marshal writes what the encoder writes.
func FuzzFastYAML(f *testing.F) {
	for i, s := range oddStrings {
		f.Add(s, oddStrings[(i+7)%len(oddStrings)], oddStrings[(i+13)%len(oddStrings)], i-3)
	}
	f.Fuzz(func(t *testing.T, a, b, c string, n int) {
		l := fullLearning()
		l.Title, l.KeyInsight, l.Tags, l.Symptoms = a, b, []string{c, a}, []string{b}
		l.Source.File, l.Source.Line, l.Cites[0].Path, l.Cites[1].SHA256 = c, n, b, a
		l.Project, l.Category, l.Feedback.Never = c, a, n
		sameAsEncoder(t, l)
		sidecarSameAsEncoder(t, &Sidecar{DocumentID: c, Entities: []Entity{{Name: a, Type: b, Description: c}, {Name: c, Type: "tool", Extracted: b}}})
	})
}
