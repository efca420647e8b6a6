package drain

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/reflectkb/reflect/index"
	"github.com/reflectkb/reflect/internal/gitrepo"
	"github.com/reflectkb/reflect/internal/redact"
	"github.com/reflectkb/reflect/queue"
	"github.com/reflectkb/reflect/store"
)

// nearDuplicate is the share of title and key-insight terms two learnings
// must have in common (Jaccard) to count as the same lesson: writers
// rephrase, and a reworded repeat should update the learning it repeats,
// not sit beside it.
const nearDuplicate = 0.6

// maxCiteSize bounds the files hashed for cites.
const maxCiteSize = 16 << 20

// writeLearnings turns drafts into documents and sidecars, written and
// indexed through ix. A draft that repeats an existing learning (same id,
// or a near-duplicate) updates it instead of adding another.
func writeLearnings(ctx context.Context, ix *index.Index, c *Condensed, drafts []Draft, rec queue.Record, now time.Time) ([]string, error) {
	cwd := c.Cwd
	if cwd == "" {
		cwd = rec.Cwd
	}
	project := gitrepo.Project(ctx, cwd)
	var ids []string
	for _, d := range drafts {
		l, sc := toLearning(d, c, rec, project, cwd, now)
		if dup := findDuplicate(ctx, ix, l); dup != "" {
			l.ID = dup
			if sc != nil {
				sc.DocumentID = dup
			}
		}
		// ErrBusy: the learning is on disk and another process's update
		// outlasted the wait; the next refresh indexes it. Failing here
		// would run the writer (and pay for it) again for nothing.
		if _, err := ix.Put(ctx, l, sc, now); err != nil && !errors.Is(err, index.ErrBusy) {
			return ids, fmt.Errorf("write learning %q: %w", l.Title, err)
		}
		ids = append(ids, l.ID)
	}
	return ids, nil
}

// toLearning builds the document for a draft. Every text is redacted again:
// a writer may have echoed a secret the condenser's patterns missed in
// another form, and nothing unredacted may reach the knowledge base.
func toLearning(d Draft, c *Condensed, rec queue.Record, project, cwd string, now time.Time) (*store.Learning, *store.Sidecar) {
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

// findDuplicate returns the id of an existing learning that says the same
// as l: l's own id when it exists (Put updates it), else the best search hit
// whose title and key insight share at least nearDuplicate of their terms.
func findDuplicate(ctx context.Context, ix *index.Index, l *store.Learning) string {
	if _, err := ix.Store().Read(l.ID); err == nil {
		return ""
	}
	results, err := ix.Search(ctx, index.Query{Text: l.Title + " " + l.KeyInsight, Limit: 5})
	if err != nil {
		return ""
	}
	mine := termSet(l.Title + " " + l.KeyInsight)
	best, bestSim := "", 0.0
	for _, r := range results {
		if sim := jaccard(mine, termSet(r.Title+" "+r.KeyInsight)); sim > bestSim {
			best, bestSim = r.ID, sim
		}
	}
	if bestSim >= nearDuplicate {
		return best
	}
	return ""
}

func termSet(text string) map[string]bool {
	m := map[string]bool{}
	for _, t := range index.Terms(text) {
		m[t] = true
	}
	return m
}

func jaccard(a, b map[string]bool) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	inter := 0
	for t := range a {
		if b[t] {
			inter++
		}
	}
	return float64(inter) / float64(len(a)+len(b)-inter)
}
