package graph

import (
	"strings"
	"unicode"

	"github.com/reflectkb/reflect/internal/text"
)

// Normalize is the form under which entity names are matched and stored
// unique: trimmed, wrapping quotes and backticks removed, runs of white
// space folded to one space, lower-cased, a leading "./" and trailing
// sentence punctuation dropped, and the curated aliases of well-known tools
// folded into one name ("k8s" and "kubernetes", "postgres" and
// "postgresql"). Path separators are kept: "callback/cookie.go" and
// "cookie.go" are different entities. "SameSite" and "samesite" are one.
func Normalize(name string) string {
	loadVocab()
	s := strings.TrimSpace(name)
	s = strings.Trim(s, "`\"'")
	if strings.IndexFunc(s, unicode.IsSpace) >= 0 {
		s = text.OneLine(s)
	}
	s = strings.ToLower(s)
	for strings.HasPrefix(s, "./") && len(s) > 2 {
		s = s[2:]
	}
	// Sentence punctuation and a directory's trailing slash only: "c++"
	// and "c#" keep their last character.
	s = strings.TrimSpace(strings.TrimRight(s, ".,;:!?/"))
	if c, ok := aliases[s]; ok {
		return c
	}
	return s
}
