// Package fold makes text comparable across the ways people type it:
// lowercase, Latin letters without their diacritics (café → cafe, ß → ss,
// ł → l), and CJK runs, which have no spaces between words, cut into
// overlapping pairs of characters so a word inside a title can be found.
// Ids and the lexical index both use it, so "cafe" finds "Café".
package fold

import (
	"strings"
	"unicode"
)

// latin maps lowercase Latin letters with diacritics (Latin-1 Supplement
// and Latin Extended-A, plus the Romanian comma letters) to ASCII.
var latin = func() map[rune]string {
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
}()

// Rune returns r lowercased with its diacritics removed, or "" for a
// combining mark (the accent of a decomposed "e\u0301").
func Rune(r rune) string {
	if unicode.Is(unicode.Mn, r) {
		return ""
	}
	r = unicode.ToLower(r)
	if s, ok := latin[r]; ok {
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
// character stays as it is).
func Words(text string) []string {
	var out []string
	var word strings.Builder
	var cjk []rune
	flushWord := func() {
		if word.Len() > 0 {
			out = append(out, word.String())
			word.Reset()
		}
	}
	flushCJK := func() {
		switch {
		case len(cjk) == 1:
			out = append(out, string(cjk))
		case len(cjk) > 1:
			for i := 0; i+1 < len(cjk); i++ {
				out = append(out, string(cjk[i:i+2]))
			}
		}
		cjk = cjk[:0]
	}
	for _, r := range text {
		switch {
		case unicode.Is(unicode.Mn, r):
			// an accent of the letter before it: dropped, the word goes on
		case IsCJK(r):
			flushWord()
			cjk = append(cjk, r)
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			flushCJK()
			word.WriteString(Rune(r))
		default:
			flushWord()
			flushCJK()
		}
	}
	flushWord()
	flushCJK()
	return out
}
