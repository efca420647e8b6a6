package kbsync

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/gofrs/flock"

	"github.com/reflectkb/reflect/internal/fsutil"
	"github.com/reflectkb/reflect/store"
)

// Options configure a sync of one learnings directory.
type Options struct {
	// Dir is the learnings directory (documents/ and index/ live in it).
	Dir string
	// Remote is the URL or path `init` connects as origin ("" keeps the
	// one configured, or none: a local-only history).
	Remote string
	// Branch is the branch synced (default main).
	Branch string
	// Driver is the command line git runs as the merge driver, normally
	// the absolute path of the running reflect binary.
	Driver string
	// Timeout bounds every network operation (default DefaultTimeout).
	Timeout time.Duration
	// Retries is how many times a push the remote refused because it
	// moved on is fetched, merged and pushed again (default 3).
	Retries int
	// Host names this machine in commit messages and the fallback
	// identity (default os.Hostname).
	Host string

	// afterFetch, when set, runs between the fetch and the merge: tests
	// use it to write a learning at the moment a hook could.
	afterFetch func()
}

func (o *Options) defaults() {
	if o.Branch == "" {
		o.Branch = "main"
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.Retries <= 0 {
		o.Retries = 3
	}
	if o.Host == "" {
		o.Host, _ = os.Hostname()
		if o.Host == "" {
			o.Host = "localhost"
		}
	}
}

// Result says what a sync did.
type Result struct {
	// Committed lists the files of this machine's commit.
	Committed []string `json:"committed"`
	// Held lists the files kept out of it, and why.
	Held []Step `json:"held"`
	// Pulled lists the files under documents/ that arrived from the
	// remote (added, changed or removed): what the index must refresh.
	Pulled []string `json:"pulled"`
	// Kept lists learnings deleted on one side and edited on the other,
	// kept with their edits.
	Kept []string `json:"kept,omitempty"`
	// Pushed says whether the remote now has this machine's history.
	Pushed bool `json:"pushed"`
	// Remote is origin's URL ("" when there is none).
	Remote string `json:"remote,omitempty"`
	// Head is the commit the branch points at after the sync.
	Head string `json:"head,omitempty"`
	// Retries counts pushes repeated because the remote moved on.
	Retries int `json:"retries"`
	// Created is set by Init when it made a new repository.
	Created bool `json:"created,omitempty"`
	// Refused lists the remote's paths kept out of the work tree.
	Refused []Refusal `json:"refused,omitempty"`
	// NeedsReview lists the learnings whose two bodies this sync's merge
	// could not reconcile: both are kept, marked needs_review.
	NeedsReview []string `json:"needs_review,omitempty"`
	// Unlinked lists the symlinks under documents/ that the repository
	// already tracked (from a sync before remotes were inspected): each was
	// removed, and its removal committed.
	Unlinked []string `json:"unlinked,omitempty"`
}

// newResult has empty lists rather than nil ones, so --json prints [].
func newResult() *Result {
	return &Result{Committed: []string{}, Held: []Step{}, Pulled: []string{}}
}

// SecretError is ErrSecretHeld with the files held back.
type SecretError struct{ Held []Step }

func (e *SecretError) Error() string {
	var b strings.Builder
	for i, s := range e.Held {
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "%s:%d holds a secret (%s)", s.Path, s.Line, s.Kind)
	}
	return b.String()
}

func (e *SecretError) Unwrap() error { return ErrSecretHeld }

const (
	gitignoreText = "# derived by reflect: rebuilt from documents/ by 'reflect reindex'\nindex/\n*.tmp\n.*.tmp\n"
	attributes    = "documents/*.md merge=reflect-learning\ndocuments/*.entities.yaml merge=reflect-learning\n"
	lockName      = "reflect-sync.lock"
	// infoAttributes is $GIT_DIR/info/attributes, which wins over every
	// .gitattributes: whatever one a remote sends, no filter, encoding or
	// end-of-line conversion applies, and learnings keep reflect's driver.
	infoAttributes = "# written by reflect sync: these win over any .gitattributes\n" +
		"* !filter !ident !text !eol !crlf !working-tree-encoding !encoding !merge !conflict-marker-size !diff !delta !export-subst\n" +
		attributes
)

// ownedText is what sync keeps in each file it owns.
var ownedText = map[string]string{".gitignore": gitignoreText, ".gitattributes": attributes}

