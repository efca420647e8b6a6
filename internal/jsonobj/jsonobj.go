// Package jsonobj edits JSON documents without reshuffling them: an Object
// remembers its key order and keeps untouched values as raw bytes, so a
// user's settings file comes back as it was apart from the keys changed.
package jsonobj

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
)

// Object is a JSON object that remembers its key order. encoding/json maps
// sort keys on output, which would reshuffle a user's settings file on every
// edit; here untouched values are kept as raw bytes and keys are written
// back in the order they were read, new keys last.
type Object struct {
	keys []string
	vals map[string]json.RawMessage
}

// New returns an empty object.
func New() *Object { return &Object{vals: map[string]json.RawMessage{}} }

// Parse reads a JSON object from data, which must already be valid JSON. A
// repeated key keeps its first position and its last value, which is what
// the agents' own parsers do.
func Parse(data []byte) (*Object, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("not a JSON object")
	}
	o := New()
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, err
		}
		if _, seen := o.vals[key]; !seen {
			o.keys = append(o.keys, key)
		}
		o.vals[key] = raw
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	return o, nil
}

// ParseDocument validates data and returns its top-level object. Empty (or
// all-whitespace) data is an empty object: that is what a missing file
// means, and an empty file is no different to the agents. A syntax error
// names its line and column.
func ParseDocument(data []byte) (*Object, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return New(), nil
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			line, col := position(data, se.Offset)
			return nil, fmt.Errorf("invalid JSON at line %d, column %d: %v", line, col, se)
		}
		return nil, fmt.Errorf("invalid JSON: %v", err)
	}
	if _, ok := v.(map[string]any); !ok {
		return nil, errors.New("the top level must be a JSON object")
	}
	return Parse(data)
}

// position turns a byte offset from encoding/json into a 1-based line and
// column. The offset points just past the offending byte.
func position(data []byte, off int64) (line, col int) {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	if off > 0 {
		off--
	}
	before := data[:off]
	line = bytes.Count(before, []byte("\n")) + 1
	col = int(off) - (bytes.LastIndexByte(before, '\n') + 1) + 1
	return line, col
}

// Keys returns the keys in order, as a copy the caller may keep while
// editing the object.
func (o *Object) Keys() []string { return append([]string(nil), o.keys...) }

// Len is the number of keys.
func (o *Object) Len() int { return len(o.keys) }

// Get returns key's raw value.
func (o *Object) Get(key string) (json.RawMessage, bool) {
	v, ok := o.vals[key]
	return v, ok
}

// Set replaces key's value in place, or appends key when it is new.
func (o *Object) Set(key string, v json.RawMessage) error {
	if !json.Valid(v) {
		return fmt.Errorf("internal error: invalid JSON for %q", key)
	}
	if _, ok := o.vals[key]; !ok {
		o.keys = append(o.keys, key)
	}
	o.vals[key] = v
	return nil
}

// SetObject sets key to v, as Set does.
func (o *Object) SetObject(key string, v *Object) error {
	raw, err := v.MarshalJSON()
	if err != nil {
		return err
	}
	return o.Set(key, raw)
}

// Del removes key; the other keys keep their order.
func (o *Object) Del(key string) {
	if _, ok := o.vals[key]; !ok {
		return
	}
	delete(o.vals, key)
	for i, k := range o.keys {
		if k == key {
			o.keys = append(o.keys[:i], o.keys[i+1:]...)
			break
		}
	}
}

// Object returns key's value as an object; a missing or null key is an empty
// object, anything else that is not an object is an error.
func (o *Object) Object(key string) (*Object, error) {
	raw, ok := o.Get(key)
	if !ok || IsNull(raw) {
		return New(), nil
	}
	obj, err := Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("%q must be a JSON object", key)
	}
	return obj, nil
}

// ErrNotArray is returned by Array for a value that is not a JSON array.
var ErrNotArray = errors.New("not a JSON array")

// Array returns key's value as a list of raw elements; missing or null is
// empty, anything else that is not an array is ErrNotArray.
func (o *Object) Array(key string) ([]json.RawMessage, error) {
	raw, ok := o.Get(key)
	if !ok || IsNull(raw) {
		return nil, nil
	}
	var list []json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, ErrNotArray
	}
	return list, nil
}

// MarshalJSON writes the object compactly, keys in order.
func (o *Object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(Marshal(k))
		b.WriteByte(':')
		if err := json.Compact(&b, o.vals[k]); err != nil {
			return nil, err
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// Render writes the object the way Claude Code writes settings.json
// (two-space indent, trailing newline), so a file Claude wrote keeps its
// formatting and a rendered file renders to itself.
func (o *Object) Render() ([]byte, error) {
	compact, err := o.MarshalJSON()
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := json.Indent(&b, compact, "", "  "); err != nil {
		return nil, err
	}
	b.WriteByte('\n')
	return b.Bytes(), nil
}

// MarshalArray joins raw elements into a JSON array.
func MarshalArray(list []json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('[')
	for i, e := range list {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(e)
	}
	b.WriteByte(']')
	return b.Bytes()
}

// Marshal encodes values the caller builds itself (strings, structs of
// strings and numbers), which cannot fail; it panics if one does. HTML
// escaping is off so a command with `&&` or `>` stays readable in the file.
func Marshal(v any) json.RawMessage {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err)
	}
	return bytes.TrimRight(b.Bytes(), "\n")
}

// IsNull reports whether raw is JSON null.
func IsNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }

// Equal reports whether a and b are valid JSON meaning the same value,
// whatever their layout and key order.
func Equal(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}
