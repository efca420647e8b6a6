package drain

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/reflectkb/reflect/index"
	"github.com/reflectkb/reflect/internal/cmdkey"
	"github.com/reflectkb/reflect/internal/gitrepo"
	"github.com/reflectkb/reflect/knowledge"
	"github.com/reflectkb/reflect/recall"
	"github.com/reflectkb/reflect/store"
	"github.com/reflectkb/reflect/transcript"
)

// The drainer turns what a session did into evidence about the learnings
// (docs/ranking.md, "Signals from the loop"):
//   - a learning injected in the session (the injection ledger) whose
//     failing command then failed again the same way is refuted; one whose
//     command then succeeded, and never failed the same way, is confirmed;
//   - a learning of the project (not global) not injected whose failing
//     command succeeded in the session, with no failure of it, is stale:
//     the problem went away without it;
//   - a learning of the project whose cited files are all gone from the
//     session's checkout is stale.
//
// Transcripts do not give every event a time in every format, so every run
// in a session a learning was injected in counts as after the injection:
// the pre-tool hook injects a learning just before the first run of its
// command, which makes that exact whenever the hook is installed.

// sameWayShare is the share of a symptom's terms an error must contain to
// be the same failure: a fixed, untuned choice, like the near-duplicate
// rule's share (no labelled set of repeated failures exists to tune it).
const sameWayShare = 0.6

// ledgerLookback is how far before a session was queued its injections
// are looked for: a session lasts hours, not weeks.
const ledgerLookback = 7 * 24 * time.Hour

// maxStaleChecks bounds the learnings one command's success is checked
// against.
const maxStaleChecks = 20

// sessionSignals works out the signals of one drained session and records
// them through knowledge; it returns what it recorded. A signal that
// cannot be worked out is skipped: this is evidence, never a reason to
// retry an entry whose learnings are written.
func (r *entryRun) sessionSignals(ctx context.Context, c *transcript.Condensed, project, cwd string) []knowledge.Signal {
	session := r.rec.SessionID
	if session == "" {
		session = c.SessionID
	}
	k := knowledge.New(r.ix)
	injected := map[string]bool{}
	if session != "" {
		inj, _ := recall.ReadLedger(r.opts.StateDir, recall.LedgerFilter{Session: session, Since: r.rec.QueuedAt.Add(-ledgerLookback)})
		for _, in := range inj {
			for _, id := range in.IDs {
				injected[id] = true
			}
		}
	}
	var found []knowledge.Signal
	counted, added := loadCounted(r.opts.StateDir), false
	for _, id := range sortedKeys(injected) {
		if counted.has(session, id) {
			continue
		}
		l, err := k.Store().Read(id)
		if err != nil || (l.Source != nil && l.Source.SessionID == session) {
			// A learning this session wrote (a mini-learning, or one
			// drained at a compaction) was born of its failures: they
			// came before it and say nothing of it.
			continue
		}
		if kind := verdict(l, c.Runs); kind != "" {
			found = append(found, knowledge.Signal{ID: id, Kind: kind})
		}
	}
	if project != "" {
		found = append(found, staleBySuccess(ctx, k, c.Runs, injected, project, r.rec.QueuedAt)...)
		found = append(found, staleByCites(ctx, k, project, cwd)...)
	}
	var recorded []knowledge.Signal
	for _, s := range found {
		if ok, err := k.RecordSignal(ctx, s); err == nil && ok {
			recorded = append(recorded, s)
			if s.Kind != knowledge.SignalStale {
				counted.add(session, s.ID, r.opts.Now())
				added = true
			}
		}
	}
	if added {
		_ = counted.save(r.opts.StateDir, r.opts.Now())
	}
	return recorded
}

// verdict is what runs say of a learning injected in their session:
// refuted when one of its commands failed the same way it records,
// confirmed when they succeeded and never failed so, "" when they say
// nothing about it.
func verdict(l *store.Learning, runs []transcript.Run) string {
	keys := cmdkey.Recorded(l.Title+"\n"+l.KeyInsight, l.Symptoms)
	ok := false
	for _, run := range runs {
		if !slices.Contains(keys, run.Key) {
			continue
		}
		for _, e := range run.Errors {
			if sameWay(e, l.Symptoms) {
				return knowledge.SignalRefuted
			}
		}
		if run.OK > 0 {
			ok = true
		}
	}
	if ok {
		return knowledge.SignalConfirmed
	}
	return ""
}

