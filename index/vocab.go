package index

import (
	"strings"
	"unicode"
)

// Developer vocabulary: the same thing said in the words developers use
// for it. A prompt says "k8s" or "OOM" where the learning says
// "Kubernetes" or "out of memory", and BM25F sees no shared word. Each
// group lists phrases that name one thing, the spelled-out form first; a
// query holding a short form (an abbreviation) is searched with the
// spelled-out form's words as well. The spelled-out form is not expanded
// into the abbreviations: in a small KB an abbreviation is a rare word, and
// "the test database" would then match every learning that says "db". The
// out-of-memory group is the exception, every form of it telling. The
// table is small and hand-written on purpose: abbreviations any developer
// reads as the same word, not topics that merely go together.
var vocabGroups = []vocabGroup{
	{all: true, phrases: []string{"out of memory", "oom", "oomkilled", "exit code 137"}},
	{phrases: []string{"kubernetes", "k8s"}},
	{phrases: []string{"environment variable", "env var", "env vars", "envvar"}},
	{phrases: []string{"database", "db"}},
	{phrases: []string{"repository", "repo"}},
	{phrases: []string{"directory", "dir"}},
	{phrases: []string{"dependencies", "deps"}},
	{phrases: []string{"authentication", "auth"}},
	{phrases: []string{"credentials", "creds"}},
	{phrases: []string{"permissions", "perms"}},
	{phrases: []string{"configuration", "config"}},
	{phrases: []string{"timezone", "tz"}},
	{phrases: []string{"postgres", "pg"}},
	{phrases: []string{"javascript", "js"}},
	{phrases: []string{"github", "gh"}},
}

// vocabGroup is one thing's names, the spelled-out form first. all: every
// name expands into every other.
type vocabGroup struct {
	all     bool
	phrases []string
}

// aliasWeight scales the idf of a word the vocabulary added: a learning
// that holds both the word of the query and its alias would otherwise
// count one thing twice.
const aliasWeight = 0.5

// maxExpansion bounds the words the vocabulary adds to one query.
const maxExpansion = 8

// vocabPhrases are the phrases of vocabGroups that expand, as word
// sequences, each with its group's index.
var vocabPhrases = func() []vocabPhrase {
	var out []vocabPhrase
	for g, group := range vocabGroups {
		for i, p := range group.phrases {
			if i > 0 || group.all {
				out = append(out, vocabPhrase{words: strings.Fields(p), group: g})
			}
		}
	}
	return out
}()

type vocabPhrase struct {
	words []string
	group int
}

// expandVocabulary returns terms with the words of every vocabulary phrase
// equivalent to one text names (at most maxExpansion new words, stopwords
// dropped, none repeated), and for each word added the words of the
// phrases of text it stands for. text is the query as typed: a phrase is
// matched on its words in sequence, lowercased, so "env var" is found in
// "the ENV var is empty" and not in "env is a var".
func expandVocabulary(text string, terms []string) ([]string, map[string][]string) {
	words := queryWords(text)
	named := map[int][]string{} // group → the words of text that name it
	for _, p := range vocabPhrases {
		if containsSeq(words, p.words) {
			for _, w := range p.words {
				if !stopwords[w] {
					named[p.group] = append(named[p.group], w)
				}
			}
		}
	}
	if len(named) == 0 {
		return terms, nil
	}
	have := map[string]bool{}
	for _, t := range terms {
		have[t] = true
	}
	out := append([]string(nil), terms...)
	aliases := map[string][]string{}
	for g, group := range vocabGroups {
		if named[g] == nil {
			continue
		}
		to := group.phrases[:1]
		if group.all {
			to = group.phrases
		}
		for _, p := range to {
			for _, w := range strings.Fields(p) {
				if have[w] || stopwords[w] || len(aliases) == maxExpansion {
					continue
				}
				have[w] = true
				out = append(out, w)
				aliases[w] = named[g]
			}
		}
	}
	return out, aliases
}

// queryWords splits text into lowercased words as Terms does, keeping
// stopwords, duplicates and order.
func queryWords(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.Is(unicode.Mn, r)
	})
}

// containsSeq reports whether seq occurs in words as consecutive words.
func containsSeq(words, seq []string) bool {
	for i := 0; i+len(seq) <= len(words); i++ {
		match := true
		for j, s := range seq {
			if words[i+j] != s {
				match = false
				break
			}
		}
		if match {
			return true
		}
	}
	return false
}
