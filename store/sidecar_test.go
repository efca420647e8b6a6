package store

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestParseSidecarDesignExample(t *testing.T) {
	t.Parallel()
	sc, err := ParseSidecar(readTestdata(t, "design-example.entities.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	want := &Sidecar{
		DocumentID: "lrn-oauth-state-cookie-samesite-1a2b3c",
		Entities: []Entity{
			{Name: "SameSite", Type: "concept", Description: "cookie attribute"},
			{Name: "callback/cookie.go", Type: "file", Description: "sets the state cookie"},
		},
		Relationships: []Relationship{
			{Source: "SameSite", Target: "callback/cookie.go", Type: "configured_in", Description: "", Strength: 7},
		},
	}
	if !reflect.DeepEqual(sc, want) {
		t.Errorf("ParseSidecar =\n%+v\nwant\n%+v", sc, want)
	}
}

func TestSidecarValidate(t *testing.T) {
	t.Parallel()
	const head = "document_id: lrn-x\nentities:\n  - {name: a, type: file}\n  - {name: b, type: concept}\n"
	tests := []struct {
		name string
		data string
		want []string
	}{
		{"unknown entity type", "document_id: lrn-x\nentities: [{name: a, type: gadget}]\n",
			[]string{`entity "a" has type "gadget"`, "technology, library"}},
		{"empty entity type", "document_id: lrn-x\nentities: [{name: a}]\n", []string{`entity "a" has type ""`}},
		{"entity without name", "document_id: lrn-x\nentities: [{name: ' ', type: file}]\n", []string{"entity 1 has no name"}},
		{"relationship to unknown target", head + "relationships: [{source: a, target: c, type: uses, strength: 1}]\n",
			[]string{"relationship a -> c names an entity the sidecar does not list"}},
		{"relationship from unknown source", head + "relationships: [{source: z, target: a, type: uses, strength: 1}]\n",
			[]string{"relationship z -> a names an entity"}},
		{"unknown relationship type", head + "relationships: [{source: a, target: b, type: loves, strength: 1}]\n",
			[]string{`has type "loves"`, "caused_by"}},
		{"strength above 10", head + "relationships: [{source: a, target: b, type: uses, strength: 11}]\n",
			[]string{"strength 11; use 0 to 10"}},
		{"negative strength", head + "relationships: [{source: a, target: b, type: uses, strength: -0.5}]\n",
			[]string{"strength -0.5; use 0 to 10"}},
		{"NaN strength", head + "relationships: [{source: a, target: b, type: uses, strength: .nan}]\n",
			[]string{"strength NaN; use 0 to 10"}},
		{"infinite strength", head + "relationships: [{source: a, target: b, type: uses, strength: .inf}]\n",
			[]string{"strength +Inf; use 0 to 10"}},
		{"missing document_id", "entities: []\n", []string{"missing document_id"}},
		{"document_id with a path", "document_id: ../../x\n", []string{`document_id "../../x" may only hold`}},
		{"not YAML", "document_id: [\n", []string{"sidecar is not valid YAML"}},
		{"wrong shape", "document_id: lrn-x\nentities: {a: b}\n", []string{"sidecar is not valid YAML"}},
		{"too large", "document_id: lrn-x\n#" + strings.Repeat("x", MaxDocumentSize), []string{"more than 1048576"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sc, err := ParseSidecar([]byte(tt.data))
			if err == nil {
				t.Fatalf("ParseSidecar succeeded: %+v", sc)
			}
			var de *DocError
			if !errors.As(err, &de) {
				t.Fatalf("error %T %v is not a *DocError", err, err)
			}
			for _, w := range tt.want {
				if !strings.Contains(de.Reason, w) {
					t.Errorf("reason %q does not contain %q", de.Reason, w)
				}
			}
		})
	}
}

func TestSidecarValidBoundaries(t *testing.T) {
	t.Parallel()
	sc := &Sidecar{
		DocumentID: "lrn-x",
		Entities:   []Entity{{Name: "a", Type: "file"}, {Name: "b", Type: "error"}},
		Relationships: []Relationship{
			{Source: "a", Target: "b", Type: "caused_by", Strength: 0},
			{Source: "b", Target: "a", Type: "solves", Strength: 10},
			{Source: "a", Target: "a", Type: "relates_to", Strength: 5.5},
		},
	}
	if err := sc.Validate(); err != nil {
		t.Errorf("strengths 0, 10 and 5.5 are valid: %v", err)
	}
	for _, typ := range EntityTypes {
		if err := (&Sidecar{DocumentID: "lrn-x", Entities: []Entity{{Name: "n", Type: typ}}}).Validate(); err != nil {
			t.Errorf("entity type %s: %v", typ, err)
		}
	}
	if err := (&Sidecar{DocumentID: "lrn-x"}).Validate(); err != nil {
		t.Errorf("a sidecar without entities is valid: %v", err)
	}
}

func TestSidecarMarshalRoundTrip(t *testing.T) {
	t.Parallel()
	tests := []*Sidecar{
		{
			DocumentID: "lrn-oauth-state-cookie-samesite-1a2b3c",
			Entities: []Entity{
				{Name: "SameSite", Type: "concept", Description: "cookie attribute"},
				{Name: "callback/cookie.go", Type: "file", Description: "sets the state cookie: {really}, # not a comment"},
				{Name: "ECONNREFUSED", Type: "error", Extracted: "heuristic"},
				{Name: "yes", Type: "config", Description: "multi\nline"},
			},
			Relationships: []Relationship{
				{Source: "SameSite", Target: "callback/cookie.go", Type: "configured_in", Description: "", Strength: 7},
				{Source: "ECONNREFUSED", Target: "yes", Type: "caused_by", Description: "why: because", Strength: 2.5},
			},
		},
		{DocumentID: "lrn-empty", Entities: []Entity{}, Relationships: []Relationship{}},
	}
	for _, sc := range tests {
		t.Run(sc.DocumentID, func(t *testing.T) {
			out, err := sc.Marshal()
			if err != nil {
				t.Fatal(err)
			}
			got, err := ParseSidecar(out)
			if err != nil {
				t.Fatalf("ParseSidecar(Marshal()): %v\n%s", err, out)
			}
			if !reflect.DeepEqual(got, sc) {
				t.Errorf("round trip:\n got %+v\nwant %+v\n%s", got, sc, out)
			}
			// One line per entity and relationship, as in ARCHITECTURE §3.
			items := bytes.Count(out, []byte("\n  - {"))
			if want := len(sc.Entities) + len(sc.Relationships); items != want {
				t.Errorf("%d flow-style items, want %d:\n%s", items, want, out)
			}
		})
	}

	// The ARCHITECTURE §3 example comes out as it was written.
	design := readTestdata(t, "design-example.entities.yaml")
	sc, err := ParseSidecar(design)
	if err != nil {
		t.Fatal(err)
	}
	out, err := sc.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out, design) {
		t.Errorf("Marshal of the ARCHITECTURE §3 example:\n%s\nwant\n%s", out, design)
	}
}
