package kbsync

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/reflectkb/reflect/internal/proc"
)

// Sentinel errors of a sync; cmd/reflect maps them to hints and exit codes.
var (
	// ErrNotInitialized: the learnings directory is not a git repository
	// yet (`reflect sync init` makes it one).
	ErrNotInitialized = errors.New("the learnings directory is not synced yet")
	// ErrOffline: the remote could not be reached (no network, a wrong
	// URL or path, a timeout).
	ErrOffline = errors.New("cannot reach the remote")
	// ErrRejected: the remote refused the push (a hook, a protected
	// branch, or other pushes that kept winning every retry).
	ErrRejected = errors.New("the remote rejected the push")
	// ErrSecretHeld: a learning holding a secret was kept out of the
	// commit; the rest was synced. The error is a *SecretError.
	ErrSecretHeld = errors.New("a learning holding a secret was held back")
	// ErrDirty: the directory has changes sync cannot own (outside
	// documents/) or a merge or rebase in progress.
	ErrDirty = errors.New("the learnings directory has changes sync cannot own")
	// ErrConflict: a merge left a conflict sync cannot settle; the merge
	// was aborted and nothing was lost.
	ErrConflict = errors.New("the merge with the remote has a conflict sync cannot settle")
	// ErrRefused: the remote sent something that must not reach the work
	// tree (a symlink, a submodule, a path outside the learning files);
	// the error is a *RefusedError naming each path and its commit.
	ErrRefused = errors.New("refused content from the remote")
	// ErrBusy: another sync holds the lock.
	ErrBusy = errors.New("another sync is running")
)

// DefaultTimeout bounds every network operation (fetch, push, ls-remote).
const DefaultTimeout = 30 * time.Second

// gitCmd runs the system git in dir. Network operations get the caller's
// timeout; local ones a generous fixed bound, so nothing can hang a sync.
type gitCmd struct {
	dir string
	env []string
}

// localTimeout bounds a local git command (commit, merge, add).
const localTimeout = 2 * time.Minute

// gitError is a failed git command with its stderr, which is what says why.
type gitError struct {
	args   []string
	stdout string // push --porcelain reports each ref's fate here
	stderr string
	err    error
}

func (e *gitError) Error() string {
	msg := strings.TrimSpace(e.stderr)
	if msg == "" {
		msg = e.err.Error()
	}
	return fmt.Sprintf("git %s: %s", strings.Join(e.args, " "), msg)
}

func (e *gitError) Unwrap() error { return e.err }

// run runs git with args and returns its stdout. A timeout kills git's
// whole process group (ssh and credential helpers with it).
func (g *gitCmd) run(ctx context.Context, timeout time.Duration, args ...string) (string, error) {
	return g.runInput(ctx, timeout, "", args...)
}

// runInput is run with stdin (for the commands that read a list there).
func (g *gitCmd) runInput(ctx context.Context, timeout time.Duration, stdin string, args ...string) (string, error) {
	if timeout <= 0 {
		timeout = localTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = g.dir
	// No prompt can be answered in a background sync; C messages are the
	// ones classify understands.
	cmd.Env = append(append(gitEnv(os.Environ()), "GIT_TERMINAL_PROMPT=0", "LC_ALL=C", "GIT_MERGE_AUTOEDIT=no"), g.env...)
	proc.InOwnGroup(cmd)
	cmd.WaitDelay = 2 * time.Second
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	err := cmd.Run()
	if err != nil {
		if ctx.Err() == context.DeadlineExceeded {
			return out.String(), fmt.Errorf("git %s: no answer within %s: %w", strings.Join(args, " "), timeout, ErrOffline)
		}
		return out.String(), &gitError{args: args, stdout: out.String(), stderr: errb.String(), err: err}
	}
	return out.String(), nil
}

// gitEnv drops the variables that point git at another repository (set
// when reflect runs inside a git hook or an alias): sync works on the
// learnings directory, whatever repository the caller is in.
func gitEnv(env []string) []string {
	out := env[:0:0]
	for _, kv := range env {
		switch k, _, _ := strings.Cut(kv, "="); k {
		case "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_COMMON_DIR", "GIT_PREFIX":
			continue
		}
		out = append(out, kv)
	}
	return out
}

// ok runs git and reports whether it exited 0 (for the commands whose
// status is the answer: diff --quiet, rev-parse --verify).
func (g *gitCmd) ok(ctx context.Context, args ...string) bool {
	_, err := g.run(ctx, 0, args...)
	return err == nil
}

// classify turns a failed network operation into ErrOffline or
// ErrRejected when its message says so, keeping git's words.
func classify(err error) error {
	var ge *gitError
	if !errors.As(err, &ge) {
		return err
	}
	s := ge.stdout + ge.stderr
	switch {
	case strings.Contains(s, "[rejected]") || strings.Contains(s, "[remote rejected]"):
		return fmt.Errorf("%w: %s", ErrRejected, lastLines(s))
	case strings.Contains(s, "Could not read from remote repository"),
		strings.Contains(s, "does not appear to be a git repository"),
		strings.Contains(s, "Could not resolve host"),
		strings.Contains(s, "unable to access"),
		strings.Contains(s, "Connection refused"),
		strings.Contains(s, "Network is unreachable"),
		strings.Contains(s, "Connection timed out"):
		return fmt.Errorf("%w: %s", ErrOffline, lastLines(s))
	}
	return err
}

// nonFastForward reports a push refused only because the remote moved on
// (before the push, or during it: another push won the race for the
// ref): fetching and merging again settles it.
func nonFastForward(err error) bool {
	var ge *gitError
	if !errors.As(err, &ge) {
		return false
	}
	s := ge.stdout + ge.stderr
	return strings.Contains(s, "non-fast-forward") || strings.Contains(s, "fetch first") ||
		strings.Contains(s, "cannot lock ref") || strings.Contains(s, "failed to update ref")
}

// lastLines keeps the meaningful end of git's stderr on one line.
func lastLines(s string) string {
	var keep []string
	for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "hint:") || strings.HasPrefix(l, "To ") {
			continue
		}
		keep = append(keep, l)
	}
	if len(keep) > 3 {
		keep = keep[len(keep)-3:]
	}
	return strings.Join(keep, "; ")
}
