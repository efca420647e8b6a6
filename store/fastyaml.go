package store

import (
	"errors"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// The frontmatter of a learning and its sidecar have a fixed schema, and
// almost every value in them is a single line of ordinary text: for those
// the bytes the YAML encoder writes can be written directly, without its
// reflection, event stream and the round trip through a yaml.Node that
// Marshal needs for the unknown keys. marshalFast and the sidecar's
// counterpart write exactly what marshalYAML writes (TestFastYAML*,
// FuzzFastYAML) and decline (ok false) anything they are not sure of:
// unknown keys, several lines, control characters, text YAML would read
// as another type; the encoder writes those.

// marshalFast renders l as Marshal does, when it can.
func (l *Learning) marshalFast() ([]byte, bool) {
	if len(l.extra) > 0 || !fastFeedback(l.Feedback) {
		return nil, false
	}
	w := fastWriter{b: make([]byte, 0, 512+len(l.Body)+len(l.KeyInsight)+len(l.Title)), ok: true}
	w.raw("---\n")
	w.field("id", l.ID, false)
	w.field("title", l.Title, false)
	w.field("type", l.Type, true)
	w.field("confidence", l.Confidence, false)
	w.field("category", l.Category, true)
	w.list("tags", l.Tags)
	w.list("symptoms", l.Symptoms)
	w.list("questions", l.Questions)
	w.field("key_insight", l.KeyInsight, true)
	w.field("scope", l.Scope, true)
	w.field("project", l.Project, true)
	w.time("created", l.Created)
	if !l.Updated.IsZero() {
		w.time("updated", l.Updated)
	}
	if l.Source != nil {
		w.source(l.Source)
	}
	w.cites(l.Cites)
	w.field("superseded_by", l.SupersededBy, true)
	w.field("supersedes", l.Supersedes, true)
	w.feedback(l.Feedback)
	if l.Private {
		w.raw("private: true\n")
	}
	if l.NeedsReview {
		w.raw("needs_review: true\n")
	}
	w.field("status", l.Status, true)
	w.field("updates", l.Updates, true)
	if !w.ok {
		return nil, false
	}
	w.raw("---\n")
	w.raw(l.Body)
	return w.b, true
}

// fastFeedback says whether marshalFast writes f: counts only (a
// reason or a review time is left to the encoder).
func fastFeedback(f *Feedback) bool {
	return f == nil || f.Stale == "" && f.Reviewed.IsZero()
}

// marshalFast renders sc as Marshal does, when it can (entities only).
func (sc *Sidecar) marshalFast() ([]byte, bool) {
	if len(sc.Relationships) > 0 {
		return nil, false
	}
	w := fastWriter{b: make([]byte, 0, 64+64*len(sc.Entities)), ok: true}
	w.field("document_id", sc.DocumentID, false)
	if len(sc.Entities) == 0 {
		w.raw("entities: []\n")
	} else {
		w.raw("entities:\n")
		for _, e := range sc.Entities {
			w.raw("  - {name: ")
			w.scalar(e.Name, true)
			w.raw(", type: ")
			w.scalar(e.Type, true)
			w.flowField("description", e.Description)
			w.flowField("extracted", e.Extracted)
			w.raw("}\n")
		}
	}
	w.raw("relationships: []\n")
	if !w.ok {
		return nil, false
	}
	return w.b, true
}

// fastWriter appends YAML to b; ok turns false at the first value it
// cannot write as the encoder would.
type fastWriter struct {
	b  []byte
	ok bool
}

func (w *fastWriter) raw(s string) { w.b = append(w.b, s...) }

// field writes a top-level "key: value" line; omitEmpty leaves an empty
// value out.
func (w *fastWriter) field(key, v string, omitEmpty bool) {
	if omitEmpty && v == "" {
		return
	}
	w.raw(key)
	w.raw(": ")
	w.scalar(v, false)
	w.raw("\n")
}

// flowField writes ", key: value" inside a flow mapping, nothing for an
// empty value.
func (w *fastWriter) flowField(key, v string) {
	if v == "" {
		return
	}
	w.raw(", ")
	w.raw(key)
	w.raw(": ")
	w.scalar(v, true)
}

func (w *fastWriter) flowInt(first bool, key string, n int) bool {
	if n == 0 {
		return first
	}
	if !first {
		w.raw(", ")
	}
	w.raw(key)
	w.raw(": ")
	w.b = strconv.AppendInt(w.b, int64(n), 10)
	return false
}

func (w *fastWriter) list(key string, vs []string) {
	if len(vs) == 0 {
		return
	}
	w.raw(key)
	w.raw(": [")
	for i, v := range vs {
		if i > 0 {
			w.raw(", ")
		}
		w.scalar(v, true)
	}
	w.raw("]\n")
}

func (w *fastWriter) time(key string, t time.Time) {
	w.raw(key)
	w.raw(": ")
	// As the encoder writes a time: RFC 3339 with what fraction there is,
	// plain (no spaces, and a colon followed by a digit is no indicator
	// outside a flow collection).
	w.b = t.AppendFormat(w.b, time.RFC3339Nano)
	w.raw("\n")
}

func (w *fastWriter) source(s *Source) {
	w.raw("source: {")
	first := true
	for _, f := range [...]struct{ k, v string }{{"harness", s.Harness}, {"session_id", s.SessionID}, {"trigger", s.Trigger}, {"file", s.File}} {
		if f.v == "" {
			continue
		}
		if !first {
			w.raw(", ")
		}
		first = false
		w.raw(f.k)
		w.raw(": ")
		w.scalar(f.v, true)
	}
	w.flowInt(first, "line", s.Line)
	w.raw("}\n")
}

func (w *fastWriter) cites(cs []Cite) {
	if len(cs) == 0 {
		return
	}
	w.raw("cites: [")
	for i, c := range cs {
		if i > 0 {
			w.raw(", ")
		}
		w.raw("{path: ")
		w.scalar(c.Path, true)
		w.flowField("sha256", c.SHA256)
		w.raw("}")
	}
	w.raw("]\n")
}

func (w *fastWriter) feedback(f *Feedback) {
	if f.IsZero() {
		return
	}
	w.raw("feedback: {")
	first := true
	first = w.flowInt(first, "helpful", f.Helpful)
	first = w.flowInt(first, "wrong", f.Wrong)
	first = w.flowInt(first, "outdated", f.Outdated)
	first = w.flowInt(first, "never", f.Never)
	first = w.flowInt(first, "confirmed", f.Confirmed)
	w.flowInt(first, "refuted", f.Refuted)
	w.raw("}\n")
}

// scalar writes s as the encoder writes a string: plain when YAML allows
// it there (flow: inside a flow collection, where commas and brackets
// are indicators too), else single-quoted; "" double-quoted. Text it is
// not sure of turns ok false.
func (w *fastWriter) scalar(s string, flow bool) {
	if s == "" {
		w.raw(`""`)
		return
	}
	plain, ok := plainAllowed(s, flow)
	if !ok {
		w.ok = false
		return
	}
	if plain {
		w.raw(s)
		return
	}
	w.raw("'")
	w.raw(strings.ReplaceAll(s, "'", "''"))
	w.raw("'")
}

// plainAllowed reports whether the encoder writes the non-empty s plain
// (else single-quoted), with ok false for text marshalFast leaves to the
// encoder: a character the encoder escapes or reads as a line break (so
// it double-quotes it, or writes a block), or a first character from
// which YAML could resolve a number, a boolean, null or a merge key (the
// encoder double-quotes those).
func plainAllowed(s string, flow bool) (plain, ok bool) {
	if resolvesOtherwise[s] || strings.IndexByte("+-.0123456789", s[0]) >= 0 && mayBeNumber(s) {
		return false, false
	}
	indicator := s[0] == ' ' || s[len(s)-1] == ' ' // plain can't keep them
	switch s[0] {
	case '#', ',', '[', ']', '{', '}', '&', '*', '!', '|', '>', '\'', '"', '%', '@', '`':
		indicator = true
	case '?', ':':
		indicator = indicator || flow || len(s) == 1 || s[1] == ' '
	case '-':
		indicator = indicator || len(s) == 1 || s[1] == ' '
	}
	if strings.HasPrefix(s, "---") || strings.HasPrefix(s, "...") {
		indicator = true // a document marker
	}
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == 0x7f {
				return false, false
			}
			followedBySpace := i+1 == len(s) || s[i+1] == ' '
			switch {
			case i == 0:
			case c == ',' || c == '?' || c == '[' || c == ']' || c == '{' || c == '}':
				indicator = indicator || flow
			case c == ':':
				indicator = indicator || flow || followedBySpace
			case c == '#':
				indicator = indicator || s[i-1] == ' '
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if !printableRune(r, n) {
			return false, false
		}
		i += n
	}
	return !indicator, true
}

// resolvesOtherwise are the words YAML reads as a boolean, null, an
// infinity, not-a-number or a merge key, which the encoder double-quotes;
// the YAML 1.1 booleans among them too.
var resolvesOtherwise = map[string]bool{
	"true": true, "True": true, "TRUE": true, "false": true, "False": true, "FALSE": true,
	"~": true, "null": true, "Null": true, "NULL": true, "<<": true,
	"y": true, "Y": true, "yes": true, "Yes": true, "YES": true, "on": true, "On": true, "ON": true,
	"n": true, "N": true, "no": true, "No": true, "NO": true, "off": true, "Off": true, "OFF": true,
	".nan": true, ".NaN": true, ".NAN": true, ".inf": true, ".Inf": true, ".INF": true,
	"+.inf": true, "+.Inf": true, "+.INF": true, "-.inf": true, "-.Inf": true, "-.INF": true,
}

// mayBeNumber reports whether s, starting with a digit, a sign or a dot,
// might be read by YAML as a number or a time (or a YAML 1.1 base 60
// float, which the encoder quotes too): what any of the parsers YAML
// tries accepts, or may accept, whatever the range. Hashes and ids that
// merely start with a digit ("9f2c…", "8f14e45f-…") are none.
func mayBeNumber(s string) bool {
	if strings.IndexByte(s, ':') >= 0 || strings.Contains(s, "0b") || strings.Contains(s, "0o") {
		return true
	}
	if len(s) > 4 && s[4] == '-' && strings.IndexFunc(s[:4], func(r rune) bool { return r < '0' || r > '9' }) < 0 {
		return true // a date, perhaps with a time
	}
	for _, v := range []string{s, strings.ReplaceAll(s, "_", "")} {
		if parses(strconv.ParseInt(v, 0, 64)) || parses(strconv.ParseUint(v, 0, 64)) || parses(strconv.ParseFloat(v, 64)) {
			return true
		}
	}
	return false
}

// parses reports a parse that succeeded or failed only on range.
func parses[T any](_ T, err error) bool {
	return err == nil || errors.Is(err, strconv.ErrRange)
}

// printableRune reports a non-ASCII rune the encoder writes as it is,
// inside a line: printable in YAML's sense, and not a line or paragraph
// separator. Runes above U+FFFF it escapes.
func printableRune(r rune, n int) bool {
	switch {
	case r == utf8.RuneError && n == 1:
		return false
	case r == 0x2028 || r == 0x2029 || r == 0xFEFF:
		return false
	}
	return r >= 0xA0 && r <= 0xD7FF || r >= 0xE000 && r <= 0xFFFD
}
