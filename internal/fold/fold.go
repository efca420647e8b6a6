// Package fold makes text comparable across the ways people type it:
// lowercase, Latin letters without their diacritics (café → cafe, ß → ss,
// ł → l), and CJK runs, which have no spaces between words, cut into
// overlapping pairs of characters so a word inside a title can be found.
// Ids and the lexical index both use it, so "cafe" finds "Café".
package fold

import (
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// latin maps lowercase Latin letters with diacritics (Latin-1 Supplement
// and Latin Extended-A, plus the Romanian comma letters) to ASCII.
// It is built on first use: hooks that never fold should not pay for it.
var latin = sync.OnceValue(func() map[rune]string {
	m := map[rune]string{}
	for ascii, letters := range map[string]string{
		"a": "àáâãäåāăą", "ae": "æ", "c": "çćĉċč", "d": "ďđð",
		"e": "èéêëēĕėęě", "g": "ĝğġģ", "h": "ĥħ", "i": "ìíîïĩīĭįı",
		"ij": "ĳ", "j": "ĵ", "k": "ķĸ", "l": "ĺļľŀł", "n": "ñńņňŉŋ",
		"o": "òóôõöøōŏő", "oe": "œ", "r": "ŕŗř", "s": "śŝşšșſ", "ss": "ß",
		"t": "ţťŧț", "th": "þ", "u": "ùúûüũūŭůűų", "w": "ŵ", "y": "ýÿŷ",
		"z": "źżž",
	} {
		for _, r := range letters {
			m[r] = ascii
		}
	}
	return m
})

// Rune returns r lowercased with its diacritics removed, or "" for a
// combining mark (the accent of a decomposed "e\u0301").
func Rune(r rune) string {
	if unicode.Is(unicode.Mn, r) {
		return ""
	}
	r = unicode.ToLower(r)
	if s, ok := latin()[r]; ok {
		return s
	}
	return string(r)
}

// String returns s lowercased with the diacritics of Latin letters
// removed.
func String(s string) string {
	var b strings.Builder
	for _, r := range s {
		b.WriteString(Rune(r))
	}
	return b.String()
}

// IsCJK reports whether r is written without spaces between words: Han,
// Hiragana, Katakana or Hangul.
func IsCJK(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

// Words splits text into folded words on anything that is not a letter or
// digit, as FTS5's unicode61 tokenizer does, and cuts each run of CJK
// characters into overlapping pairs ("日本語" → "日本", "本語"; a lone
// character stays as it is). The words are slices of one folded copy of
// text: indexing calls this for every field of every document.
func Words(text string) []string {
	// buf holds the folded words one after another; spans index into it.
	buf := make([]byte, 0, len(text))
	type span struct{ from, to int }
	var spans []span
	wordAt := -1  // start in buf of the word being read, -1 for none
	var cjk []int // starts in buf of the CJK characters of the current run
	flushWord := func() {
		if wordAt >= 0 && len(buf) > wordAt {
			spans = append(spans, span{wordAt, len(buf)})
		}
		wordAt = -1
	}
	flushCJK := func() {
		switch {
		case len(cjk) == 1:
			spans = append(spans, span{cjk[0], len(buf)})
		case len(cjk) > 1:
			for i := 0; i+1 < len(cjk); i++ {
				end := len(buf)
				if i+2 < len(cjk) {
					end = cjk[i+2]
				}
				spans = append(spans, span{cjk[i], end})
			}
		}
		cjk = cjk[:0]
	}
	letter := func(b []byte) {
		flushCJK()
		if wordAt < 0 {
			wordAt = len(buf)
		}
		buf = append(buf, b...)
	}
	for _, r := range text {
		if r < utf8.RuneSelf {
			// ASCII, most of every text: no tables to consult.
			switch {
			case 'A' <= r && r <= 'Z':
				letter([]byte{byte(r) + 'a' - 'A'})
			case 'a' <= r && r <= 'z', '0' <= r && r <= '9':
				letter([]byte{byte(r)})
			default:
				flushWord()
				flushCJK()
			}
			continue
		}
		switch {
		case unicode.Is(unicode.Mn, r):
			// an accent of the letter before it: dropped, the word goes on
		case IsCJK(r):
			flushWord()
			cjk = append(cjk, len(buf))
			buf = utf8.AppendRune(buf, r)
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			letter([]byte(Rune(r)))
		default:
			flushWord()
			flushCJK()
		}
	}
	flushWord()
	flushCJK()
	if len(spans) == 0 {
		return nil
	}
	all := string(buf)
	out := make([]string, len(spans))
	for i, sp := range spans {
		out[i] = all[sp.from:sp.to]
	}
	return out
}
