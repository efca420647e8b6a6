package transcript

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
	json "github.com/go-json-experiment/json/v1"
)

// The condenser reads only a few fields of each record, as raw JSON to be
// decoded when needed. decodeRaw does what json.Unmarshal does with such
// records, on the tokens of the v1 decoder without its reflection per
// value, and hands out values that share the input's memory instead of
// copies. Its answers are json.Unmarshal's (TestDecodeRawIsUnmarshal):
// whether the record is valid, which member of a duplicated name wins,
// names matched case-insensitively, invalid UTF-8 let through.

// errRawType is decodeRaw's error for a value of the wrong kind.
var errRawType = errors.New("transcript: JSON value of an unexpected kind")

// errTrailing is withDecoder's error for data after the value.
var errTrailing = errors.New("transcript: data after the JSON value")

// decoderOptions are json.Unmarshal's (v1) options of the token decoder.
var decoderOptions = []jsontext.Options{jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)}

// pooledDecoder is a decoder and the buffer it reads.
type pooledDecoder struct {
	dec jsontext.Decoder
	in  bytes.Buffer
}

var decoders = sync.Pool{New: func() any { return new(pooledDecoder) }}

// withDecoder runs fn on a decoder reading data whole, and reports an
// error when data holds more than one value.
func withDecoder(data []byte, fn func(*jsontext.Decoder) error) error {
	d := decoders.Get().(*pooledDecoder)
	defer decoders.Put(d)
	// A bytes.Buffer is read in place: the values read share data.
	d.in = *bytes.NewBuffer(data)
	d.dec.Reset(&d.in, decoderOptions...)
	err := fn(&d.dec)
	if err == nil {
		if _, end := d.dec.ReadToken(); end != io.EOF {
			err = errTrailing
		}
	}
	d.in = bytes.Buffer{} // holds no line past the call
	return err
}

// rawKind is how a field of a record struct is decoded.
type rawKind int

const (
	rawValue   rawKind = iota // json.RawMessage
	rawValues                 // []json.RawMessage
	rawStruct                 // a record struct
	rawStructs                // a slice of record structs
)

type rawField struct {
	name   string
	index  int
	kind   rawKind
	nested *rawSchema // of rawStruct and rawStructs fields
	// replace (tag raw:"replace") makes a record struct field hold only
	// the last member of its name, as a json.RawMessage decoded later
	// would, where json.Unmarshal merges every member into it; null
	// empties it.
	replace bool
}

// rawSchema is the fields of a record struct: its fields are
// json.RawMessage, []json.RawMessage, record structs or slices of them,
// each with a json tag naming it.
type rawSchema struct {
	fields []rawField
	byName map[string]int
	// byLower is byName by the names in lower case.
	byLower map[string]int
}

var (
	rawMessageType = reflect.TypeFor[json.RawMessage]()
	rawSliceType   = reflect.TypeFor[[]json.RawMessage]()
	schemas        sync.Map // reflect.Type → *rawSchema
)

func schemaOf(t reflect.Type) *rawSchema {
	if s, ok := schemas.Load(t); ok {
		return s.(*rawSchema)
	}
	s := &rawSchema{byName: map[string]int{}, byLower: map[string]int{}}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		rf := rawField{name: name, index: i, replace: f.Tag.Get("raw") == "replace"}
		switch {
		case f.Type == rawMessageType:
			rf.kind = rawValue
		case f.Type == rawSliceType:
			rf.kind = rawValues
		case f.Type.Kind() == reflect.Struct:
			rf.kind, rf.nested = rawStruct, schemaOf(f.Type)
		case f.Type.Kind() == reflect.Slice && f.Type.Elem().Kind() == reflect.Struct:
			rf.kind, rf.nested = rawStructs, schemaOf(f.Type.Elem())
		default:
			panic("transcript: decodeRaw cannot decode field " + t.String() + "." + f.Name)
		}
		s.byName[name] = len(s.fields)
		s.byLower[strings.ToLower(name)] = len(s.fields)
		s.fields = append(s.fields, rf)
	}
	schemas.Store(t, s)
	return s
}

