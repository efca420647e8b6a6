package store

import (
	"bytes"
	"errors"
	"testing"
)

// FuzzParse feeds arbitrary bytes to Parse. Whatever the input, Parse must
// not panic, must fail only with a *DocError, and whatever it accepts must
// be valid and survive Marshal -> Parse unchanged.
func FuzzParse(f *testing.F) {
	for _, name := range []string{"valid.md", "design-example.md", "extras.md", "crlf.md"} {
		f.Add(readTestdata(f, name))
	}
	for _, seed := range []string{
		docWith(""),
		docWith("", "title"),
		docWith("tags: [oauth, cookies\n"),
		docWith("confidence: certain\n", "confidence"),
		docWith("same: &a {x: 1}\nother: *a\n<<: *a\n"),
		"---\nid: &i lrn-x\ntitle: t\nconfidence: low\ncreated: 2026-01-01T00:00:00Z\nfoo: *i\n---\nbody",
		"---\n- a\n---\n",
		"---\n---\n",
		"----\nid: lrn-x\n---\n",
		"---\r\nid: lrn-x\r\n---\r\r\n",
		"# just markdown\n",
		"\x00\xff\xfe",
		"",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := Parse(data)
		if err != nil {
			var de *DocError
			if !errors.As(err, &de) {
				t.Fatalf("error %T %v is not a *DocError", err, err)
			}
			if l != nil {
				t.Fatal("Parse returned a learning and an error")
			}
			return
		}
		if err := l.Validate(); err != nil {
			t.Fatalf("Parse accepted an invalid learning: %v", err)
		}
		out, err := l.Marshal()
		if err != nil {
			t.Fatalf("Marshal of a parsed learning: %v", err)
		}
		l2, err := Parse(out)
		if err != nil {
			t.Fatalf("Parse(Marshal()): %v\ninput:\n%q\nmarshalled:\n%q", err, data, out)
		}
		if l2.ID != l.ID || l2.Title != l.Title || l2.Confidence != l.Confidence || l2.Body != l.Body {
			t.Fatalf("round trip changed the learning:\n%+v\n%+v\nmarshalled:\n%q", l, l2, out)
		}
		if !l2.Created.Equal(l.Created) || !l2.Updated.Equal(l.Updated) {
			t.Fatalf("round trip changed the times: %v/%v -> %v/%v", l.Created, l.Updated, l2.Created, l2.Updated)
		}
		// After one rewrite the document is stable: rewriting it again
		// must not keep changing it (fields drifting, comments moving).
		out2, err := l2.Marshal()
		if err != nil {
			t.Fatalf("second Marshal: %v", err)
		}
		if !bytes.Equal(out, out2) {
			t.Fatalf("Marshal is not stable:\n%q\n%q", out, out2)
		}
		_ = l.PlainBody()
		_ = ExtractEntities(l)
	})
}
