package drain

import (
	"context"
	"sort"
	"strings"

	"github.com/reflectkb/reflect/drain/writer"
	"github.com/reflectkb/reflect/index"
	"github.com/reflectkb/reflect/transcript"
)

// maxCandidateQueries bounds the failures searched for candidates: the
// first few failures of a session are what its learnings are about.
const maxCandidateQueries = 4

// candidates finds the existing learnings nearest the session's failures
// (its failed commands and their errors, else its first prompt), best
// first: what an LLM writer is shown so that it can answer update,
// supersede or new instead of repeating a learning (ARCHITECTURE §6). A
// superseded learning is no candidate (its replacement speaks for it),
// nor is a rule, which its instruction file owns.
func candidates(ctx context.Context, ix *index.Index, c *transcript.Condensed, project string) []writer.Candidate {
	var queries []string
	for _, ev := range c.Events {
		if ev.Kind == transcript.ToolFailed && len(queries) < maxCandidateQueries {
			queries = append(queries, ev.Command+" "+ev.Text)
		}
	}
	if len(queries) == 0 {
		for _, ev := range c.Events {
			if ev.Kind == transcript.UserPrompt {
				queries = append(queries, ev.Text)
				break
			}
		}
	}
	best := map[string]index.Result{}
	for _, q := range queries {
		if strings.TrimSpace(q) == "" {
			continue
		}
		res, err := ix.Search(ctx, index.Query{Text: q, Limit: writer.MaxCandidates, Project: project, Rerank: true})
		if err != nil {
			continue
		}
		for _, r := range res {
			if r.Held == "superseded" || r.Weak || r.Type == "rule" {
				continue
			}
			if old, ok := best[r.ID]; !ok || r.Score > old.Score {
				best[r.ID] = r
			}
		}
	}
	list := make([]index.Result, 0, len(best))
	for _, r := range best {
		list = append(list, r)
	}
	sort.Slice(list, func(i, j int) bool {
		if list[i].Score != list[j].Score {
			return list[i].Score > list[j].Score
		}
		return list[i].ID < list[j].ID
	})
	var out []writer.Candidate
	for _, r := range list {
		if len(out) == writer.MaxCandidates {
			break
		}
		out = append(out, writer.Candidate{ID: r.ID, Title: r.Title, KeyInsight: r.KeyInsight})
	}
	return out
}