// Init makes opts.Dir a git repository on opts.Branch (or adopts the one
// it is), writes .gitignore and .gitattributes, configures the merge
// driver and an identity when git has none, commits the local learnings
// (through the same privacy gate as Sync) and, with a remote, merges what
// the remote already holds and pushes the result.
func Init(ctx context.Context, opts Options) (*Result, error) {
	opts.defaults()
	if err := fsutil.EnsureDir(filepath.Join(opts.Dir, "documents")); err != nil {
		return nil, err
	}
	if err := realDocuments(opts.Dir); err != nil {
		return nil, err
	}
	g := &gitCmd{dir: opts.Dir}
	res := newResult()
	if _, err := os.Stat(filepath.Join(opts.Dir, ".git")); errors.Is(err, os.ErrNotExist) {
		if _, err := g.run(ctx, 0, "init", "-q", "-b", opts.Branch); err != nil {
			return nil, err
		}
		res.Created = true
	} else if err := adoptable(ctx, g, opts.Dir); err != nil {
		return nil, err
	}
	unlock, err := lock(opts.Dir)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if err := ensureLines(filepath.Join(opts.Dir, ".gitignore"), gitignoreText); err != nil {
		return nil, err
	}
	if err := ensureLines(filepath.Join(opts.Dir, ".gitattributes"), attributes); err != nil {
		return nil, err
	}
	if err := configure(ctx, g, opts); err != nil {
		return nil, err
	}
	if !res.Created && !g.ok(ctx, "symbolic-ref", "-q", "HEAD") {
		return nil, fmt.Errorf("%w: HEAD is detached in %s; check out a branch first (git -C %s switch %s)", ErrDirty, opts.Dir, opts.Dir, opts.Branch)
	}
	if res.Created || !g.ok(ctx, "rev-parse", "-q", "--verify", "HEAD") {
		// An unborn branch is renamed to the one asked for.
		if _, err := g.run(ctx, 0, "symbolic-ref", "HEAD", "refs/heads/"+opts.Branch); err != nil {
			return nil, err
		}
	}
	if opts.Remote != "" {
		if url, err := g.run(ctx, 0, "remote", "get-url", "origin"); err == nil {
			if strings.TrimSpace(url) != opts.Remote {
				if _, err := g.run(ctx, 0, "remote", "set-url", "origin", opts.Remote); err != nil {
					return nil, err
				}
			}
		} else if _, err := g.run(ctx, 0, "remote", "add", "origin", opts.Remote); err != nil {
			return nil, err
		}
	}
	if err := syncLocked(ctx, g, opts, res, "reflect sync init on "+opts.Host); err != nil {
		return res, err
	}
	return res, nil
}

// adoptable refuses a repository sync cannot own: one whose top level is
// not the learnings directory, one in the middle of a merge or rebase, or
// one with uncommitted changes outside documents/ and the files sync
// writes.
func adoptable(ctx context.Context, g *gitCmd, dir string) error {
	top, err := g.run(ctx, 0, "rev-parse", "--show-toplevel")
	if err != nil {
		return err
	}
	want, _ := filepath.EvalSymlinks(dir)
	if got, _ := filepath.EvalSymlinks(strings.TrimSpace(top)); got != want {
		return fmt.Errorf("%w: %s is inside the git repository %s; sync needs the learnings directory to be a repository of its own", ErrDirty, dir, strings.TrimSpace(top))
	}
	if err := inProgress(ctx, g); err != nil {
		return err
	}
	changes, err := status(ctx, g)
	if err != nil {
		return err
	}
	var foreign []string
	for _, c := range changes {
		if !syncable(c.Path) && !strings.HasPrefix(c.Path, "documents/") {
			foreign = append(foreign, c.Path)
		}
	}
	if len(foreign) > 0 {
		return fmt.Errorf("%w: uncommitted files outside documents/: %s; commit or remove them first", ErrDirty, strings.Join(foreign, ", "))
	}
	return nil
}

