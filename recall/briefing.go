package recall

import (
	"context"
	"math"
	"slices"
	"time"

	"github.com/reflectkb/reflect/index"
)

// The session-start briefing: the learnings written for the project a
// session opens in enter its block whether or not the project's name,
// branch or recent commits share their words (a repository whose only
// commit is "init" has none to share). Global learnings still pass the
// relevance floor; another project's learnings never enter the block.

// briefingCandidates is how many of a project's most recently updated
// learnings are ranked: recency weighs in the rank, so older ones would
// rarely win a slot.
const briefingCandidates = 50

// briefingHalfLife is the age at which a project learning's recency
// weight halves: a project's conventions last, its incidents fade.
const briefingHalfLife = 90 * 24 * time.Hour

// projectBriefing returns the learnings of project (not global ones), best
// first by project match × confidence × recency. Every candidate matches
// the project, so the match is the same for all; usefulness, once recall
// feedback exists, is the next factor.
func projectBriefing(ctx context.Context, ix *index.Index, project string, now time.Time) ([]index.Result, error) {
	if project == "" {
		return nil, nil
	}
	rs, err := ix.ProjectLearnings(ctx, project, briefingCandidates)
	if err != nil || len(rs) == 0 {
		return nil, err
	}
	for i := range rs {
		rs[i].Score = briefingScore(rs[i], now)
	}
	slices.SortStableFunc(rs, func(a, b index.Result) int {
		switch {
		case a.Score > b.Score:
			return -1
		case a.Score < b.Score:
			return 1
		}
		return 0
	})
	return rs, nil
}

// briefingScore is confidence × recency for one project learning.
func briefingScore(r index.Result, now time.Time) float64 {
	conf := 0.4
	switch r.Confidence {
	case "high":
		conf = 1
	case "medium":
		conf = 0.7
	}
	recency := 1.0
	if t, err := time.Parse(time.RFC3339, r.Updated); err == nil && now.After(t) {
		recency = math.Exp2(-float64(now.Sub(t)) / float64(briefingHalfLife))
	}
	return conf * recency
}

// withBriefing merges the project's briefing into the hits that cleared
// the floor (kept, with their evidence ev), for a session-start block of
// limit learnings: another project's learnings are dropped; the project's
// learnings that cleared the floor come first, then the rest of the
// briefing, but one slot is left to the best other hit (a global one)
// when there is one. The order is what choose takes from, so hits the
// session already has give way to the next.
func withBriefing(brief, kept []index.Result, ev []float64, project string, limit int) ([]index.Result, []float64) {
	var mine, others []index.Result
	var mineEv, othersEv []float64
	inKept := map[string]bool{}
	for i, r := range kept {
		switch {
		case otherProject(r, project):
			continue
		case r.Project == project && r.Scope != "global":
			mine, mineEv = append(mine, r), append(mineEv, ev[i])
		default:
			others, othersEv = append(others, r), append(othersEv, ev[i])
		}
		inKept[r.ID] = true
	}
	for _, r := range brief {
		if !inKept[r.ID] {
			mine, mineEv = append(mine, r), append(mineEv, 0)
		}
	}
	slots := limit
	if len(others) > 0 {
		slots = limit - 1
	}
	slots = min(max(slots, 0), len(mine))
	out := append(append(append([]index.Result{}, mine[:slots]...), others...), mine[slots:]...)
	outEv := append(append(append([]float64{}, mineEv[:slots]...), othersEv...), mineEv[slots:]...)
	return out, outEv
}

// otherProject reports whether r belongs to a project other than the
// session's: a learning scoped to a project is for that project alone.
func otherProject(r index.Result, project string) bool {
	return r.Scope != "global" && r.Project != "" && r.Project != project
}