// sameWay reports whether the error head e is a failure a symptom
// describes: it holds sameWayShare of one symptom's terms. A learning
// without symptoms cannot be refuted, since nothing says how it failed.
func sameWay(e string, symptoms []string) bool {
	have := map[string]bool{}
	for _, t := range index.Terms(e) {
		have[t] = true
	}
	for _, s := range symptoms {
		terms := index.Terms(s)
		if len(terms) == 0 {
			continue
		}
		n := 0
		for _, t := range terms {
			if have[t] {
				n++
			}
		}
		if float64(n) >= sameWayShare*float64(len(terms)) {
			return true
		}
	}
	return false
}

// staleBySuccess finds the learnings of project (not global), not injected in the
// session, that record as failing a command the session ran with success
// every time, and that were neither updated nor reviewed since the
// session was queued.
func staleBySuccess(ctx context.Context, k *knowledge.Base, runs []transcript.Run, injected map[string]bool, project string, at time.Time) []knowledge.Signal {
	var out []knowledge.Signal
	for _, run := range runs {
		if run.OK == 0 || run.Failed > 0 {
			continue
		}
		hits, err := k.Index().FailedCommands(ctx, []string{run.Key}, maxStaleChecks)
		if err != nil {
			continue
		}
		for _, h := range hits {
			// A global learning speaks for every project: its command
			// working in the one it was learned in does not retire it.
			if injected[h.ID] || h.Scope == "global" || !strings.EqualFold(h.Project, project) {
				continue
			}
			l, err := k.Store().Read(h.ID)
			if err != nil {
				continue
			}
			last := l.Updated
			if last.IsZero() {
				last = l.Created
			}
			if !last.Before(at) || (l.Feedback != nil && !l.Feedback.Reviewed.Before(at)) {
				continue
			}
			out = append(out, knowledge.Signal{ID: h.ID, Kind: knowledge.SignalStale,
				Reason: fmt.Sprintf("`%s` succeeded in this project on %s", run.Key, at.UTC().Format(time.DateOnly))})
		}
	}
	return out
}

// staleByCites finds the learnings of project whose cited files are all
// gone from the session's checkout. Cites are relative to the session's
// working directory (as recall resolves them); a path found under it or
// under the repository's root is there. A checkout that is itself gone,
// or that is another project's, says nothing.
func staleByCites(ctx context.Context, k *knowledge.Base, project, cwd string) []knowledge.Signal {
	if cwd == "" || !filepath.IsAbs(cwd) {
		return nil
	}
	if fi, err := os.Stat(cwd); err != nil || !fi.IsDir() || !strings.EqualFold(gitrepo.Project(ctx, cwd), project) {
		return nil
	}
	roots := []string{cwd}
	if root := gitrepo.Root(cwd); root != "" && root != cwd {
		roots = append(roots, root)
	}
	citing, err := k.Index().CitingLearnings(ctx, project)
	if err != nil {
		return nil
	}
	var out []knowledge.Signal
	for _, c := range citing {
		gone := allGone(c.Cites, roots)
		if len(gone) == 0 {
			continue
		}
		l, err := k.Store().Read(c.ID)
		if err != nil || (l.Feedback != nil && !l.Feedback.Reviewed.IsZero() && !l.Feedback.Reviewed.Before(l.Updated)) {
			continue // reviewed since its last change: the person said it holds
		}
		out = append(out, knowledge.Signal{ID: c.ID, Kind: knowledge.SignalStale,
			Reason: "cited files gone: " + strings.Join(gone, ", ")})
	}
	return out
}

// allGone returns the cited paths when none of them exists under any of
// roots, nil when one does or cannot be told: an absolute path outside
// the roots (another checkout's, another machine's) cannot.
func allGone(cites []store.Cite, roots []string) []string {
	var gone []string
	for _, c := range cites {
		if c.Path == "" {
			continue
		}
		paths := []string{c.Path}
		if filepath.IsAbs(c.Path) && !slices.ContainsFunc(roots, func(r string) bool { return within(c.Path, r) }) {
			return nil // another checkout's (or machine's) file: says nothing here
		}
		if !filepath.IsAbs(c.Path) {
			paths = paths[:0]
			for _, r := range roots {
				paths = append(paths, filepath.Join(r, c.Path))
			}
		}
		for _, p := range paths {
			if _, err := os.Lstat(p); !errors.Is(err, fs.ErrNotExist) {
				return nil // there, or unreadable: not evidence it is gone
			}
		}
		gone = append(gone, c.Path)
	}
	return gone
}

// within reports whether path is dir or below it.
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