// field finds the field a member name sets: the one of that name, else
// one whose name matches it but for case (as json.Unmarshal does).
func (s *rawSchema) field(name []byte) *rawField {
	if i, ok := s.byName[string(name)]; ok {
		return &s.fields[i]
	}
	// An ASCII name matches but for case the field of its lower case;
	// others may fold to ASCII letters (K, the Kelvin sign, is k).
	var buf [64]byte
	if len(name) <= len(buf) && isASCII(name) {
		low := buf[:len(name)]
		for i, c := range name {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			low[i] = c
		}
		if i, ok := s.byLower[string(low)]; ok {
			return &s.fields[i]
		}
		return nil
	}
	for i := range s.fields {
		if strings.EqualFold(string(name), s.fields[i].name) {
			return &s.fields[i]
		}
	}
	return nil
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// decodeRaw is json.Unmarshal(data, v) for v a pointer to a record struct
// (see rawSchema), except that the raw values set share data's memory.
func decodeRaw(data []byte, v any) error {
	rv := reflect.ValueOf(v).Elem()
	s := schemaOf(rv.Type())
	return withDecoder(data, func(dec *jsontext.Decoder) error { return decodeStruct(dec, rv, s) })
}

// decodeStruct decodes the next value into rv. A value of the wrong kind
// is read whole and then reported, as json.Unmarshal reads on and reports
// it at the end; null leaves rv as it was.
func decodeStruct(dec *jsontext.Decoder, rv reflect.Value, s *rawSchema) error {
	switch dec.PeekKind() {
	case 'n':
		_, err := dec.ReadToken()
		return err
	case '{':
	default:
		return skipWrongKind(dec)
	}
	if _, err := dec.ReadToken(); err != nil {
		return err
	}
	var wrong error
	for dec.PeekKind() != '}' {
		name, err := readName(dec)
		if err != nil {
			return err
		}
		f := s.field(name)
		if f == nil {
			if err := dec.SkipValue(); err != nil {
				return err
			}
			continue
		}
		err = decodeField(dec, rv.Field(f.index), f)
		switch {
		case errors.Is(err, errRawType):
			wrong = err
		case err != nil:
			return err
		}
	}
	if _, err := dec.ReadToken(); err != nil {
		return err
	}
	return wrong
}

func decodeField(dec *jsontext.Decoder, fv reflect.Value, f *rawField) error {
	switch f.kind {
	case rawValue:
		v, err := dec.ReadValue()
		if err != nil {
			return err
		}
		fv.SetBytes([]byte(v))
		return nil
	case rawStruct:
		if f.replace {
			fv.SetZero()
		}
		return decodeStruct(dec, fv, f.nested)
	}
	// A slice: null empties it, an array replaces it.
	switch dec.PeekKind() {
	case 'n':
		fv.SetZero()
		_, err := dec.ReadToken()
		return err
	case '[':
	default:
		return skipWrongKind(dec)
	}
	if _, err := dec.ReadToken(); err != nil {
		return err
	}
	// As json.Unmarshal: the array's elements are decoded into the
	// slice's, and one of a duplicated name merges into the elements
	// the first left.
	fv.SetLen(0)
	var wrong error
	for i := 0; dec.PeekKind() != ']'; i++ {
		fv.Grow(1)
		fv.SetLen(i + 1)
		ev := fv.Index(i)
		var err error
		if f.kind == rawValues {
			var v jsontext.Value
			if v, err = dec.ReadValue(); err == nil {
				ev.SetBytes([]byte(v))
			}
		} else {
			err = decodeStruct(dec, ev, f.nested)
		}
		switch {
		case errors.Is(err, errRawType):
			wrong = err
		case err != nil:
			return err
		}
	}
	if fv.IsNil() {
		fv.Set(reflect.MakeSlice(fv.Type(), 0, 0))
	}
	if _, err := dec.ReadToken(); err != nil {
		return err
	}
	return wrong
}

// skipWrongKind reads past a value of an unexpected kind: errRawType when
// it is valid JSON.
func skipWrongKind(dec *jsontext.Decoder) error {
	if err := dec.SkipValue(); err != nil {
		return err
	}
	return errRawType
}

// readName reads an object member's name, unquoted.
func readName(dec *jsontext.Decoder) ([]byte, error) {
	v, err := dec.ReadValue()
	if err != nil {
		return nil, err
	}
	if s, ok := plainString(v); ok {
		return s, nil
	}
	var name string
	if err := json.Unmarshal(v, &name); err != nil {
		return nil, err
	}
	return []byte(name), nil
}

// plainString returns the contents of a JSON string that needs no
// decoding: no escapes, no control characters, valid UTF-8.
func plainString(raw []byte) ([]byte, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return nil, false
	}
	in := raw[1 : len(raw)-1]
	for _, c := range in {
		if c < 0x20 || c == '"' || c == '\\' {
			return nil, false
		}
	}
	if !utf8.Valid(in) {
		return nil, false
	}
	return in, true
}

// decodeArray returns the elements of a JSON array, sharing data.
func decodeArray(data []byte) ([]json.RawMessage, error) {
	out := []json.RawMessage{}
	err := withDecoder(data, func(dec *jsontext.Decoder) error {
		if dec.PeekKind() != '[' {
			return skipWrongKind(dec)
		}
		if _, err := dec.ReadToken(); err != nil {
			return err
		}
		for dec.PeekKind() != ']' {
			v, err := dec.ReadValue()
			if err != nil {
				return err
			}
			out = append(out, json.RawMessage(v))
		}
		_, err := dec.ReadToken()
		return err
	})
	return out, err
}

// decodeObject returns the members of a JSON object by name (the last of
// a duplicated name), sharing data.
func decodeObject(data []byte) (map[string]json.RawMessage, error) {
	out := map[string]json.RawMessage{}
	err := withDecoder(data, func(dec *jsontext.Decoder) error {
		if dec.PeekKind() != '{' {
			return skipWrongKind(dec)
		}
		if _, err := dec.ReadToken(); err != nil {
			return err
		}
		for dec.PeekKind() != '}' {
			name, err := readName(dec)
			if err != nil {
				return err
			}
			v, err := dec.ReadValue()
			if err != nil {
				return err
			}
			out[string(name)] = json.RawMessage(v)
		}
		_, err := dec.ReadToken()
		return err
	})
	return out, err
}
