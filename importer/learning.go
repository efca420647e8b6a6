package importer

import (
	"fmt"
	"time"

	"github.com/reflectkb/reflect/internal/text"
	"github.com/reflectkb/reflect/store"
)

// maxInsight bounds the key insight: the rule on one line, as recall shows it.
const maxInsight = 300

// harness is the agent whose file each kind is, for source.harness.
var harness = map[Kind]string{
	Claude: "claude", ClaudeMemory: "claude", Agents: "codex", CodexMemories: "codex",
	Gemini: "gemini", Copilot: "copilot", Cursor: "cursor",
}

// Learning makes the rule a learning of type rule. A repository file's
// rules are scoped to project (its name); an agent's own memory stays on
// this machine: private, and personal unless it belongs to project. The
// id follows title, insight and project, so importing the same rule again
// gives the same id, and the same rule in two projects two learnings.
func Learning(f File, r Rule, project string, now time.Time) *store.Learning {
	insight := text.ClipWords(text.OneLine(r.Text), maxInsight)
	body := r.Text + "\n\n" + fmt.Sprintf("_Imported from `%s` line %d", f.Name, r.Line)
	if r.Section != "" {
		body += ", section “" + r.Section + "”"
	}
	body += "._\n"
	l := &store.Learning{
		Title:      r.Title,
		KeyInsight: insight,
		Type:       "rule",
		Confidence: "high",
		Category:   "rule",
		Tags:       []string{"imported", string(f.Kind)},
		Body:       body,
		Source:     &store.Source{Harness: harness[f.Kind], File: f.Name, Line: r.Line},
		Created:    now.UTC().Truncate(time.Second),
	}
	switch {
	case f.Kind == ClaudeMemory || f.Kind == CodexMemories:
		// Notes an agent wrote for this user, not a team's rules.
		l.Confidence = "medium"
		l.Private = true
		l.Scope = "personal"
		if project != "" {
			l.Scope, l.Project = "project", project
		}
	case f.Root != "" && project != "":
		l.Scope, l.Project = "project", project
	}
	l.ID = store.NewID(l.Title, l.KeyInsight+"\n"+l.Project)
	l.Updated = l.Created
	return l
}
