package kbsync

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/reflectkb/reflect/internal/fsutil"
	"github.com/reflectkb/reflect/store"
)

// pull fetches the branch from origin, inspects what it would bring
// (inspect) and merges it. Learnings go through the merge driver; what git
// cannot hand to a driver is settled here: a learning deleted on one side
// and edited on the other is kept, and the files sync owns (.gitignore,
// .gitattributes) keep this machine's lines and reflect's, never lines
// the remote added. Anything else unmerged aborts the merge, so nothing is
// lost. It adds to res what the merge brought (Pulled, NeedsReview, Kept,
// Refused) and returns the files the merge left for this machine to
// commit: learnings the driver wrote under a new id, and owned files it
// rewrote.
func pull(ctx context.Context, g *gitCmd, opts Options, res *Result) ([]string, error) {
	ref := "refs/remotes/origin/" + opts.Branch
	out, err := g.run(ctx, opts.Timeout, "ls-remote", "--heads", "origin", "refs/heads/"+opts.Branch)
	if err != nil {
		return nil, classify(err)
	}
	if strings.TrimSpace(out) == "" {
		return nil, nil // a new remote: the push creates the branch
	}
	if _, err := g.run(ctx, opts.Timeout, "fetch", "-q", "--no-recurse-submodules", "origin", "+refs/heads/"+opts.Branch+":"+ref); err != nil {
		return nil, classify(err)
	}
	if opts.afterFetch != nil {
		opts.afterFetch()
	}
	unborn := !g.ok(ctx, "rev-parse", "-q", "--verify", "HEAD")
	var bases []string
	if !unborn {
		if g.ok(ctx, "merge-base", "--is-ancestor", ref, "HEAD") {
			return nil, nil // nothing new
		}
		out, _ := g.run(ctx, 0, "merge-base", "--all", "HEAD", ref) // none: unrelated histories
		bases = strings.Fields(out)
	}
	// Nothing of the remote reaches the work tree before it is inspected.
	refused, err := inspect(ctx, g, ref, bases)
	if err != nil {
		return nil, err
	}
	target := ref
	if len(refused) > 0 {
		res.Refused = append(res.Refused, refused...)
		if wholeRefusal(refused) {
			return nil, &RefusedError{Refused: refused, Whole: true}
		}
		if target, err = sanitise(ctx, g, ref, bases, refused, opts.Host); err != nil {
			return nil, &RefusedError{Refused: refused, Whole: true}
		}
	}
	if unborn {
		// Nothing committed here yet: take the remote's history as it is.
		if _, err := g.run(ctx, 0, "reset", "-q", "--keep", target); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrConflict, err)
		}
		out, _ := g.run(ctx, 0, "ls-tree", "-r", "--name-only", "-z", target, "--", "documents")
		res.Pulled = appendNew(res.Pulled, splitZ(out)...)
		return nil, nil
	}
	before := head(ctx, g)
	logPath, err := gitPath(ctx, g, mergeLogName)
	if err != nil {
		return nil, err
	}
	_ = os.Remove(logPath)
	defer os.Remove(logPath)
	gm := &gitCmd{dir: g.dir, env: append(append([]string(nil), g.env...), mergeLogEnv+"="+logPath,
		mergeHostEnv+"="+opts.Host, mergeTheirsEnv+"="+target, mergeBasesEnv+"="+strings.Join(bases, " "))}
	_, mergeErr := gm.run(ctx, 0, "merge", "-q", "--no-edit", "--allow-unrelated-histories",
		"-m", "reflect sync: merge "+opts.Branch+" of origin on "+opts.Host, target)
	if mergeErr != nil {
		if !merging(ctx, g) {
			// Refused before starting, e.g. a held-back file the remote changed.
			return nil, fmt.Errorf("%w: %v", ErrConflict, mergeErr)
		}
		if err := settle(ctx, g, res); err != nil {
			_, _ = g.run(ctx, 0, "merge", "--abort")
			return nil, err
		}
		if _, err := g.run(ctx, 0, "commit", "-q", "--no-verify", "--no-edit"); err != nil {
			_, _ = g.run(ctx, 0, "merge", "--abort")
			return nil, err
		}
	}
	// What the merge brought is the difference it made to this branch:
	// never a local commit, never what a hook wrote meanwhile.
	out, err = g.run(ctx, 0, "diff", "--name-only", "--no-renames", "-z", before, "HEAD", "--", "documents")
	if err != nil {
		return nil, err
	}
	res.Pulled = appendNew(res.Pulled, splitZ(out)...)
	renamed, review := readMergeLog(logPath)
	res.Pulled = appendNew(res.Pulled, renamed...)
	res.NeedsReview = appendNew(res.NeedsReview, review...)
	commit := renamed
	for p := range ownedFiles {
		changed, err := keepOwnLines(ctx, g, before, p)
		if err != nil {
			return nil, err
		}
		if changed {
			commit = append(commit, p)
		}
	}
	return commit, nil
}

