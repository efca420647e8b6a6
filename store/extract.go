package store

import (
	"strings"
	"unicode/utf8"

	"github.com/reflectkb/reflect/internal/lazyre"
)

var (
	// Spans of any length are matched so that a short `x` or an overlong
	// span still consumes both its backticks; otherwise the closing
	// backtick of one span pairs with the opening one of the next and the
	// prose between them becomes an "entity".
	backtickSpan = lazyre.New("`([^`\n]+)`")
	filePath     = lazyre.New(`(?:^|[\s(\["'])((?:[\w.-]+/)+[\w.-]+\.[A-Za-z0-9]{1,8}|[\w-]+\.(?:go|py|rs|ts|tsx|js|jsx|java|rb|c|h|cc|cpp|toml|yaml|yml|json|md|sql|sh|mod))\b`)
	errorCode    = lazyre.New(`\b(?:E[A-Z]{3,}|[A-Z]{1,5}\d{3,5}|[A-Z][A-Z0-9]+_[A-Z0-9_]+|[A-Z][a-zA-Z]*(?:Error|Exception))\b`)
)

// ExtractEntities guesses entities from a learning's text when no writer or
// user supplied a sidecar: file paths, code spans and error codes. Each is
// marked Extracted "heuristic" so it is never mistaken for a curated entity.
func ExtractEntities(l *Learning) []Entity {
	text := l.Title + "\n" + l.KeyInsight + "\n" + l.Body
	seen := map[string]bool{}
	var out []Entity
	add := func(name, typ string) {
		name = strings.TrimSpace(name)
		key := strings.ToLower(name)
		if name == "" || seen[key] || len(out) >= 20 {
			return
		}
		seen[key] = true
		out = append(out, Entity{Name: name, Type: typ, Extracted: "heuristic"})
	}
	for _, m := range filePath.FindAllStringSubmatch(text, -1) {
		add(m[1], "file")
	}
	for _, m := range errorCode.FindAllString(text, -1) {
		add(m, "error")
	}
	for _, m := range backtickSpan.FindAllStringSubmatch(text, -1) {
		span := strings.TrimSpace(m[1])
		if n := utf8.RuneCountInString(span); n < 2 || n > 80 {
			continue
		}
		switch {
		case filePath.MatchString(" " + span):
			add(span, "file")
		case strings.Contains(span, " "):
			add(span, "tool")
		default:
			add(span, "function")
		}
	}
	return out
}
