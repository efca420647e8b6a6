package importer

import (
	"sort"

	"github.com/reflectkb/reflect/store"
)

// MinRecalls is how many sessions a learning must have been injected in
// to be suggested for promotion: once may be chance, a repeat is a habit
// of the project's work.
const MinRecalls = 2

// Suggestion is a learning worth a line in the project's instruction file.
type Suggestion struct {
	ID       string `json:"id"`
	Title    string `json:"title"`
	Sessions int    `json:"sessions"` // sessions it was injected in
}

// Suggest lists the learnings that earned promotion: the project's own
// (scope project), of high confidence, injected in at least MinRecalls
// sessions (sessions maps ids to that count), not rules (their file has
// them already), not superseded, and not promoted into content already;
// most recalled first, at most limit.
func Suggest(st *store.Store, project string, sessions map[string]int, content string, limit int) []Suggestion {
	lines, begin, end, _ := managed(content)
	var out []Suggestion
	for id, n := range sessions {
		if n < MinRecalls || (begin >= 0 && hasID(lines[begin:end], id)) {
			continue
		}
		l, err := st.Read(id)
		if err != nil || l.Scope != "project" || l.Project != project || l.Confidence != "high" ||
			l.Type == "rule" || l.SupersededBy != "" {
			continue
		}
		out = append(out, Suggestion{ID: id, Title: l.Title, Sessions: n})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Sessions != out[j].Sessions {
			return out[i].Sessions > out[j].Sessions
		}
		return out[i].ID < out[j].ID
	})
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out
}
