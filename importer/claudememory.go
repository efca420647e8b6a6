package importer

import "github.com/reflectkb/reflect/internal/lazyre"

// memoryLink is an index line of Claude Code's MEMORY.md that only points
// at a topic file ("[Testing](testing.md) — how to run the suite"): the
// topic file is imported itself.
var memoryLink = lazyre.New(`^\[[^\]]*\]\([^)]*\.md\)`)

// parseClaudeMemory reads a Claude Code auto-memory file: MEMORY.md (an
// index, with notes) or a topic file, whose optional front matter
// (name, description, type) titles it when it is one paragraph.
func parseClaudeMemory(src string) ([]Rule, error) {
	body, offset, fields, err := splitFront(src)
	if err != nil {
		body, offset, fields = src, 0, nil
	}
	var rules []Rule
	for _, r := range SplitMarkdown(body, offset) {
		if memoryLink.MatchString(r.Text) {
			continue
		}
		rules = append(rules, r)
	}
	if d := firstNonEmpty(field(fields, "description"), field(fields, "name")); d != "" && len(rules) == 1 && rules[0].Section == "" {
		rules[0].Title = clipTitle(d)
	}
	return rules, nil
}
