package jsonobj

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestKeepsKeyOrderAndRawValues(t *testing.T) {
	t.Parallel()
	in := []byte(`{"z": 1, "a": {"y": [1, 2], "b": null}, "m": "x&y", "z": 3}`)
	o, err := ParseDocument(in)
	if err != nil {
		t.Fatal(err)
	}
	// A repeated key keeps its first position and its last value.
	if got := o.Keys(); !reflect.DeepEqual(got, []string{"z", "a", "m"}) {
		t.Fatalf("keys = %v", got)
	}
	if v, _ := o.Get("z"); string(v) != "3" {
		t.Errorf("z = %s", v)
	}
	if err := o.Set("new", Marshal("a && b > c")); err != nil {
		t.Fatal(err)
	}
	o.Del("a")
	if err := o.Set("z", json.RawMessage(`4`)); err != nil {
		t.Fatal(err)
	}
	got, err := o.Render()
	if err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"z\": 4,\n  \"m\": \"x&y\",\n  \"new\": \"a && b > c\"\n}\n"
	if string(got) != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	if o.Set("bad", json.RawMessage(`{`)) == nil {
		t.Error("Set accepted invalid JSON")
	}
}

func TestObjectAndArray(t *testing.T) {
	t.Parallel()
	o, err := ParseDocument([]byte(`{"o": {"k": 1}, "n": null, "a": [1, {"x": 2}], "s": "str"}`))
	if err != nil {
		t.Fatal(err)
	}
	if sub, err := o.Object("o"); err != nil || sub.Len() != 1 {
		t.Errorf("Object(o) = %v, %v", sub, err)
	}
	for _, k := range []string{"n", "missing"} {
		if sub, err := o.Object(k); err != nil || sub.Len() != 0 {
			t.Errorf("Object(%s) = %v, %v", k, sub, err)
		}
		if list, err := o.Array(k); err != nil || list != nil {
			t.Errorf("Array(%s) = %v, %v", k, list, err)
		}
	}
	if _, err := o.Object("s"); err == nil || !strings.Contains(err.Error(), `"s" must be a JSON object`) {
		t.Errorf("Object(s) err = %v", err)
	}
	list, err := o.Array("a")
	if err != nil || len(list) != 2 || string(MarshalArray(list)) != `[1,{"x": 2}]` {
		t.Errorf("Array(a) = %s, %v", MarshalArray(list), err)
	}
	if _, err := o.Array("o"); !errors.Is(err, ErrNotArray) {
		t.Errorf("Array(o) err = %v", err)
	}
}

func TestParseDocumentErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"{\n  \"a\": 1,\n  \"b\": }\n", "line 3, column 8"},
		{"[1, 2]", "the top level must be a JSON object"},
		{"\"s\"", "the top level must be a JSON object"},
	} {
		if _, err := ParseDocument([]byte(tc.in)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseDocument(%q) err = %v, want %q", tc.in, err, tc.want)
		}
	}
	for _, empty := range []string{"", "  \n"} {
		if o, err := ParseDocument([]byte(empty)); err != nil || o.Len() != 0 {
			t.Errorf("ParseDocument(%q) = %v, %v", empty, o, err)
		}
	}
}

func TestEqual(t *testing.T) {
	t.Parallel()
	if !Equal([]byte(`{"a":1,"b":[2]}`), []byte(`{ "b": [2], "a": 1 }`)) {
		t.Error("same value in another layout is not Equal")
	}
	if Equal([]byte(`{"a":1}`), []byte(`{"a":2}`)) || Equal([]byte(`{`), []byte(`{`)) {
		t.Error("different or invalid values are Equal")
	}
	if !IsNull(json.RawMessage(" null ")) || IsNull(json.RawMessage(`"null"`)) {
		t.Error("IsNull")
	}
}

// FuzzRenderRoundTrip: whatever parses must render to JSON that means the
// same thing, and rendering is a fixed point (so edits never churn).
func FuzzRenderRoundTrip(f *testing.F) {
	f.Add([]byte(`{"a":{"b":[1,2,{"c":null}]},"a":2}`))
	f.Add([]byte(`{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"x && y"}]}]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		root, err := ParseDocument(data)
		if err != nil {
			return
		}
		out, err := root.Render()
		if err != nil {
			t.Fatal(err)
		}
		var x, y any
		if len(bytes.TrimSpace(data)) > 0 {
			if err := json.Unmarshal(data, &x); err != nil {
				t.Fatal(err)
			}
		} else {
			x = map[string]any{}
		}
		if err := json.Unmarshal(out, &y); err != nil {
			t.Fatalf("rendered invalid JSON: %v\n%s", err, out)
		}
		if !reflect.DeepEqual(x, y) {
			t.Fatalf("round trip changed meaning:\n%s\n->\n%s", data, out)
		}
		root2, err := ParseDocument(out)
		if err != nil {
			t.Fatal(err)
		}
		out2, _ := root2.Render()
		if !bytes.Equal(out, out2) {
			t.Fatalf("render is not a fixed point:\n%s\n->\n%s", out, out2)
		}
	})
}