// inProgress refuses to start while git is in the middle of something.
func inProgress(ctx context.Context, g *gitCmd) error {
	gitDir, err := g.run(ctx, 0, "rev-parse", "--absolute-git-dir")
	if err != nil {
		return err
	}
	gitDir = strings.TrimSpace(gitDir)
	for _, op := range []struct{ file, name string }{
		{"MERGE_HEAD", "merge"}, {"rebase-merge", "rebase"}, {"rebase-apply", "rebase"}, {"CHERRY_PICK_HEAD", "cherry-pick"},
	} {
		if _, err := os.Stat(filepath.Join(gitDir, op.file)); err == nil {
			return fmt.Errorf("%w: a git %s is in progress in %s; finish or abort it first (git -C %s status)",
				ErrDirty, op.name, g.dir, g.dir)
		}
	}
	return nil
}

// realDocuments refuses a learnings directory whose documents/ is not a
// directory of its own (a symlink would send every learning written, and
// every file indexed, somewhere else).
func realDocuments(dir string) error {
	fi, err := os.Lstat(filepath.Join(dir, "documents"))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%w: %s is not a directory (a symlink or a file); move it away and restore documents/ from git (git -C %s checkout -- documents)",
			ErrDirty, filepath.Join(dir, "documents"), dir)
	}
	return nil
}

// configure sets the merge driver (every sync: the binary may have moved),
// the attributes that win over any .gitattributes, core.symlinks=false
// (a symlink that reached a commit is checked out as a plain file holding
// its target, never as a link), and a local identity when git has none.
func configure(ctx context.Context, g *gitCmd, opts Options) error {
	if _, err := g.run(ctx, 0, "config", "core.symlinks", "false"); err != nil {
		return err
	}
	info, err := gitPath(ctx, g, "info/attributes")
	if err != nil {
		return err
	}
	if data, err := os.ReadFile(info); err != nil || string(data) != infoAttributes {
		if err := fsutil.EnsureDir(filepath.Dir(info)); err != nil {
			return err
		}
		if err := fsutil.WriteAtomic(info, []byte(infoAttributes), 0o644); err != nil {
			return err
		}
	}
	if opts.Driver != "" {
		if _, err := g.run(ctx, 0, "config", "merge.reflect-learning.name", "reflect field-by-field learning merge"); err != nil {
			return err
		}
		if _, err := g.run(ctx, 0, "config", "merge.reflect-learning.driver", shellQuote(opts.Driver)+" merge-learning %O %A %B %P"); err != nil {
			return err
		}
	}
	if out, _ := g.run(ctx, 0, "config", "user.email"); strings.TrimSpace(out) == "" {
		if _, err := g.run(ctx, 0, "config", "user.email", "reflect@"+opts.Host); err != nil {
			return err
		}
		if out, _ := g.run(ctx, 0, "config", "user.name"); strings.TrimSpace(out) == "" {
			if _, err := g.run(ctx, 0, "config", "user.name", "reflect@"+opts.Host); err != nil {
				return err
			}
		}
	}
	return nil
}

// shellQuote quotes s for the shell git runs the merge driver with.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// ensureLines appends to path the lines of want it lacks, keeping what
// the user wrote.
func ensureLines(path, want string) error {
	data, err := fsutil.ReadRegular(path, store.MaxDocumentSize)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	have := map[string]bool{}
	for _, l := range strings.Split(string(data), "\n") {
		have[strings.TrimSpace(l)] = true
	}
	out := string(data)
	if out != "" && !strings.HasSuffix(out, "\n") {
		out += "\n"
	}
	for _, l := range strings.SplitAfter(want, "\n") {
		if strings.TrimSpace(l) != "" && !have[strings.TrimSpace(l)] {
			out += l
		}
	}
	if out == string(data) {
		return nil
	}
	return fsutil.WriteAtomic(path, []byte(out), 0o644)
}

// lock takes the sync lock, so two syncs (a user's and an automatic one)
// never overlap. It does not wait: the sync running does the work.
func lock(dir string) (func(), error) {
	fl := flock.New(filepath.Join(dir, ".git", lockName), flock.SetPermissions(fsutil.FilePerm))
	ok, err := fl.TryLock()
	if err != nil {
		return nil, fmt.Errorf("sync lock: %w", err)
	}
	if !ok {
		return nil, ErrBusy
	}
	return func() { _ = fl.Unlock() }, nil
}

