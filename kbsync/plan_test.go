package kbsync

import (
	"errors"
	"fmt"
	"io/fs"
	"reflect"
	"testing"
)

func doc(extra string) []byte {
	return []byte("---\nid: lrn-x-abcdef\ntitle: X\nconfidence: high\ncreated: 2026-11-01T10:00:00Z\n" + extra + "---\nbody\n")
}

func TestPlan(t *testing.T) {
	t.Parallel()
	files := map[string][]byte{
		"documents/lrn-shared-000001.md":            doc(""),
		"documents/lrn-shared-000001.entities.yaml": []byte("document_id: lrn-shared-000001\n"),
		"documents/lrn-mine-000002.md":              doc("scope: personal\n"),
		"documents/lrn-mine-000002.entities.yaml":   []byte("document_id: lrn-mine-000002\n"),
		"documents/lrn-private-000003.md":           doc("private: true\n"),
		"documents/lrn-leak-000004.md":              append(doc(""), []byte("line\nexport AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE\n")...),
		"documents/lrn-broken-000005.md":            []byte("no frontmatter"),
		"documents/lrn-was-shared-000006.md":        doc("scope: personal\n"),
		"documents/notes.txt":                       []byte("x"),
		"README.md":                                 []byte("x"),
		".gitignore":                                []byte("index/\n"),
		"documents/lrn-redacted-000007.md":          append(doc(""), []byte("key [REDACTED:aws-access-key]\n")...),
	}
	read := func(p string) ([]byte, error) {
		if d, ok := files[p]; ok {
			return d, nil
		}
		return nil, fs.ErrNotExist
	}
	changes := []Change{
		{Path: ".gitignore"},
		{Path: "README.md"},
		{Path: "documents/lrn-broken-000005.md"},
		{Path: "documents/lrn-gone-000008.md", Tracked: true, Deleted: true},
		{Path: "documents/lrn-leak-000004.md"},
		{Path: "documents/lrn-mine-000002.entities.yaml"},
		{Path: "documents/lrn-mine-000002.md"},
		{Path: "documents/lrn-private-000003.md"},
		{Path: "documents/lrn-redacted-000007.md"},
		{Path: "documents/lrn-shared-000001.entities.yaml"},
		{Path: "documents/lrn-shared-000001.md"},
		{Path: "documents/lrn-was-shared-000006.md", Tracked: true},
		{Path: "documents/notes.txt"},
	}
	got := map[string]Step{}
	for _, s := range Plan(changes, read) {
		s.Detail = ""
		got[s.Path] = s
	}
	want := map[string]Step{
		".gitignore":                                {Path: ".gitignore", Action: Stage},
		"documents/lrn-broken-000005.md":            {Path: "documents/lrn-broken-000005.md", Action: Hold, Reason: ReasonMalformed},
		"documents/lrn-gone-000008.md":              {Path: "documents/lrn-gone-000008.md", Action: Stage},
		"documents/lrn-leak-000004.md":              {Path: "documents/lrn-leak-000004.md", Action: Hold, Reason: ReasonSecret, Line: 9, Kind: "aws-access-key"},
		"documents/lrn-mine-000002.entities.yaml":   {Path: "documents/lrn-mine-000002.entities.yaml", Action: Hold, Reason: ReasonPersonal},
		"documents/lrn-mine-000002.md":              {Path: "documents/lrn-mine-000002.md", Action: Hold, Reason: ReasonPersonal},
		"documents/lrn-private-000003.md":           {Path: "documents/lrn-private-000003.md", Action: Hold, Reason: ReasonPersonal},
		"documents/lrn-redacted-000007.md":          {Path: "documents/lrn-redacted-000007.md", Action: Stage},
		"documents/lrn-shared-000001.entities.yaml": {Path: "documents/lrn-shared-000001.entities.yaml", Action: Stage},
		"documents/lrn-shared-000001.md":            {Path: "documents/lrn-shared-000001.md", Action: Stage},
		"documents/lrn-was-shared-000006.md":        {Path: "documents/lrn-was-shared-000006.md", Action: Untrack, Reason: ReasonPersonal},
	}
	if !reflect.DeepEqual(got, want) {
		for p, w := range want {
			if got[p] != w {
				t.Errorf("%s: got %+v, want %+v", p, got[p], w)
			}
		}
		for p := range got {
			if _, ok := want[p]; !ok {
				t.Errorf("%s planned, want it left alone", p)
			}
		}
	}
}

