package store

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"github.com/reflectkb/reflect/internal/lazyre"
)

// maxSlugLen bounds the slug part of an id so file names stay readable.
const maxSlugLen = 60

// Slug lowercases title and turns every run of characters other than ASCII
// letters and digits into a single '-', trimmed at both ends and cut to 60
// characters. A title with no letters or digits gives "untitled".
func Slug(title string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(title) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
			dash = false
			continue
		}
		if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	s := strings.TrimRight(b.String(), "-")
	if len(s) > maxSlugLen {
		s = strings.TrimRight(s[:maxSlugLen], "-")
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

var idPattern = lazyre.New(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)

// ValidID reports whether id can name a file under documents/: letters,
// digits, '.', '_' and '-', not starting with a dot or dash, at most 128 bytes.
// Ids come from users and agents, so this is what keeps them inside the KB.
func ValidID(id string) bool {
	return idPattern.MatchString(id) && !strings.Contains(id, "..")
}
