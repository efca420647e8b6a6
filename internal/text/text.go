// Package text holds the string-shortening helpers shared by the domain
// packages: folding text onto one line and clipping it to a size. Where
// callers came to rely on different cuts (a rune bound or a byte bound,
// where the word boundary may fall, which punctuation is trimmed), each
// variant is kept under its own name rather than merged, so moving a caller
// here changed no output.
package text

import (
	"strings"
	"unicode/utf8"
)

// OneLine collapses every run of white space, line breaks included, to
// one space and trims the ends, so a text fits a title, a list row or a
// YAML scalar on one line.
func OneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// ClipRunes shortens s to at most n runes, marking the cut with "…" and
// dropping the spaces before the mark. It never splits a UTF-8 sequence.
func ClipRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimRight(string(r[:n-1]), " ") + "…"
}

// ClipRunesTrim is ClipRunes that also trims leading space and any kind of
// white space (tabs, line breaks) at the cut, for snippets whose edges are
// never meaningful.
func ClipRunesTrim(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimSpace(string(r[:n-1])) + "…"
}

// CutRunes cuts s to at most n runes with no mark, trimming white space at
// both ends of what is kept when it cuts.
func CutRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i, count := 0, 0
	for i = range s {
		if count == n {
			break
		}
		count++
	}
	return strings.TrimSpace(s[:i])
}

// ClipBytes cuts s to at most n bytes on a rune boundary, marking the cut
// with "…" (which counts towards n).
func ClipBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	const mark = "…"
	if n < len(mark) {
		return PrefixBytes(s, n)
	}
	return PrefixBytes(s, n-len(mark)) + mark
}

// PrefixBytes returns the longest prefix of s of at most n bytes that ends
// on a rune boundary. n must be less than len(s).
func PrefixBytes(s string, n int) string {
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// ClipWords cuts s to at most n runes at the last word boundary before the
// cut however early it falls, trimming " ,;:-" and marking the cut with
// "…". With no space in the first n-1 runes it cuts mid-word.
func ClipWords(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	cut, runes := 0, 0
	for i, r := range s {
		if runes == n-1 {
			if cut == 0 {
				cut = i
			}
			break
		}
		if r == ' ' {
			cut = i
		}
		runes++
	}
	return strings.TrimRight(s[:cut], " ,;:-") + "…"
}

// ClipWordsHalf shortens s to at most n runes at a word boundary, but
// backs up to one only when that keeps more than half of the budget (in
// bytes); it trims " ,;:" and dashes and marks the cut with "…".
func ClipWordsHalf(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	cut := string(r[:n-1])
	// Back up to a word boundary unless the cut already is one.
	if r[n-1] != ' ' {
		if i := strings.LastIndexByte(cut, ' '); i > n/2 {
			cut = cut[:i]
		}
	}
	return strings.TrimRight(cut, " ,;:—–-") + "…"
}

// ClipWordsNear shortens s to at most n runes, backing up to a word
// boundary only when one lies within the last 19 runes kept; it trims
// " ,;:" and marks the cut with "…". n <= 1 gives "".
func ClipWordsNear(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	if n <= 1 {
		return ""
	}
	r := []rune(s)[:n-1]
	cut := len(r)
	for i := len(r) - 1; i > len(r)-20 && i > 0; i-- {
		if r[i] == ' ' {
			cut = i
			break
		}
	}
	return strings.TrimRight(string(r[:cut]), " ,;:") + "…"
}

// OrList joins words as a sentence offers a choice: "a", "a or b",
// "a, b or c".
func OrList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}
