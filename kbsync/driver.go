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
	return MergeFileIn(ctx, base, ours, theirs, pathname, DriverEnv{})
}

// DriverEnv is what a sync tells the merge driver it runs (through the
// environment of `git merge`, since git starts the driver): where to log
// what it did, and what names the two sides of a conflict.
type DriverEnv struct {
	// Log is the file to record renamed and needs_review learnings in.
	Log string
	// Host is this machine's name; Theirs the remote commit merged and
	// Bases the merge bases, whose history names the other machine.
	Host, Theirs, Bases string
}

// DriverEnvFrom reads a DriverEnv with getenv (os.Getenv in the driver).
func DriverEnvFrom(getenv func(string) string) DriverEnv {
	return DriverEnv{Log: getenv(mergeLogEnv), Host: getenv(mergeHostEnv), Theirs: getenv(mergeTheirsEnv), Bases: getenv(mergeBasesEnv)}
}

// MergeFileIn is MergeFile run by a sync: it names the sides of a conflict
// and logs what the sync must act on, as env says.
func MergeFileIn(ctx context.Context, base, ours, theirs, pathname string, env DriverEnv) (DriverResult, error) {
	res, err := mergeFile(ctx, base, ours, theirs, pathname, env)
	if err == nil {
		err = logMerge(env.Log, pathname, res)
	}
	return res, err
}

// mergeLogEnv names the file a sync asks the merge driver (a process of
// its own, run by git) to record in what it did that the sync must act on:
// the learnings it wrote under a new id, which the sync commits and counts
// as pulled, and those it marked needs_review, which the sync reports.
const mergeLogEnv = "REFLECT_MERGE_LOG"

const mergeLogName = "reflect-merge.log"

// The environment a sync gives the merge driver to name the two sides of
// a conflict: this machine's name, and the remote commit merged with the
// merge bases, whose history says which machine wrote theirs.
const (
	mergeHostEnv   = "REFLECT_MERGE_HOST"
	mergeTheirsEnv = "REFLECT_MERGE_THEIRS"
	mergeBasesEnv  = "REFLECT_MERGE_BASES"
)

// mergeSides names ours (this machine) and theirs: the machine named by
// the last commit of the remote's side that changed pathname (reflect's
// commit messages name their host), or its author.
func mergeSides(ctx context.Context, pathname string, env DriverEnv) store.Sides {
	sides := store.Sides{Ours: machineName(env.Host)}
	rev := env.Theirs
	if rev == "" || strings.HasPrefix(rev, "-") {
		return sides
	}
	args := []string{"--literal-pathspecs", "log", "-1", "--no-show-signature", "--format=%s%x00%an", rev}
	for _, b := range strings.Fields(env.Bases) {
		if !strings.HasPrefix(b, "-") {
			args = append(args, "^"+b)
		}
	}
	out, err := exec.CommandContext(ctx, "git", append(args, "--", filepath.ToSlash(pathname))...).Output()
	if err != nil {
		return sides
	}
	subject, author, _ := strings.Cut(strings.TrimSpace(string(out)), "\x00")
	if m := hostInMessage.Get().FindStringSubmatch(subject); m != nil {
		sides.Theirs = machineName(m[1])
	} else {
		sides.Theirs = machineName(author)
	}
	return sides
}

// hostInMessage finds the host in the subjects of reflect's commits:
// "reflect sync from HOST: …", "reflect sync init on HOST: …",
// "reflect sync: merge main of origin on HOST", "… collided on HOST: …".
var hostInMessage = lazyre.New(`^reflect sync(?: from|:? .*? on) ([^\s:]+)(?::|$)`)

// machineName keeps a name a commit supplied to one short, plain word for
// a markdown heading: it comes from the remote, so it may hold anything.
func machineName(s string) string {
	var b strings.Builder
	for _, r := range s {
		if b.Len() >= 64 {
			break
		}
		if r < 0x80 && (r == '.' || r == '-' || r == '_' || r == '@' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// logMerge appends "renamed\tPATH" and "review\tPATH" lines to the log.
func logMerge(log, pathname string, res DriverResult) error {
	if log == "" || (res.Renamed == "" && !res.NeedsReview) {
		return nil
	}
	var b strings.Builder
	if res.Renamed != "" {
		b.WriteString("renamed\t" + filepath.ToSlash(res.Renamed) + "\n")
	}
	if res.NeedsReview {
		b.WriteString("review\t" + filepath.ToSlash(pathname) + "\n")
	}
	f, err := os.OpenFile(log, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(b.String()); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// readMergeLog returns the renamed and needs_review paths a merge's driver
// runs recorded.
func readMergeLog(log string) (renamed, review []string) {
	data, err := fsutil.ReadRegular(log, 1<<20)
	if err != nil {
		return nil, nil
	}
	for _, line := range strings.Split(string(data), "\n") {
		kind, p, ok := strings.Cut(line, "\t")
		if !ok || !syncable(p) {
			continue
		}
		switch kind {
		case "renamed":
			renamed = append(renamed, p)
		case "review":
			review = append(review, p)
		}
	}
	return renamed, review
}

func mergeFile(ctx context.Context, base, ours, theirs, pathname string, env DriverEnv) (DriverResult, error) {
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
	conflicted := false
	merged := store.Merge(b, a, t, func(o, x, y string) (string, bool) {
		m, ok := mergeText(ctx, o, x, y)
		conflicted = conflicted || !ok
		return m, ok
	})
	if conflicted {
		// Both bodies are kept: name the machines they come from (the
		// learning travels to both, where "this machine" would be wrong).
		if sides := mergeSides(ctx, pathname, env); sides != (store.Sides{}) {
			merged = store.MergeFrom(b, a, t, func(string, string, string) (string, bool) { return "", false }, sides)
		}
	}
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
