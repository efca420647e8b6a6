package redact

import (
	"sort"
	"strings"
)

// privatePlaceholder replaces each <private> block.
const privatePlaceholder = "[private]"

const (
	openTag  = "<private>"
	closeTag = "</private>"
)

// placeholder is the text that replaces a secret of the given kind.
func placeholder(kind string) string { return "[REDACTED:" + kind + "]" }

// String returns s with every secret replaced by a placeholder naming its
// kind (e.g. "[REDACTED:aws-access-key]") and every <private> block replaced
// by "[private]". Text around a secret is kept. String is idempotent.
func String(s string) string { return redactString(s, nil) }

// Kinds is String that also returns the kind of each placeholder it put
// in, in text order, with "private" for a <private> block, so a caller can
// say what it removed without ever holding the secret itself.
func Kinds(s string) (string, []string) {
	var kinds []string
	out := redactString(s, &kinds)
	return out, kinds
}

// redactString is String, appending the kinds of the placeholders to
// *kinds when kinds is not nil.
func redactString(s string, kinds *[]string) string {
	hits := scan(s, nil)
	if len(hits) == 0 {
		return s
	}
	for _, h := range hits {
		if h.id == idPrivateOpen {
			s = stripPrivate(s, hits, kinds)
			hits = scan(s, hits[:0])
			break
		}
	}
	spans := find(s, hits)
	if len(spans) == 0 {
		return s
	}
	return apply(s, spans, kinds)
}

// Bytes is String for byte slices. It returns b itself when nothing needs
// redacting.
func Bytes(b []byte) []byte {
	s := string(b)
	out := String(s)
	if out == s {
		return b
	}
	return []byte(out)
}

// Contains reports whether String would change s, i.e. whether s holds a
// secret or a <private> block.
func Contains(s string) bool { return String(s) != s }

// span is a byte range of the text to replace with placeholder(kind).
// Lower prio wins the kind when spans overlap.
type span struct {
	start, end int
	prio       int
	kind       string
}

type addFunc func(start, end int, kind string, prio int)

// Priorities: the more specific the rule, the lower the number.
const (
	prioBlock   = iota // private key blocks
	prioToken          // vendor token shapes
	prioJWT            // JSON web tokens
	prioURL            // passwords in URLs
	prioHeader         // Authorization / Bearer
	prioLabeled        // KEY=value and friends
)

// find runs the rule of each marker hit, in text order.
func find(s string, hits []hit) []span {
	f := finder{s: s, pemEnd: -1, patEnd: make([]int, len(patterns))}
	add := func(start, end int, kind string, prio int) {
		if start < end {
			f.spans = append(f.spans, span{start, end, prio, kind})
		}
	}
	labelledTo := 0 // hits before this were part of a key or value already seen
	for _, h := range hits {
		switch r := markers[h.id].rule; {
		case r == rulePEM:
			f.pem(h.pos, add)
		case r == ruleURL:
			urlPassword(s, h.pos, add)
		case r == ruleBearer:
			bearer(s, h.pos, add)
		case r == ruleCommand:
			if at := h.pos - markers[h.id].lead; at >= 0 {
				f.command(at, add)
			}
		case r == ruleLabel:
			if h.pos >= labelledTo {
				labelledTo = labelledAt(s, h.pos, len(markers[h.id].text), add)
			}
		case r >= 0:
			patterns[r].match(&f, r, h.pos, add)
		}
	}
	return f.spans
}

// finder holds what one String call remembers between hits.
type finder struct {
	s     string
	spans []span
	// pemEnd is the end of the next "-----END … PRIVATE KEY-----" found;
	// noPEMEnd is set once there is none.
	pemEnd   int
	noPEMEnd bool
	// patEnd is, per pattern, the end of its last match.
	patEnd []int
	// runFrom, runTo: the last run of token characters measured.
	runFrom, runTo int
	// cmdEnd is the end of the last command line's arguments read.
	cmdEnd int
}

// apply replaces the spans of s; overlapping spans are merged so no part of
// a secret survives, and the merged span takes the most specific kind.
func apply(s string, spans []span, kinds *[]string) string {
	sort.SliceStable(spans, func(i, j int) bool {
		if spans[i].start != spans[j].start {
			return spans[i].start < spans[j].start
		}
		return spans[i].prio < spans[j].prio
	})
	var b strings.Builder
	b.Grow(len(s))
	last := 0
	for i := 0; i < len(spans); {
		cur := spans[i]
		for i++; i < len(spans) && spans[i].start < cur.end; i++ {
			if spans[i].end > cur.end {
				cur.end = spans[i].end
			}
			if spans[i].prio < cur.prio {
				cur.prio, cur.kind = spans[i].prio, spans[i].kind
			}
		}
		b.WriteString(s[last:cur.start])
		b.WriteString(placeholder(cur.kind))
		if kinds != nil {
			*kinds = append(*kinds, cur.kind)
		}
		last = cur.end
	}
	b.WriteString(s[last:])
	return b.String()
}

// stripPrivate replaces each top-level <private>…</private> block with
// privatePlaceholder; hits are the marker hits of s in order. Nested blocks
// are counted; an unclosed block runs to the end of s.
func stripPrivate(s string, hits []hit, kinds *[]string) string {
	var b strings.Builder
	b.Grow(len(s))
	last, depth, start := 0, 0, 0
	for _, h := range hits {
		switch {
		case h.id == idPrivateOpen:
			if depth == 0 {
				start = h.pos
			}
			depth++
		case h.id == idPrivateClose && depth > 0:
			if depth--; depth == 0 {
				b.WriteString(s[last:start])
				b.WriteString(privatePlaceholder)
				if kinds != nil {
					*kinds = append(*kinds, "private")
				}
				last = h.pos + len(closeTag)
			}
		}
	}
	if depth > 0 {
		b.WriteString(s[last:start])
		b.WriteString(privatePlaceholder)
		if kinds != nil {
			*kinds = append(*kinds, "private")
		}
		last = len(s)
	}
	b.WriteString(s[last:])
	return b.String()
}

// isPlaceholders reports whether v consists only of placeholders, so that a
// second pass leaves the output of the first alone.
func isPlaceholders(v string) bool {
	if v == "" {
		return false
	}
	for v != "" {
		switch {
		case strings.HasPrefix(v, privatePlaceholder):
			v = v[len(privatePlaceholder):]
		case strings.HasPrefix(v, "[REDACTED:"):
			rest := v[len("[REDACTED:"):]
			j := strings.IndexByte(rest, ']')
			if j <= 0 {
				return false
			}
			for k := 0; k < j; k++ {
				if c := rest[k]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
					return false
				}
			}
			v = rest[j+1:]
		default:
			return false
		}
	}
	return true
}

// asciiLower lowercases ASCII letters only: keys and values are compared
// with ASCII words, and other bytes must stay as they are.
func asciiLower(s string) string {
	i := 0
	for i < len(s) && !(s[i] >= 'A' && s[i] <= 'Z') {
		i++
	}
	if i == len(s) {
		return s
	}
	b := []byte(s)
	for ; i < len(b); i++ {
		if c := b[i]; c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// Value redacts every string of a decoded JSON value (what json.Unmarshal
// makes of it in an any), map keys included, in place where it can, and
// returns it. Redacting the decoded strings, not the JSON text, keeps the
// re-encoded result valid JSON whatever a secret's characters.
func Value(v any) any {
	switch x := v.(type) {
	case string:
		return String(x)
	case []any:
		for i := range x {
			x[i] = Value(x[i])
		}
		return x
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[String(k)] = Value(e)
		}
		return out
	}
	return v
}
