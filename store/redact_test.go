package store

import (
	"strings"
	"testing"
	"time"
)

const fakeHF = "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" // fake, letters only like real ones

func TestRedactDerivesIDFromRedactedText(t *testing.T) {
	t.Parallel()
	l := &Learning{Title: "Token " + fakeHF + " leaked", KeyInsight: "rotate " + fakeHF, Confidence: "high"}
	l.FillDefaults(time.Now())
	rs := l.Redact()
	if strings.Contains(l.ID, "hf_") || l.ID != NewID(l.Title, l.KeyInsight) {
		t.Errorf("id %q is not derived from the redacted title %q", l.ID, l.Title)
	}
	if len(rs) != 2 || rs[0].Field != "title" || rs[1].Field != "key_insight" || rs[0].Kinds[0] != "huggingface-token" {
		t.Errorf("report %+v", rs)
	}
	if again := l.Redact(); len(again) != 0 {
		t.Errorf("a second pass found %+v", again)
	}
}

func TestRedactReplacesAChosenIDHoldingASecret(t *testing.T) {
	t.Parallel()
	l := &Learning{ID: "lrn-" + fakeHF, Title: "Hub login", Confidence: "high"}
	rs := l.Redact()
	if l.ID != NewID("Hub login", "") || len(rs) != 1 || rs[0].Field != "id" {
		t.Errorf("id %q, report %+v", l.ID, rs)
	}
	kept := &Learning{ID: "lrn-linker-fpic", Title: "Token " + fakeHF}
	kept.Redact()
	if kept.ID != "lrn-linker-fpic" {
		t.Errorf("a chosen id without a secret changed to %q", kept.ID)
	}
}

func TestRedactEveryField(t *testing.T) {
	t.Parallel()
	doc := "---\nid: lrn-x\ntitle: x\nconfidence: high\ncreated: 2026-01-02T03:04:05Z\ntags: [a, " + fakeHF + "]\n" +
		"symptoms: [\"password: hunter2x on staging\"]\nquestions: [\"why does " + fakeHF + " fail?\"]\ncategory: c\nproject: p\n" +
		"source: {harness: claude, session_id: " + fakeHF + "}\ncites: [{path: " + fakeHF + ".go}]\n" +
		"deploy:\n  fly_token: FAKEflyTOKEN0123456789abcdef\n  notes: [" + fakeHF + "]\n---\nbody " + fakeHF + "\n"
	l, err := Parse([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	rs := l.Redact()
	out, err := l.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{fakeHF, "hunter2x", "FAKEflyTOKEN"} {
		if strings.Contains(string(out), secret) {
			t.Errorf("%s survived:\n%s", secret, out)
		}
	}
	fields := map[string]bool{}
	for _, r := range rs {
		fields[r.Field] = true
	}
	for _, f := range []string{"tags", "symptoms", "questions", "source", "cites", "deploy", "body"} {
		if !fields[f] {
			t.Errorf("no report for %s: %+v", f, rs)
		}
	}
}

func TestSidecarRedact(t *testing.T) {
	t.Parallel()
	sc := &Sidecar{DocumentID: "lrn-x", Entities: []Entity{{Name: fakeHF, Type: "config", Description: "token " + fakeHF}},
		Relationships: []Relationship{{Source: fakeHF, Target: "hub", Type: "uses", Description: fakeHF}}}
	sc.Redact()
	if strings.Contains(sc.Entities[0].Name+sc.Entities[0].Description+sc.Relationships[0].Source+sc.Relationships[0].Description, "hf_") {
		t.Errorf("sidecar kept the token: %+v", sc)
	}
}

// An imported rule's source names a file; a secret in that name (a path
// the user chose) must not reach the document.
func TestRedactSourceFile(t *testing.T) {
	t.Parallel()
	l := &Learning{ID: "lrn-x", Title: "x", Confidence: "high", Type: "rule", Created: time.Unix(0, 0),
		Source: &Source{File: "notes/" + fakeHF + "/AGENTS.md", Line: 3}}
	rs := l.Redact()
	if strings.Contains(l.Source.File, fakeHF) || len(rs) == 0 {
		t.Errorf("source.file kept the token: %q (%+v)", l.Source.File, rs)
	}
}
