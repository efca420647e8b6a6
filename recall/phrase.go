package recall

import "github.com/reflectkb/reflect/internal/fold"

// maxPhraseRun is the run of words past which a longer one tells the gate
// nothing more: six words of an error message repeated in order are the
// message.
const maxPhraseRun = 6

// maxPhraseWords bounds the prompt words phraseRun reads: a pasted log
// is condensed before it gets here, and its head carries the error.
const maxPhraseWords = 400

// phraseRun is the longest run of consecutive words of prompt found
// consecutively in one of fields (folded and split as the index splits
// them, fold.Words), at most maxPhraseRun.
//
// Why the gate reads it: a prompt about a learning's problem repeats its
// error message or symptom in order ("Unexpected token 'export'"), while
// one about another problem of the same tool shares the tool's words one
// or two at a time ("SyntaxError", "unexpected"). Bag-of-words evidence
// cannot tell the two apart; the order can.
func phraseRun(prompt string, fields []string) int {
	p := fold.Words(prompt)
	if len(p) > maxPhraseWords {
		p = p[:maxPhraseWords]
	}
	best := 0
	for _, field := range fields {
		w := fold.Words(field)
		at := make(map[string][]int, len(w))
		for j, x := range w {
			at[x] = append(at[x], j)
		}
		// prev[j] is the length of the run ending at field word j and the
		// previous prompt word.
		prev := map[int]int{}
		for _, x := range p {
			cur := make(map[int]int, len(at[x]))
			for _, j := range at[x] {
				n := prev[j-1] + 1
				cur[j] = n
				best = max(best, n)
			}
			prev = cur
		}
		if best >= maxPhraseRun {
			return maxPhraseRun
		}
	}
	return best
}
