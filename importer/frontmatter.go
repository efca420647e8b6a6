package importer

import (
	"errors"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// maxFrontLines bounds the search for a front matter's closing line.
const maxFrontLines = 200

var errUnclosed = errors.New("front matter is never closed with ---")

// splitFront separates a leading YAML front matter ("---" lines) from the
// text: the body, the number of lines before it, and the fields. A text
// without one is all body; one that never closes or is not YAML is an
// error.
func splitFront(src string) (body string, offset int, fields map[string]any, err error) {
	first, rest, ok := strings.Cut(src, "\n")
	if !ok || strings.TrimRight(first, "\r ") != "---" {
		return src, 0, nil, nil
	}
	lines := strings.SplitAfter(rest, "\n")
	for i, ln := range lines {
		if i >= maxFrontLines {
			break
		}
		if strings.TrimRight(ln, "\r\n ") == "---" {
			front := strings.Join(lines[:i], "")
			fields = map[string]any{}
			if err := yaml.Unmarshal([]byte(front), &fields); err != nil {
				return src, 0, nil, errors.New("malformed front matter: " + strings.TrimPrefix(err.Error(), "yaml: "))
			}
			return strings.Join(lines[i+1:], ""), i + 2, fields, nil
		}
	}
	return src, 0, nil, errUnclosed
}

// field is a front matter field as one line of text ("" when absent).
func field(fields map[string]any, key string) string {
	switch v := fields[key].(type) {
	case string:
		return strings.TrimSpace(v)
	case []any:
		var parts []string
		for _, x := range v {
			if s, ok := x.(string); ok {
				parts = append(parts, s)
			}
		}
		return strings.Join(parts, ", ")
	}
	return ""
}