// appendNew appends the values of add that list lacks.
func appendNew(list []string, add ...string) []string {
	for _, a := range add {
		if !slices.Contains(list, a) {
			list = append(list, a)
		}
	}
	return list
}

// gitPath is the absolute path of a file in the repository's git directory.
func gitPath(ctx context.Context, g *gitCmd, name string) (string, error) {
	out, err := g.run(ctx, 0, "rev-parse", "--git-path", name)
	if err != nil {
		return "", err
	}
	p := strings.TrimSpace(out)
	if !filepath.IsAbs(p) {
		p = filepath.Join(g.dir, p)
	}
	return p, nil
}

// keepOwnLines drops from the owned file p the lines the merge brought in:
// it keeps the lines it had before the merge (at before) and reflect's own,
// so a remote can neither switch off the merge driver nor hide learnings
// from sync with a line of its own. It reports whether it changed the file.
func keepOwnLines(ctx context.Context, g *gitCmd, before, p string) (bool, error) {
	file := filepath.Join(g.dir, p)
	// The merge just wrote it from the remote: read it bounded, as a
	// regular file only (the inspection already refused links and sizes
	// over the cap; this holds even if that check is bypassed).
	data, err := fsutil.ReadRegular(file, store.MaxDocumentSize)
	if errors.Is(err, os.ErrNotExist) {
		data = nil
	} else if err != nil {
		return false, err
	}
	ours, _ := g.run(ctx, 0, "show", before+":"+p)
	allowed := map[string]bool{}
	for _, l := range strings.Split(ours+"\n"+ownedText[p], "\n") {
		allowed[strings.TrimSpace(l)] = true
	}
	var keep []string
	for _, l := range strings.SplitAfter(string(data), "\n") {
		if l != "" && allowed[strings.TrimSpace(l)] {
			keep = append(keep, l)
		}
	}
	out := strings.Join(keep, "")
	if out != string(data) {
		if err := fsutil.WriteAtomic(file, []byte(out), 0o644); err != nil {
			return false, err
		}
	}
	if err := ensureLines(file, ownedText[p]); err != nil {
		return false, err
	}
	now, _ := fsutil.ReadRegular(file, store.MaxDocumentSize)
	return string(now) != string(data), nil
}

func merging(ctx context.Context, g *gitCmd) bool {
	return g.ok(ctx, "rev-parse", "-q", "--verify", "MERGE_HEAD")
}

// settle resolves the unmerged paths it knows how to, or says which one it
// cannot.
func settle(ctx context.Context, g *gitCmd, res *Result) error {
	out, err := g.run(ctx, 0, "ls-files", "-u", "-z")
	if err != nil {
		return err
	}
	stages := map[string]map[string]bool{}
	var order []string
	for _, rec := range splitZ(out) {
		// "<mode> <object> <stage>\t<path>"
		meta, p, ok := strings.Cut(rec, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 3 {
			continue
		}
		if stages[p] == nil {
			stages[p] = map[string]bool{}
			order = append(order, p)
		}
		stages[p][f[2]] = true
	}
	for _, p := range order {
		s := stages[p]
		switch {
		case ownedFiles[p] && s["2"] && s["3"]:
			// This machine's lines and reflect's: a remote's never.
			ours, _ := g.run(ctx, 0, "show", ":2:"+p)
			if err := os.WriteFile(filepath.Join(g.dir, p), []byte(ours), 0o644); err != nil {
				return err
			}
			if err := ensureLines(filepath.Join(g.dir, p), ownedText[p]); err != nil {
				return err
			}
		case strings.HasPrefix(p, "documents/") && s["1"] && s["2"] != s["3"]:
			// Deleted on one side, edited on the other: keep the edit.
			side := "--ours"
			if s["3"] {
				side = "--theirs"
			}
			if _, err := g.run(ctx, 0, "checkout", side, "--", p); err != nil {
				return err
			}
			res.Kept = append(res.Kept, p)
		default:
			return fmt.Errorf("%w: %s (the merge was aborted; nothing was lost)", ErrConflict, p)
		}
		if _, err := g.run(ctx, 0, "add", "--", p); err != nil {
			return err
		}
	}
	if len(order) == 0 {
		return errors.New("git merge failed without a conflict to settle")
	}
	return nil
}
