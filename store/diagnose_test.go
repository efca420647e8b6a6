package store

import (
	"errors"
	"strings"
	"testing"
)

// TestParseDiagnostics checks that frontmatter errors name the file's line
// of the mistake (not of the mapping around it) and say how to fix it.
func TestParseDiagnostics(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, doc string
		want      []string
	}{
		{"unclosed list on line 5",
			"---\nid: lrn-a\ntitle: A\nconfidence: high\ntags: [a, b\ncreated: 2026-01-01T00:00:00Z\n---\nbody\n",
			[]string{"line 5: did not find expected ',' or ']': \"tags: [a, b\"", "must close with ']'"}},
		{"bad indentation of a list item on line 7",
			"---\nid: lrn-a\ntitle: A\ntags:\n  - a\n  - b\n - c\nconfidence: high\n---\nbody\n",
			[]string{"line 7: did not find expected key: \"- c\"", "indented alike"}},
		{"indented field on line 6",
			"---\nid: lrn-a\ntitle: A\nconfidence: high\ncreated: 2026-01-01T00:00:00Z\n  tags: x\n---\nbody\n",
			[]string{"line 6: mapping values are not allowed", "the line is indented"}},
		{"unquoted colon on line 3",
			"---\nid: lrn-a\ntitle: Fix: the thing\nconfidence: high\n---\nbody\n",
			[]string{"line 3: mapping values are not allowed", `must be quoted, e.g. title: "..."`}},
		{"a multi-line list that closes is fine; the later mistake is blamed",
			"---\nid: lrn-a\ntitle: A\ntags: [a,\n  b]\nconfidence: high\ntitle2: x: y\n---\nbody\n",
			[]string{"line 7: mapping values are not allowed", "title2: \"...\""}},
		{"unclosed quote",
			"---\nid: lrn-a\ntitle: \"A\nconfidence: high\n---\nbody\n",
			[]string{"line 3:", "must end with the same quote"}},
		{"closing delimiter missing",
			"---\nid: lrn-a\ntitle: A\nconfidence: high\n\nbody without closing\n",
			[]string{"closing '---' missing"}},
		{"tags as a mapping",
			"---\nid: lrn-a\ntitle: A\nconfidence: high\ntags: {a: 1}\n---\nbody\n",
			[]string{"wrong type: line 5: tags is a set of fields; it must be a list such as [oauth, cookies]"}},
		{"title as a list",
			"---\nid: lrn-a\ntitle: [x, y]\nconfidence: high\n---\nbody\n",
			[]string{"line 3: title is a list; it must be one line of text"}},
		{"source as text",
			"---\nid: lrn-a\ntitle: A\nconfidence: high\nsource: hello\n---\nbody\n",
			[]string{"line 5: source is text; it must be fields harness, session_id and trigger"}},
	} {
		_, err := Parse([]byte(tc.doc))
		var de *DocError
		if !errors.As(err, &de) {
			t.Errorf("%s: err = %v, want a *DocError", tc.name, err)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(de.Reason, w) {
				t.Errorf("%s: reason %q lacks %q", tc.name, de.Reason, w)
			}
		}
	}
}
