package importer

import (
	"path/filepath"
	"strings"
)

// parseCursor reads a Cursor rule: a .mdc file (YAML front matter with
// description, globs and alwaysApply, then markdown) or a legacy
// .cursorrules file (markdown or plain text). A .mdc whose front matter is
// malformed is refused whole: its body's scope is unknown.
func parseCursor(path, src string) ([]Rule, error) {
	if !strings.HasSuffix(path, ".mdc") {
		return SplitMarkdown(src, 0), nil
	}
	body, offset, fields, err := splitFront(src)
	if err != nil {
		return nil, err
	}
	rules := SplitMarkdown(body, offset)
	desc := field(fields, "description")
	globs := field(fields, "globs")
	name := strings.TrimSuffix(filepath.Base(path), ".mdc")
	for i := range rules {
		if rules[i].Section == "" {
			rules[i].Section = firstNonEmpty(desc, name)
		}
		if globs != "" {
			rules[i].Text += "\n\nApplies to: " + globs
		}
	}
	// A rule file that is one paragraph is titled by its description.
	if trimmed := strings.TrimSpace(body); len(rules) == 1 && desc != "" && !isItem(trimmed) &&
		!strings.Contains(body, "\n#") && !strings.HasPrefix(trimmed, "#") {
		rules[0].Title = clipTitle(desc)
	}
	return rules, nil
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}
