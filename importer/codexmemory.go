package importer

import (
	"strings"

	"github.com/reflectkb/reflect/internal/lazyre"
)

// codexKnowledge are the sections of a task group in Codex's MEMORY.md
// that hold what its consolidation agent learnt; the others (## Task n,
// with its rollout_summary_files and keywords) only route to evidence.
var codexKnowledge = []string{"user preferences", "reusable knowledge", "failures and how to do differently"}

// taskRefs are the "[Task 1][Task 2]" references that end a consolidated
// bullet of Codex's MEMORY.md: pointers into the same file, meaningless
// in a learning.
var taskRefs = lazyre.New(`(?m)(?:\s*\[Task \d+\])+[ \t]*$`)

// parseCodexMemory reads Codex's memory handbook (<codex>/memories/MEMORY.md,
// written by Codex's memory consolidation): "# Task Group: …" blocks whose
// "## User preferences", "## Reusable knowledge" and "## Failures and how
// to do differently" bullets are each a rule, under the task group.
func parseCodexMemory(src string) []Rule {
	var rules []Rule
	for _, r := range SplitMarkdown(src, 0) {
		parts := strings.Split(r.Section, " › ")
		last := strings.ToLower(strings.TrimSpace(parts[len(parts)-1]))
		keep := false
		for _, k := range codexKnowledge {
			keep = keep || last == k
		}
		if !keep {
			continue
		}
		r.Text = strings.TrimSpace(taskRefs.ReplaceAllString(r.Text, ""))
		r.Title = clipTitle(taskRefs.ReplaceAllString(firstLine(r.Text), ""))
		if group := strings.TrimSpace(parts[0]); len(parts) > 1 && group != "" {
			r.Section = strings.TrimPrefix(group, "Task Group: ") + " › " + parts[len(parts)-1]
		}
		rules = append(rules, r)
	}
	return rules
}
