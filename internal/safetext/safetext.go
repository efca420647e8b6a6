// Package safetext makes untrusted learning text safe for the two places
// that interpret text: the agent's context block, where a tag in learning
// text could end the block and let the text speak as the user, and the
// terminal, where escape sequences in learning text could rewrite the
// screen, the window title or the clipboard.
//
// Learning text is untrusted: it comes from LLM writers fed with hostile
// transcripts, from git-synced team knowledge bases and from pasted text.
package safetext

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Inline returns s as one line that cannot contain markup: NFKC-normalised
// (so full-width and other compatibility forms of '<' and '>' become the
// ASCII characters, and are escaped below), without control, format
// (zero-width, bidi) or unassigned characters, every run of white space of
// any kind (VT, NBSP, NEL, U+2028 ...) made one ASCII space, trimmed, and
// with '<' and '>' written as "&lt;" and "&gt;". The order matters: tag
// filters that ran before white space was normalised, or that only knew
// ASCII white space, were what let "</tag\u2028>" through.
func Inline(s string) string { return neutralise(s, false) }

// Block is Inline for text of several lines that a model reads (a whole
// learning served by the MCP server): the same normalisation, the same
// characters dropped and '<' and '>' written the same way, so no spelling
// of a tag can end the tool result or open another, but line breaks are
// kept. Every line break of any kind (CR LF, CR, NEL, U+2028, U+2029, VT,
// FF) becomes "\n", tabs stay, other white space becomes one space each;
// runs of blank lines and indentation are kept, as markdown needs them.
func Block(s string) string { return neutralise(s, true) }

func neutralise(s string, lines bool) string {
	s = norm.NFKC.String(strings.ToValidUTF8(s, "\uFFFD"))
	var b strings.Builder
	b.Grow(len(s))
	space := false
	prev := rune(0)
	for _, r := range s {
		if lines {
			switch {
			case r == '\n' && prev == '\r':
				// The CR already wrote the break.
			case lineBreak(r):
				b.WriteByte('\n')
			case r == '\t':
				b.WriteByte('\t')
			case unicode.IsSpace(r) || r == utf8.RuneError:
				b.WriteByte(' ')
			}
			prev = r
			if unicode.IsSpace(r) || r == utf8.RuneError {
				continue
			}
		} else {
			switch {
			case unicode.IsSpace(r) || r == utf8.RuneError:
				space = b.Len() > 0
				continue
			}
		}
		if dropped(r) {
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		switch r {
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// lineBreak reports the characters Block turns into "\n".
func lineBreak(r rune) bool {
	switch r {
	case '\n', '\r', '\v', '\f', 0x85, 0x2028, 0x2029:
		return true
	}
	return false
}

// dropped reports characters that carry no text: anything that is not a
// letter, mark, number, punctuation, symbol or space, i.e. C0 and C1
// controls, format characters (zero-width space and joiners, bidi
// embeddings, overrides and isolates, the BOM, tag characters),
// private-use, surrogates and unassigned code points. Any of them can hide
// text from a reader or split a word a filter looks for.
func dropped(r rune) bool { return !unicode.IsGraphic(r) }

// Terminal returns s with what a terminal would interpret removed: ANSI
// escape sequences (CSI "ESC [ ... final", OSC "ESC ] ... BEL or ESC \",
// DCS, SOS, PM, APC strings and two-byte escapes), the C1 controls that
// start the same sequences as one byte or rune (U+009B is CSI), and every
// other control character except tab and newline. Bidi controls go too,
// so text cannot be shown in another order than it is stored. Printable
// text, including non-ASCII, is kept as it is.
func Terminal(s string) string {
	if clean(s) {
		return s
	}
	s = strings.ToValidUTF8(s, "\uFFFD")
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == 0x1b:
			i += escapeLen(s[i:])
			continue
		case r == 0x9b: // C1 CSI
			i += n + csiLen(s[i+n:])
			continue
		case r == 0x9d || r == 0x90 || r == 0x98 || r == 0x9e || r == 0x9f: // C1 OSC, DCS, SOS, PM, APC
			i += n + stringLen(s[i+n:])
			continue
		case r == '\n' || r == '\t':
		case unicode.IsControl(r) || bidi(r):
			i += n
			continue
		}
		b.WriteString(s[i : i+n])
		i += n
	}
	return b.String()
}

// clean reports text Terminal would leave as it is, cheaply.
func clean(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 && c != '\n' && c != '\t' || c == 0x7f || c >= 0x80 {
			return false
		}
	}
	return true
}

func bidi(r rune) bool {
	return r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 || r == 0x200e || r == 0x200f || r == 0x061c
}

// escapeLen is the length of the escape sequence at the start of s (s[0]
// is ESC). An unterminated sequence runs to the end of s: what follows an
// ESC that never ends would be swallowed by the terminal anyway.
func escapeLen(s string) int {
	if len(s) < 2 {
		return len(s)
	}
	switch s[1] {
	case '[':
		return 2 + csiLen(s[2:])
	case ']', 'P', 'X', '^', '_':
		return 2 + stringLen(s[2:])
	}
	// ESC, optional intermediates (0x20-0x2f), one final byte.
	i := 1
	for i < len(s) && s[i] >= 0x20 && s[i] <= 0x2f {
		i++
	}
	if i < len(s) {
		i++
	}
	return i
}

// csiLen is the length of a CSI sequence's parameters, intermediates and
// final byte (0x40-0x7e).
func csiLen(s string) int {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 0x40 && c <= 0x7e {
			return i + 1
		} else if c < 0x20 || c > 0x3f {
			return i // malformed: stop before the stray byte
		}
	}
	return len(s)
}

// stringLen is the length of an OSC/DCS/SOS/PM/APC string up to and
// including its terminator: BEL, ESC \ or the C1 ST (U+009C).
func stringLen(s string) int {
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == 0x07:
			return i + 1
		case s[i] == 0x1b && i+1 < len(s) && s[i+1] == '\\':
			return i + 2
		case strings.HasPrefix(s[i:], "\u009c"):
			return i + len("\u009c")
		}
	}
	return len(s)
}