func TestPlanUnreadableFileIsHeld(t *testing.T) {
	t.Parallel()
	steps := Plan([]Change{{Path: "documents/lrn-a-000001.md"}}, func(string) ([]byte, error) { return nil, errors.New("permission denied") })
	if len(steps) != 1 || steps[0].Action != Hold {
		t.Fatalf("steps = %+v", steps)
	}
}

func TestFindSecretLine(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		text string
		line int
		ok   bool
	}{
		{"clean\ntext\n", 0, false},
		{"AKIAIOSFODNN7EXAMPLE at start\n", 1, true},
		{"a\nb\nkey: [REDACTED:aws-access-key]\nc AKIAIOSFODNN7EXAMPLE\n", 4, true},
	} {
		line, _, ok := FindSecret([]byte(tc.text))
		if line != tc.line || ok != tc.ok {
			t.Errorf("%q: line %d ok %v, want %d %v", tc.text, line, ok, tc.line, tc.ok)
		}
	}
}

// YAML keys are case sensitive, so "Private: true" is an unknown field to
// the store; whoever wrote it meant the learning to stay here (issue 27).
func TestPlanPrivateSpellings(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		field string
		local bool
	}{
		{"private: true\n", true},
		{"private: True\n", true},
		{"private: TRUE\n", true},
		{"private: yes\n", true},
		{"private: on\n", true},
		{"Private: true\n", true},
		{"PRIVATE: true\n", true},
		{"Private: yes\n", true},
		{"Private: \"true\"\n", true},
		{"Private: [x]\n", true},
		{"\"private \": true\n", true},
		{"Scope: personal\n", true},
		{"SCOPE: Personal\n", true},
		{"scope: personal\n", true},
		{"Private: false\n", false},
		{"Private: no\n", false},
		{"private: false\n", false},
		{"Scope: project\n", false},
		{"privateer: true\n", false},
		{"", false},
	} {
		p := "documents/lrn-x-abcdef.md"
		sidecar := "documents/lrn-x-abcdef.entities.yaml"
		files := map[string][]byte{p: doc(tc.field), sidecar: []byte("document_id: lrn-x-abcdef\n")}
		steps := Plan([]Change{{Path: sidecar}, {Path: p}}, func(p string) ([]byte, error) { return files[p], nil })
		for _, s := range steps {
			if got := s.Action == Hold && s.Reason == ReasonPersonal; got != tc.local {
				t.Errorf("%q: %s planned %+v, want held as personal: %v", tc.field, s.Path, s, tc.local)
			}
		}
	}
}

// BenchmarkPlan1000 plans the first commit of 1,000 learnings (the parse,
// the private/scope check and the redactor over each file).
func BenchmarkPlan1000(b *testing.B) {
	files := map[string][]byte{}
	var changes []Change
	for i := range 1000 {
		p := fmt.Sprintf("documents/lrn-bench-%06d.md", i)
		files[p] = fmt.Appendf(nil, "---\nid: lrn-bench-%06d\ntitle: Bench lesson %d\nconfidence: medium\ntags: [bench, t%d]\nkey_insight: Insight number %d about component c%d.\ncreated: 2026-11-01T10:00:00Z\nupdated: 2026-11-01T10:00:00Z\n---\n## Problem\n\nProblem %d with service s%d failed.\n\n## Solution\n\nRestart worker w%d with flag --f%d.\n", i, i, i%50, i, i%97, i, i%31, i%13, i%7)
		changes = append(changes, Change{Path: p})
	}
	for b.Loop() {
		Plan(changes, func(p string) ([]byte, error) { return files[p], nil })
	}
}