// Sync commits this machine's changes to learnings (one commit, with the
// privacy gate of Plan), merges the remote's, and pushes, retrying a push
// the remote refused because it moved on. A held-back secret does not stop
// the rest: the result comes with a *SecretError.
func Sync(ctx context.Context, opts Options) (*Result, error) {
	opts.defaults()
	if _, err := os.Stat(filepath.Join(opts.Dir, ".git")); err != nil {
		return nil, fmt.Errorf("%w: %s is not a git repository", ErrNotInitialized, opts.Dir)
	}
	g := &gitCmd{dir: opts.Dir}
	unlock, err := lock(opts.Dir)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if err := realDocuments(opts.Dir); err != nil {
		return nil, err
	}
	if err := inProgress(ctx, g); err != nil {
		return nil, err
	}
	if err := configure(ctx, g, opts); err != nil {
		return nil, err
	}
	res := newResult()
	err = syncLocked(ctx, g, opts, res, fmt.Sprintf("reflect sync from %s", opts.Host))
	return res, err
}

// syncLocked is the body of Init and Sync, under the lock.
func syncLocked(ctx context.Context, g *gitCmd, opts Options, res *Result, message string) error {
	if err := unlinkTracked(ctx, g, res); err != nil {
		return err
	}
	if err := commitLocal(ctx, g, opts, res, message); err != nil {
		return err
	}
	held := secretsHeld(res.Held)
	url, err := g.run(ctx, 0, "remote", "get-url", "origin")
	if err != nil {
		// No remote: a local history is still a history (and a backup).
		res.Head = head(ctx, g)
		return held
	}
	res.Remote = strings.TrimSpace(url)
	for attempt := 0; ; attempt++ {
		merged, err := pull(ctx, g, opts, res)
		if err != nil {
			return errors.Join(err, secretsHeld(res.Held))
		}
		// The merge driver writes the other side's learning under a new
		// id when both added one under the same id: commit those (and the
		// owned files the merge rewrote), nothing else a hook or a drain
		// wrote meanwhile: that is the next sync's own commit.
		if len(merged) > 0 {
			again := &Result{}
			msg := "reflect sync: keep learnings that collided on " + opts.Host
			if !strings.HasPrefix(merged[0], "documents/") {
				msg = "reflect sync: keep reflect's own .gitignore and .gitattributes lines on " + opts.Host
			}
			if err := commitOnly(ctx, g, opts, again, msg, merged); err != nil {
				return err
			}
			res.Committed = append(res.Committed, again.Committed...)
			res.Held = append(res.Held, again.Held...)
		}
		if !g.ok(ctx, "rev-parse", "-q", "--verify", "HEAD") {
			break // nothing here and nothing there
		}
		_, err = g.run(ctx, opts.Timeout, "push", "--porcelain", "origin", "HEAD:refs/heads/"+opts.Branch)
		if err == nil {
			res.Pushed = true
			break
		}
		if nonFastForward(err) && attempt < opts.Retries {
			res.Retries++
			continue
		}
		if nonFastForward(err) {
			return outcome(fmt.Errorf("%w: other machines kept pushing first (%d attempts); run 'reflect sync' again", ErrRejected, attempt+1), res)
		}
		return outcome(classify(err), res)
	}
	_, _ = g.run(ctx, 0, "branch", "-q", "--set-upstream-to", "origin/"+opts.Branch)
	res.Head = head(ctx, g)
	return outcome(nil, res)
}

// outcome joins err with what else the sync must report: the remote's
// paths it refused (the rest was merged) and the files held for a secret.
func outcome(err error, res *Result) error {
	var refused error
	if len(res.Refused) > 0 {
		refused = &RefusedError{Refused: res.Refused}
	}
	return errors.Join(err, refused, secretsHeld(res.Held))
}

// unlinkTracked removes the symlinks git tracks under documents/: none
// can arrive any more, but a repository synced before remotes were
// inspected may hold one (a learning that is a link to ~/.ssh/id_rsa).
// The link goes, never its target; the commit that follows records the
// removal, so the push removes it from the remote too.
func unlinkTracked(ctx context.Context, g *gitCmd, res *Result) error {
	out, err := g.run(ctx, 0, "ls-files", "-s", "-z", "--", "documents")
	if err != nil {
		return nil // an unborn branch: nothing tracked
	}
	for _, rec := range splitZ(out) {
		meta, p, ok := strings.Cut(rec, "\t")
		if !ok || !strings.HasPrefix(meta, "120000 ") {
			continue
		}
		// With core.symlinks=false the link is checked out as a plain file
		// holding its target: that goes too (git would commit any content
		// written there as a link again).
		file := filepath.Join(g.dir, filepath.FromSlash(p))
		if fi, err := os.Lstat(file); err == nil && !fi.IsDir() {
			if err := os.Remove(file); err != nil {
				return err
			}
		}
		res.Unlinked = append(res.Unlinked, p)
	}
	return nil
}

