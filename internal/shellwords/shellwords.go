// Package shellwords splits a shell command line into the words of its
// simple commands. It is a reading aid for naming what a command runs (the
// drainer's command keys, the hooks' mini-learning titles), not a shell
// parser: expansions and redirections stay words, and odd input yields odd
// words, never a failure.
package shellwords

import "strings"

// Split splits cmd into the word lists of its simple commands, cut at
// ; & | && || newlines and parentheses, with quotes and backslash escapes
// removed. It handles the union of what the drainer's and the hooks' former
// tokenisers did: single and double quotes (an unterminated quote runs to
// the end), backslash escapes outside quotes and inside double quotes,
// backslash-newline continuations, '#' comments at the start of a word,
// and carriage returns as blanks.
func Split(cmd string) [][]string { return SplitN(cmd, -1) }

// SplitN is Split that stops after n simple commands; n < 0 means no
// limit. A bound keeps the work on a huge pasted script small.
func SplitN(cmd string, n int) [][]string {
	var (
		segs   [][]string
		words  []string
		w      strings.Builder
		inWord bool
		quote  byte
	)
	endWord := func() {
		if inWord {
			words = append(words, w.String())
			w.Reset()
			inWord = false
		}
	}
	endSeg := func() {
		endWord()
		if len(words) > 0 {
			segs = append(segs, words)
			words = nil
		}
	}
	for i := 0; i < len(cmd) && (n < 0 || len(segs) < n); i++ {
		c := cmd[i]
		switch {
		case quote != 0:
			switch {
			case c == quote:
				quote = 0
			case c == '\\' && quote == '"' && i+1 < len(cmd):
				i++
				w.WriteByte(cmd[i])
			default:
				w.WriteByte(c)
			}
		case c == '\'' || c == '"':
			quote = c
			inWord = true
		case c == '\\' && i+1 < len(cmd):
			i++
			if cmd[i] != '\n' {
				w.WriteByte(cmd[i])
				inWord = true
			}
		case c == ' ' || c == '\t' || c == '\r':
			endWord()
		case c == '\n' || c == ';' || c == '&' || c == '|' || c == '(' || c == ')':
			endSeg()
		case c == '#' && !inWord:
			for i+1 < len(cmd) && cmd[i+1] != '\n' {
				i++
			}
		default:
			w.WriteByte(c)
			inWord = true
		}
	}
	if n < 0 || len(segs) < n {
		endSeg()
	}
	return segs
}
