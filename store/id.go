package store

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/reflectkb/reflect/internal/fold"
	"github.com/reflectkb/reflect/internal/lazyre"
)

// maxSlugLen bounds the slug part of an id so file names stay readable.
const maxSlugLen = 60

// Slug lowercases title, transliterates Latin letters with diacritics
// (café → cafe, ß → ss), keeps the letters of other scripts (日本語 stays
// 日本語, so a CJK title does not become "untitled"), and turns every run
// of other characters into a single '-', trimmed at both ends and cut to
// 60 bytes at a character boundary. A title with no letters or digits
// gives "untitled".
func Slug(title string) string {
	var b strings.Builder
	dash := false
	for _, r := range title {
		for _, c := range fold.Rune(r) {
			if unicode.IsLetter(c) || unicode.IsDigit(c) {
				b.WriteRune(c)
				dash = false
				continue
			}
			if !dash && b.Len() > 0 {
				b.WriteByte('-')
				dash = true
			}
		}
	}
	s := strings.TrimRight(b.String(), "-")
	if len(s) > maxSlugLen {
		cut := maxSlugLen
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = strings.TrimRight(s[:cut], "-")
	}
	if s == "" {
		return "untitled"
	}
	return s
}

// NewID returns the id of a learning: lrn-<slug>-<6 hex of sha256(title+keyInsight)>.
// The same title and insight always give the same id, which is how writers
// recognise a learning they have already recorded.
func NewID(title, keyInsight string) string {
	sum := sha256.Sum256([]byte(title + keyInsight))
	return "lrn-" + Slug(title) + "-" + hex.EncodeToString(sum[:3])
}

var idPattern = lazyre.New(`^[\p{L}\p{N}][\p{L}\p{N}._-]*$`)

// maxIDLen bounds an id in bytes, well inside any file system's limit on
// a file name with the ".entities.yaml" suffix added.
const maxIDLen = 128

// ValidID reports whether id can name a file under documents/: letters
// (of any script, so slugs of CJK titles fit), digits, '.', '_' and '-',
// not starting with a dot or dash, at most 128 bytes. Ids come from users
// and agents, so this is what keeps them inside the KB.
func ValidID(id string) bool {
	return len(id) <= maxIDLen && utf8.ValidString(id) && idPattern.MatchString(id) && !strings.Contains(id, "..")
}
