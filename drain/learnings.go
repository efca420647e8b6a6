package drain

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/reflectkb/reflect/drain/writer"
	"github.com/reflectkb/reflect/transcript"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/reflectkb/reflect/index"
	"github.com/reflectkb/reflect/internal/gitrepo"
	"github.com/reflectkb/reflect/internal/redact"
	"github.com/reflectkb/reflect/knowledge"
	"github.com/reflectkb/reflect/queue"
	"github.com/reflectkb/reflect/store"
)

// maxCiteSize bounds the files hashed for cites.
const maxCiteSize = 16 << 20

// Written is a learning an entry wrote, listed once however many of the
// writer's drafts landed on it (a writer repeats itself, and near-
// duplicates of one another update the same document).
type Written struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	// Action is "added" when the entry created the learning, "updated"
	// when it existed before the entry.
	Action string `json:"action"`
}

// writeLearnings turns drafts into documents and sidecars, written and
// indexed through ix. A draft the writer answered "update <id>" for
// updates that learning; one that supersedes a learning is added and
// linked to it; either id must be one of cands, the learnings the writer
// was shown, else the draft is written as new and note says why. A new
// draft that repeats an existing learning (same id, or a near-duplicate)
// updates it instead of adding another. It returns each learning written
// once, in the order first written.
func writeLearnings(ctx context.Context, ix *index.Index, c *transcript.Condensed, drafts []writer.Draft, rec queue.Record, now time.Time, cands []writer.Candidate, note func(string)) ([]Written, error) {
	k := knowledge.New(ix)
	cwd := c.Cwd
	if cwd == "" {
		cwd = rec.Cwd
	}
	project := gitrepo.Project(ctx, cwd)
	var out []Written
	seen := map[string]int{} // id → index in out
	shown := map[string]bool{}
	for _, cand := range cands {
		shown[cand.ID] = true
	}
	for _, d := range drafts {
		d = checkAnswer(d, shown, note)
		l, sc := toLearning(d, c, rec, project, cwd, now)
		var res knowledge.PutResult
		var err error
		switch {
		case d.Update != "":
			// The learning updated keeps its type, scope and project:
			// the writer rewords what it says, not where it belongs.
			l.ID, l.Type, l.Scope, l.Project = d.Update, "", "", ""
			if sc != nil {
				sc.DocumentID = d.Update
			}
			res, err = k.Update(ctx, d.Update, l, sc, now)
			var de *store.DocError
			if errors.Is(err, store.ErrNotFound) || errors.As(err, &de) {
				// Forgotten (or broken by hand) since it was shown: the
				// draft is new, rather than the entry retried for it.
				note("update " + d.Update + ": " + err.Error() + "; written as new")
				l, sc = toLearning(d, c, rec, project, cwd, now)
				res, err = k.Put(ctx, l, sc, now)
			}
		default:
			if dup := k.DuplicateOf(ctx, l); dup != "" && dup != d.Supersedes {
				l.ID = dup
				if sc != nil {
					sc.DocumentID = dup
				}
			}
			res, err = k.Put(ctx, l, sc, now)
		}
		// ErrBusy: the learning is on disk and another process's update
		// outlasted the wait; the next refresh indexes it. Failing here
		// would run the writer (and pay for it) again for nothing.
		if err != nil && !errors.Is(err, index.ErrBusy) {
			return out, fmt.Errorf("write learning %q: %w", l.Title, err)
		}
		if i, ok := seen[l.ID]; ok {
			// Written before in this entry: it keeps the action it had
			// then (added stays added) and shows the latest title.
			out[i].Title = l.Title
			continue
		}
		action := res.Action
		if action == "" {
			action = "added"
		}
		seen[l.ID] = len(out)
		out = append(out, Written{ID: l.ID, Title: l.Title, Action: action})
	}
	return out, nil
}

