package kbsync

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/reflectkb/reflect/internal/fsutil"
	"github.com/reflectkb/reflect/internal/lazyre"
	"github.com/reflectkb/reflect/store"
)

// DriverResult says what MergeFile did with one file.
type DriverResult struct {
	// Clean is false when conflict markers were left for a person (only
	// for files that are not readable learnings).
	Clean bool
	// Renamed is the path the other side's learning was written to when
	// both sides added different learnings under one id.
	Renamed string
	// NeedsReview is set when two bodies could not be merged and both
	// were kept.
	NeedsReview bool
}

// MergeFile is the git merge driver `reflect merge-learning %O %A %B %P`:
// it merges base, ours and theirs (temporary files git names) into ours.
// A learning is merged field by field (store.Merge); a sidecar is the
// union of both; two different learnings added under one id on two
// machines both survive, the incoming one under a new 6-hex suffix
// written beside pathname (git runs drivers at the top of the work tree).
// A file that does not parse falls back to git's line merge.
func MergeFile(ctx context.Context, base, ours, theirs, pathname string) (DriverResult, error) {
	// The store's bounded reader: regular files only, no links, at most
	// store.MaxDocumentSize bytes, whatever the remote pushed.
	rb, err := store.ReadDocument(base)
	if err != nil {
		return DriverResult{}, err
	}
	ra, err := store.ReadDocument(ours)
	if err != nil {
		return DriverResult{}, err
	}
	rt, err := store.ReadDocument(theirs)
	if err != nil {
		return DriverResult{}, err
	}
	if strings.HasSuffix(pathname, sidecarExt) {
		a, errA := store.ParseSidecar(ra)
		t, errT := store.ParseSidecar(rt)
		if errA == nil && errT == nil {
			data, err := store.MergeSidecars(a, t).Marshal()
			if err != nil {
				return DriverResult{}, err
			}
			return DriverResult{Clean: true}, fsutil.WriteAtomic(ours, data, 0o644)
		}
		return lineMerge(ctx, base, ours, theirs)
	}
	a, errA := store.Parse(ra)
	t, errT := store.Parse(rt)
	if errA != nil || errT != nil {
		return lineMerge(ctx, base, ours, theirs)
	}
	var b *store.Learning
	if len(strings.TrimSpace(string(rb))) > 0 {
		if b, err = store.Parse(rb); err != nil {
			b = nil
		}
	}
	if b == nil && distinct(a, t) {
		return collide(a, t, pathname)
	}
	merged := store.Merge(b, a, t, func(o, x, y string) (string, bool) { return mergeText(ctx, o, x, y) })
	data, err := merged.Marshal()
	if err != nil {
		return DriverResult{}, err
	}
	return DriverResult{Clean: true, NeedsReview: merged.NeedsReview && !a.NeedsReview}, fsutil.WriteAtomic(ours, data, 0o644)
}

// distinct reports whether two learnings added under one id are different
// learnings (not one learning written on two machines).
func distinct(a, b *store.Learning) bool {
	return a.Title != b.Title || a.KeyInsight != b.KeyInsight || !a.Created.Equal(b.Created)
}

// hexTail is compiled on first use: kbsync is linked into every hook.
var hexTail = lazyre.New(`-[0-9a-f]{6}$`)

// collide keeps ours at its id and writes theirs under a new one: the id
// with its 6-hex tail replaced by one derived from theirs' own content,
// so both machines resolving the same collision pick the same name.
func collide(ours, theirs *store.Learning, pathname string) (DriverResult, error) {
	data, err := theirs.Marshal()
	if err != nil {
		return DriverResult{}, err
	}
	for salt := 0; ; salt++ {
		sum := sha256.Sum256(append(data, byte(salt)))
		id := hexTail.Get().ReplaceAllString(theirs.ID, "") + "-" + hex.EncodeToString(sum[:3])
		dst := filepath.Join(filepath.Dir(pathname), id+".md")
		if _, err := os.Lstat(dst); err == nil {
			continue
		}
		theirs.ID = id
		out, err := theirs.Marshal()
		if err != nil {
			return DriverResult{}, err
		}
		if err := fsutil.WriteAtomic(dst, out, 0o644); err != nil {
			return DriverResult{}, err
		}
		return DriverResult{Clean: true, Renamed: dst}, nil
	}
}

// mergeText merges three texts with `git merge-file`.
func mergeText(ctx context.Context, base, ours, theirs string) (string, bool) {
	dir, err := os.MkdirTemp("", "reflect-merge-")
	if err != nil {
		return "", false
	}
	defer os.RemoveAll(dir)
	names := []string{filepath.Join(dir, "ours"), filepath.Join(dir, "base"), filepath.Join(dir, "theirs")}
	for i, s := range []string{ours, base, theirs} {
		if err := os.WriteFile(names[i], []byte(s), 0o600); err != nil {
			return "", false
		}
	}
	out, err := exec.CommandContext(ctx, "git", append([]string{"merge-file", "-p"}, names...)...).Output()
	if err != nil {
		return "", false
	}
	return string(out), true
}

// lineMerge is git's own line merge, in place, conflict markers and all.
func lineMerge(ctx context.Context, base, ours, theirs string) (DriverResult, error) {
	err := exec.CommandContext(ctx, "git", "merge-file", ours, base, theirs).Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() > 0 {
		return DriverResult{Clean: false}, nil
	}
	return DriverResult{Clean: err == nil}, err
}
