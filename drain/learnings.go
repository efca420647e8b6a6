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
	// Pending says it awaits review ('reflect review').
	Pending bool `json:"pending,omitempty"`
	// Updates names the active learning this pending draft would rewrite
	// once approved (the learning itself is left as it was).
	Updates string `json:"updates,omitempty"`
}

// draftOptions say how writeLearnings writes an entry's drafts.
type draftOptions struct {
	// pending writes them as drafts awaiting review (status: pending).
	pending bool
	// rejected are the fingerprints of drafts the user rejected
	// (knowledge.Fingerprint): a draft with one of them is not written.
	rejected map[string]bool
}

// drafted is what writeLearnings did: each learning written once, in the
// order first written, and how many drafts it refused as rejected before.
type drafted struct {
	learnings []Written
	refused   int
}

// writeLearnings turns drafts into documents and sidecars, written and
// indexed through ix. A draft the writer answered "update <id>" for
// updates that learning; one that supersedes a learning is added and
// linked to it; either id must be one of cands, the learnings the writer
// was shown, else the draft is written as new and note says why. A new
// draft that repeats an existing learning (same id, or a near-duplicate)
// updates it instead of adding another; one the user rejected before is
// not written. Under review, what it writes is pending, and an update of
// an active learning is a separate pending draft that names it (updates):
// the new content is the writer's, not yet the user's, and the learning
// the user approved or wrote stays injected as it is meanwhile.
func writeLearnings(ctx context.Context, ix *index.Index, c *transcript.Condensed, drafts []writer.Draft, rec queue.Record, now time.Time, cands []writer.Candidate, note func(string), opts draftOptions) (drafted, error) {
	k := knowledge.New(ix)
	cwd := c.Cwd
	if cwd == "" {
		cwd = rec.Cwd
	}
	project := gitrepo.Project(ctx, cwd)
	var res drafted
	out := []Written(nil)
	seen := map[string]int{} // id → index in out
	shown := map[string]bool{}
	for _, cand := range cands {
		shown[cand.ID] = true
	}
	for _, d := range drafts {
		d = checkAnswer(d, shown, note)
		l, sc := toLearning(d, c, rec, project, cwd, now)
		if opts.rejected[knowledge.Fingerprint(l)] {
			res.refused++
			continue
		}
		if opts.pending {
			l.Status = store.StatusPending
		}
		put, err := putDraft(ctx, k, d, l, sc, now, note)
		if err != nil {
			res.learnings = out
			return res, fmt.Errorf("write learning %q: %w", l.Title, err)
		}
		if put.learning != nil {
			l = put.learning
		}
		if i, ok := seen[l.ID]; ok {
			// Written before in this entry: it keeps the action it had
			// then (added stays added) and shows the latest title.
			out[i].Title = l.Title
			continue
		}
		action := put.Action
		if action == "" {
			action = "added"
		}
		seen[l.ID] = len(out)
		out = append(out, Written{ID: l.ID, Title: l.Title, Action: action, Pending: l.Pending(), Updates: l.Updates})
	}
	res.learnings = out
	return res, nil
}

// putResult is what putDraft wrote: the knowledge base's result and the
// learning written, when it is not the one putDraft was given (the
// update of another learning, or a proposal beside it).
type putResult struct {
	knowledge.PutResult
	learning *store.Learning
}

// putDraft writes one draft under the drafts lock, so that a review
// approving or rejecting that learning at the same moment does not write
// over it (or it over the review). An "update <id>" answer updates that
// learning, keeping its type, scope and project (the writer rewords what
// it says, not where it belongs); a learning forgotten or broken by hand
// since it was shown gets the draft as new, as it was drafted, rather
// than the entry retried. Otherwise the draft updates the learning it
// near-duplicates, unless that is the one it supersedes. A pending draft
// whose learning is active (approved or written by the user) is proposed
// beside it instead (knowledge.ProposeUpdate); one that lands on a pending
// draft rewrites that draft, and keeps what it proposes to update. ErrBusy
// is not an error: the learning is on disk and another process's index
// update outlasted the wait; the next refresh indexes it. Failing there
// would run the writer (and pay for it) again for nothing.
func putDraft(ctx context.Context, k *knowledge.Base, d writer.Draft, l *store.Learning, sc *store.Sidecar, now time.Time, note func(string)) (putResult, error) {
	unlock, err := k.LockDrafts(ctx)
	if err != nil {
		return putResult{}, err
	}
	defer unlock()
	var res putResult
	dup := ""
	if d.Update == "" {
		if dup = k.DuplicateOf(ctx, l); dup == d.Supersedes {
			dup = ""
		}
	}
	if target := activeTarget(k, d, l, dup); target != "" {
		res.learning = l
		res.PutResult, err = k.ProposeUpdate(ctx, target, l, sc, now)
	} else if d.Update != "" {
		patch, psc := *l, sidecarFor(sc, d.Update)
		patch.ID, patch.Type, patch.Scope, patch.Project = d.Update, "", "", ""
		res.learning = &patch
		res.PutResult, err = k.Update(ctx, d.Update, &patch, psc, now)
		var de *store.DocError
		if errors.Is(err, store.ErrNotFound) || errors.As(err, &de) {
			note("update " + d.Update + ": " + err.Error() + "; written as new")
			res.learning = l
			res.PutResult, err = k.Put(ctx, l, sc, now)
		}
	} else {
		if dup != "" {
			l.ID = dup
			if sc != nil {
				sc.DocumentID = dup
			}
		}
		if old, err := k.Store().Read(l.ID); err == nil && old.Pending() && l.Pending() {
			l.Updates = old.Updates
		}
		res.PutResult, err = k.Put(ctx, l, sc, now)
	}
	if err != nil && !errors.Is(err, index.ErrBusy) {
		return res, err
	}
	return res, nil
}

// sidecarFor is sc as the sidecar of document id: a copy, so that sc stays
// the draft's own; nil for none.
func sidecarFor(sc *store.Sidecar, id string) *store.Sidecar {
	if sc == nil {
		return nil
	}
	c := *sc
	c.DocumentID = id
	return &c
}

// activeTarget returns, for a pending draft l, the active learning it
// would rewrite: the one the writer answered update for, else the one l
// repeats (dup, its near-duplicate, or its own id); "" when l is not
// pending (no review: it rewrites that learning in place), or that
// learning is pending or does not exist.
func activeTarget(k *knowledge.Base, d writer.Draft, l *store.Learning, dup string) string {
	if !l.Pending() {
		return ""
	}
	id := d.Update
	if id == "" {
		id = l.ID
		if dup != "" {
			id = dup
		}
	}
	t, err := k.Store().Read(id)
	if err != nil || t.Pending() {
		return ""
	}
	return id
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
	for _, q := range d.Questions {
		l.Questions = append(l.Questions, clean(q))
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