// checkAnswer keeps the writer's update and supersedes only when they name
// a learning it was shown: anything else (an id it made up, or one a
// hostile transcript put in its mouth) is dropped, the draft written as
// new, and note says so. A draft cannot both update and supersede: update
// wins, since it names the learning the draft is.
func checkAnswer(d writer.Draft, shown map[string]bool, note func(string)) writer.Draft {
	if d.Update != "" && !shown[d.Update] {
		note("writer answered update " + d.Update + ", which it was not shown; written as new")
		d.Update = ""
	}
	if d.Supersedes != "" && !shown[d.Supersedes] {
		note("writer answered supersede " + d.Supersedes + ", which it was not shown; written as new")
		d.Supersedes = ""
	}
	if d.Update != "" && d.Supersedes != "" {
		note("writer answered both update " + d.Update + " and supersede " + d.Supersedes + "; updated")
		d.Supersedes = ""
	}
	return d
}

// toLearning builds the document for a draft. Every text is redacted again:
// a writer may have echoed a secret the condenser's patterns missed in
// another form, and nothing unredacted may reach the knowledge base.
func toLearning(d writer.Draft, c *transcript.Condensed, rec queue.Record, project, cwd string, now time.Time) (*store.Learning, *store.Sidecar) {
	clean := redact.String
	l := &store.Learning{
		Title:      clean(d.Title),
		KeyInsight: clean(d.KeyInsight),
		Type:       "learning",
		Confidence: d.Confidence,
		Category:   clean(d.Category),
		Created:    now,
		Updated:    now,
		Source:     &store.Source{Harness: string(rec.Harness), SessionID: rec.SessionID, Trigger: string(rec.Trigger)},
		Project:    project,
		Scope:      "global",
		Supersedes: d.Supersedes,
	}
	if project != "" {
		l.Scope = "project"
	}
	for _, t := range d.Tags {
		l.Tags = append(l.Tags, clean(t))
	}
	for _, s := range d.Symptoms {
		l.Symptoms = append(l.Symptoms, clean(s))
	}
	for _, p := range d.Cites {
		l.Cites = append(l.Cites, cite(cwd, p))
	}
	var b strings.Builder
	if d.Problem != "" {
		fmt.Fprintf(&b, "## Problem\n%s\n\n", clean(d.Problem))
	}
	if d.Solution != "" {
		fmt.Fprintf(&b, "## Solution\n%s\n\n", clean(d.Solution))
	}
	where := c.Harness + " session"
	if cwd != "" {
		where += " in " + cwd
	}
	if c.Branch != "" {
		where += " on branch " + c.Branch
	}
	fmt.Fprintf(&b, "## Context\nReflected from a %s on %s.\n", clean(where), now.UTC().Format("2006-01-02"))
	l.Body = b.String()
	l.FillDefaults(now)

	if len(d.Entities) == 0 {
		return l, nil // the index extracts entities heuristically
	}
	sc := &store.Sidecar{DocumentID: l.ID, Relationships: []store.Relationship{}}
	for _, e := range d.Entities {
		e.Name, e.Description = clean(e.Name), clean(e.Description)
		sc.Entities = append(sc.Entities, e)
	}
	for _, r := range d.Relations {
		r.Source, r.Target, r.Description = clean(r.Source), clean(r.Target), clean(r.Description)
		sc.Relationships = append(sc.Relationships, r)
	}
	if sc.Validate() != nil {
		return l, nil // a sidecar the store would refuse is worth less than the learning
	}
	return l, sc
}

// cite records a cited file with the sha256 of its current content when it
// exists, so recall can later tell that the file changed.
func cite(cwd, path string) store.Cite {
	c := store.Cite{Path: path}
	full := path
	if !filepath.IsAbs(full) {
		if cwd == "" {
			return c
		}
		full = filepath.Join(cwd, path)
	}
	f, err := os.Open(full)
	if err != nil {
		return c
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() || fi.Size() > maxCiteSize {
		return c
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err == nil {
		c.SHA256 = hex.EncodeToString(h.Sum(nil))
	}
	return c
}
