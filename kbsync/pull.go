package kbsync

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// pull fetches the branch from origin and merges it. Learnings go through
// the merge driver; what git cannot hand to a driver is settled here: a
// learning deleted on one side and edited on the other is kept, and the
// files sync owns (.gitignore, .gitattributes) keep both sides' lines.
// Anything else unmerged aborts the merge, so nothing is lost.
func pull(ctx context.Context, g *gitCmd, opts Options, res *Result) error {
	ref := "refs/remotes/origin/" + opts.Branch
	out, err := g.run(ctx, opts.Timeout, "ls-remote", "--heads", "origin", "refs/heads/"+opts.Branch)
	if err != nil {
		return classify(err)
	}
	if strings.TrimSpace(out) == "" {
		return nil // a new remote: the push creates the branch
	}
	if _, err := g.run(ctx, opts.Timeout, "fetch", "-q", "origin", "+refs/heads/"+opts.Branch+":"+ref); err != nil {
		return classify(err)
	}
	if !g.ok(ctx, "rev-parse", "-q", "--verify", "HEAD") {
		// Nothing committed here yet: take the remote's history as it is.
		_, err := g.run(ctx, 0, "reset", "-q", "--keep", ref)
		if err != nil {
			return fmt.Errorf("%w: %v", ErrConflict, err)
		}
		return nil
	}
	if g.ok(ctx, "merge-base", "--is-ancestor", ref, "HEAD") {
		return nil // nothing new
	}
	_, mergeErr := g.run(ctx, 0, "merge", "-q", "--no-edit", "--allow-unrelated-histories",
		"-m", "reflect sync: merge "+opts.Branch+" of origin on "+opts.Host, ref)
	if mergeErr == nil {
		return nil
	}
	if !merging(ctx, g) {
		// Refused before starting, e.g. a held-back file the remote changed.
		return fmt.Errorf("%w: %v", ErrConflict, mergeErr)
	}
	if err := settle(ctx, g, res); err != nil {
		_, _ = g.run(ctx, 0, "merge", "--abort")
		return err
	}
	if _, err := g.run(ctx, 0, "commit", "-q", "--no-verify", "--no-edit"); err != nil {
		_, _ = g.run(ctx, 0, "merge", "--abort")
		return err
	}
	return nil
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
			ours, _ := g.run(ctx, 0, "show", ":2:"+p)
			theirs, _ := g.run(ctx, 0, "show", ":3:"+p)
			if err := os.WriteFile(filepath.Join(g.dir, p), []byte(ours), 0o644); err != nil {
				return err
			}
			if err := ensureLines(filepath.Join(g.dir, p), theirs); err != nil {
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
