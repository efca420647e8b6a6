package recall

import (
	"slices"
	"strings"
	"unicode"
)

// A prompt that hands the agent a piece of work — "add pagination to the
// /orders endpoint", "write the sqlalchemy models", "now do the same for
// the orders table" — asks about no problem, and a learning is a problem
// met and how it was solved. Such a request names the words of the code it
// is about (orders, endpoint, migration, workflow), and those words are
// what the learnings of the same code hold too, so by the words alone it
// looks like a question about them: it cleared the floor as often as a
// symptom typed in the user's own words did, and no weighing of the words
// matched told them apart (docs/ranking.md, the injection gate). What tells
// them apart is the prompt's own form: a request opens with a verb that
// gives an order.
//
// So a request gets a learning only on evidence that is plainly about it
// (twice the floor), and never through the gate's rescue of a hit under
// the floor; a question, a symptom or a pasted error goes through the gate
// as before.

// requestFloor is how many times the floor a request's hit needs.
const requestFloor = 2.0

// taskVerbs are the verbs that open a request for work. Words that are as
// often a noun or a command in a developer's prompt (build, set, test,
// list, format, document, merge, port, commit, make) are left out: "build
// fails after the upgrade", "make broke after the Makefile was reformatted"
// and "set -euo pipefail" are problems, not orders.
var taskVerbs = map[string]bool{
	"add": true, "write": true, "create": true, "generate": true,
	"implement": true, "refactor": true, "rename": true, "convert": true,
	"update": true, "remove": true, "delete": true, "move": true, "extract": true,
	"replace": true, "translate": true, "scaffold": true, "rewrite": true,
	"introduce": true, "modify": true, "simplify": true, "optimize": true,
	"optimise": true, "summarize": true, "summarise": true, "describe": true,
	"explain": true, "draw": true, "give": true, "memoize": true, "use": true,
	"undo": true,
}

// notAnObject are the words that, after a verb, make it the subject of a
// statement rather than an order: "use of closed network connection",
// "update is stuck at 99%".
var notAnObject = map[string]bool{
	"of": true, "is": true, "are": true, "was": true, "were": true, "does": true,
	"doesn't": true, "did": true, "didn't": true, "fails": true, "failed": true,
	"returns": true, "throws": true, "hangs": true, "keeps": true,
}

// politeLeads are the words a request may open with before its verb.
var politeLeads = []string{
	"please", "pls", "now", "then", "also", "ok", "okay", "so", "and", "just",
	"let's", "lets", "let us", "can you", "could you", "would you", "will you",
	"can we", "could we", "i want you to", "i'd like you to", "i need you to",
	"help me", "go ahead and",
}

// isRequest reports whether prompt asks the agent to do a piece of work:
// its first clause (up to the first comma, colon, semicolon or full stop
// followed by a space) opens, after the polite words above, with a task
// verb in lower case (an upper-case EXPLAIN or UPDATE is SQL that was
// pasted) followed by what to do ("now do the same …" too).
func isRequest(prompt string) bool {
	line, _, _ := strings.Cut(strings.TrimSpace(prompt), "\n")
	var words []string
	// A clause of polite words alone ("ok, let's …") gives way to the
	// next, and so does one that hands over material ("here's the schema,
	// write the models").
	for len(words) == 0 && line != "" {
		var clause string
		clause, line = firstClause(line)
		if words = withoutLeads(strings.Fields(clause)); handsOver(words) {
			words = nil
		}
	}
	if len(words) >= 3 && strings.EqualFold(words[0], "do") && strings.EqualFold(words[1], "the") && strings.EqualFold(words[2], "same") {
		return true
	}
	if len(words) < 2 || !taskVerbs[strings.ToLower(words[0])] || !isLowerWord(words[0]) {
		return false
	}
	return !notAnObject[strings.ToLower(words[1])]
}

// handsOver reports whether a clause hands the agent material rather than
// saying what to do with it: "here's the schema", "here is the log",
// "below is the config".
func handsOver(words []string) bool {
	if len(words) == 0 {
		return false
	}
	first := strings.ToLower(words[0])
	return first == "here's" || first == "here’s" ||
		(len(words) > 1 && (first == "here" || first == "below") && strings.EqualFold(words[1], "is"))
}

// withoutLeads drops the polite words words open with.
func withoutLeads(words []string) []string {
	for dropped := true; dropped; {
		dropped = false
		for _, lead := range politeLeads {
			lw := strings.Fields(lead)
			if len(words) >= len(lw) && slices.EqualFunc(words[:len(lw)], lw, func(w, l string) bool {
				return strings.EqualFold(strings.TrimRight(w, ","), l)
			}) {
				words, dropped = words[len(lw):], true
				break
			}
		}
	}
	return words
}

// firstClause splits line after its first comma, colon, semicolon, full
// stop, question or exclamation mark followed by a space: the clause
// before it, and the rest.
func firstClause(line string) (string, string) {
	for i := 0; i+1 < len(line); i++ {
		switch line[i] {
		case ',', ':', ';', '.', '!', '?':
			if line[i+1] == ' ' || line[i+1] == '\t' {
				return line[:i], strings.TrimSpace(line[i+1:])
			}
		}
	}
	return line, ""
}

// isLowerWord reports whether w has no upper-case letter but its first:
// "Add" opens a sentence, "ADD" or "UPDATE" is SQL or a Dockerfile.
func isLowerWord(w string) bool {
	for i, r := range w {
		if i > 0 && unicode.IsUpper(r) {
			return false
		}
	}
	return true
}