func secretsHeld(steps []Step) error {
	var s []Step
	for _, st := range steps {
		if st.Reason == ReasonSecret {
			s = append(s, st)
		}
	}
	if len(s) == 0 {
		return nil
	}
	return &SecretError{Held: s}
}

func head(ctx context.Context, g *gitCmd) string {
	out, err := g.run(ctx, 0, "rev-parse", "-q", "--verify", "HEAD")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(out)
}

func splitZ(s string) []string {
	out := []string{}
	for _, p := range strings.Split(s, "\x00") {
		if p != "" {
			out = append(out, p)
		}
	}
	return out
}

// status lists the changed paths git sees, without renames (a rename is a
// deletion and an addition, each judged on its own).
func status(ctx context.Context, g *gitCmd) ([]Change, error) {
	out, err := g.run(ctx, 0, "status", "--porcelain=v1", "-z", "--no-renames", "--untracked-files=all")
	if err != nil {
		return nil, err
	}
	var changes []Change
	for _, rec := range splitZ(out) {
		if len(rec) < 4 {
			continue
		}
		xy, p := rec[:2], rec[3:]
		_, statErr := os.Lstat(filepath.Join(g.dir, filepath.FromSlash(p)))
		changes = append(changes, Change{Path: p, Tracked: xy != "??", Deleted: errors.Is(statErr, os.ErrNotExist)})
	}
	sort.Slice(changes, func(i, j int) bool { return changes[i].Path < changes[j].Path })
	return changes, nil
}

// commitLocal plans the local changes and commits what may leave the
// machine. The index is reset first, so nothing staged by hand slips past
// the gate; files are staged one by one after the redactor has read them,
// so a held file never becomes a git object.
func commitLocal(ctx context.Context, g *gitCmd, opts Options, res *Result, message string) error {
	return commitOnly(ctx, g, opts, res, message, nil)
}

// commitOnly is commitLocal restricted to the paths of only (all changes
// when only is nil).
func commitOnly(ctx context.Context, g *gitCmd, opts Options, res *Result, message string, only []string) error {
	if g.ok(ctx, "rev-parse", "-q", "--verify", "HEAD") {
		if _, err := g.run(ctx, 0, "reset", "-q"); err != nil {
			return err
		}
	} else {
		_, _ = g.run(ctx, 0, "rm", "-r", "-q", "--cached", "--ignore-unmatch", ".")
	}
	changes, err := status(ctx, g)
	if err != nil {
		return err
	}
	if only != nil {
		keep := changes[:0]
		for _, c := range changes {
			if slices.Contains(only, c.Path) {
				keep = append(keep, c)
			}
		}
		changes = keep
	}
	steps := Plan(changes, func(p string) ([]byte, error) {
		return fsutil.ReadRegular(filepath.Join(opts.Dir, filepath.FromSlash(p)), 1<<20+1)
	})
	var stage, untrack []string
	for _, s := range steps {
		switch s.Action {
		case Stage:
			stage = append(stage, s.Path)
		case Untrack:
			untrack = append(untrack, s.Path)
		case Hold:
			res.Held = append(res.Held, s)
		}
	}
	for len(stage) > 0 {
		n := min(len(stage), 500)
		if _, err := g.run(ctx, 0, append([]string{"add", "-A", "--"}, stage[:n]...)...); err != nil {
			return err
		}
		res.Committed = append(res.Committed, stage[:n]...)
		stage = stage[n:]
	}
	if len(untrack) > 0 {
		if _, err := g.run(ctx, 0, append([]string{"rm", "-q", "--cached", "--"}, untrack...)...); err != nil {
			return err
		}
		res.Committed = append(res.Committed, untrack...)
	}
	if len(res.Committed) == 0 {
		return nil
	}
	msg := fmt.Sprintf("%s: %d file(s)", message, len(res.Committed))
	if _, err := g.run(ctx, 0, "commit", "-q", "--no-verify", "-m", msg); err != nil {
		return err
	}
	return nil
}
