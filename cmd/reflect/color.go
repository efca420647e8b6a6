package main

import (
	"strings"
	"unicode"

	"github.com/reflectkb/reflect/index"
)

// ANSI styles of the text output. Only terminals get them (see useColor).
const (
	styleBold  = "1"
	styleMatch = "1;31" // matched words, as rg and grep colour them
	styleOK    = "32"
	styleWarn  = "33"
	styleFail  = "1;31"
)

// painter wraps text in ANSI styles when on, and leaves it as it is when
// not, so call sites need not care.
type painter struct{ on bool }

func (p painter) paint(style, s string) string {
	if !p.on || s == "" {
		return s
	}
	return "\x1b[" + style + "m" + s + "\x1b[0m"
}

// status colours a doctor status word: ok green, warn yellow, fail red.
func (p painter) status(s string) string {
	switch strings.TrimSpace(s) {
	case "ok":
		return p.paint(styleOK, s)
	case "warn":
		return p.paint(styleWarn, s)
	case "fail":
		return p.paint(styleFail, s)
	}
	return s
}

// highlight paints the words of text whose stems are in terms (see
// queryStems): compared as the index compares them, "cookies" in a title
// lights up for the query "cookie". base styles the rest ("" for none).
func (p painter) highlight(text string, terms map[string]bool, base string) string {
	if !p.on {
		return text
	}
	var b strings.Builder
	flush := func(s string) {
		if base == "" {
			b.WriteString(s)
		} else {
			b.WriteString(p.paint(base, s))
		}
	}
	start, plainFrom := -1, 0
	emit := func(end int) {
		word := text[start:end]
		for _, t := range index.Stems(word) {
			if terms[t] {
				flush(text[plainFrom:start])
				b.WriteString(p.paint(styleMatch, word))
				plainFrom = end
				break
			}
		}
		start = -1
	}
	for i, r := range text {
		isWord := unicode.IsLetter(r) || unicode.IsDigit(r)
		switch {
		case isWord && start < 0:
			start = i
		case !isWord && start >= 0:
			emit(i)
		}
	}
	if start >= 0 {
		emit(len(text))
	}
	flush(text[plainFrom:])
	return b.String()
}

// queryStems are the stems of a query's words, stopwords left out as the
// search leaves them out.
func queryStems(query string) map[string]bool {
	out := map[string]bool{}
	for _, t := range index.Stems(strings.Join(index.Terms(query), " ")) {
		out[t] = true
	}
	return out
}
