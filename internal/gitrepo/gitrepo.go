// Package gitrepo reads what reflect needs to know about the repository a
// session works in: the project name (origin remote, else the directory),
// the branch and recent commit subjects. It reads .git files directly where
// it can, because starting git costs more than a hook can spare, and it
// never writes to a repository or takes its locks.
package gitrepo

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/reflectkb/reflect/internal/fsutil"
	"github.com/reflectkb/reflect/internal/text"
)

// DefaultTimeout bounds all git work of one Inspect. The hook has a
// 1.5 s deadline for everything; recent commits are a nicety, not worth
// more than this.
const DefaultTimeout = 300 * time.Millisecond

// Repo is what reflect knows about a working directory.
type Repo struct {
	Project  string   // origin remote's basename, else the directory name
	Branch   string   // "" when detached or unknown
	Subjects []string // recent commit subjects, newest first
}

// Project is the project a working directory belongs to: the basename of
// its git origin remote, else the repository's or directory's name; "" for
// $HOME and the root, which name no project. It reads .git/config only.
func Project(ctx context.Context, cwd string) string {
	if SkipDir(cwd) != "" {
		return ""
	}
	return Inspect(ctx, filepath.Clean(cwd), false, 0).Project
}

// Root is the top directory of the git working tree around cwd (the
// directory holding .git, a worktree's or submodule's .git file included),
// or "" outside a repository. Files a learning cites are paths relative to
// it, wherever in the tree the user happens to be.
func Root(cwd string) string {
	if cwd == "" {
		return ""
	}
	root, _, ok := findGitDir(filepath.Clean(cwd))
	if !ok {
		return ""
	}
	return root
}

// SkipDir says why a working directory names no project: a session in
// $HOME (or at the root) is about nothing in particular, and whatever its
// name matched would be noise.
func SkipDir(cwd string) string {
	if cwd == "" {
		return "no working directory"
	}
	cwd = filepath.Clean(cwd)
	if home, err := os.UserHomeDir(); err == nil && home != "" && cwd == filepath.Clean(home) {
		return "working directory is $HOME"
	}
	if filepath.Dir(cwd) == cwd {
		return "working directory is the file-system root"
	}
	return ""
}

// Inspect reads the repository around cwd: the project name always, the
// branch and recent commits when full is set. HEAD and the origin URL come
// from .git/HEAD and .git/config directly (reading two small files is far
// cheaper than starting git); git itself only runs for the commit subjects,
// or when the files are in a layout this reader does not know. Outside a
// repository the directory name is all there is, and that is fine.
// timeout bounds the git work; zero means DefaultTimeout (tests, which
// check what git returns, give it longer on a loaded machine).
func Inspect(ctx context.Context, cwd string, full bool, timeout time.Duration) Repo {
	r := Repo{Project: filepath.Base(cwd)}
	root, gitDir, ok := findGitDir(cwd)
	if !ok {
		return r
	}
	r.Project = filepath.Base(root)
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	url, cfgOK := readOriginURL(commonDir(gitDir))
	if !cfgOK {
		url = strings.TrimSpace(git(ctx, root, "config", "--get", "remote.origin.url"))
	}
	if name := remoteName(url); name != "" {
		r.Project = name
	}
	if full {
		branch, headOK := readHead(gitDir)
		if !headOK {
			branch = strings.TrimSpace(git(ctx, root, "rev-parse", "--abbrev-ref", "HEAD"))
		}
		r.Branch = branch
		out := git(ctx, root, "log", "-5", "--format=%s", "--no-show-signature", "--no-color")
		for _, s := range strings.Split(out, "\n") {
			if s = strings.TrimSpace(s); s != "" {
				r.Subjects = append(r.Subjects, s)
			}
		}
	}
	return r
}

// findGitDir walks up from dir to the repository root. A .git file (a
// worktree or a submodule) points at the real git directory; when it
// cannot be followed, gitDir is "" and the caller asks git instead.
func findGitDir(dir string) (root, gitDir string, ok bool) {
	// No real directory is longer than PATH_MAX; a 100 KB "cwd" from a
	// payload would cost a stat per component of it.
	if len(dir) > MaxPath {
		return "", "", false
	}
	for {
		p := filepath.Join(dir, ".git")
		if fi, err := os.Stat(p); err == nil {
			if fi.IsDir() {
				return dir, p, true
			}
			data, err := readGitFile(p)
			if err != nil {
				return dir, "", true
			}
			target, found := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir:")
			if !found {
				return dir, "", true
			}
			target = strings.TrimSpace(target)
			if !filepath.IsAbs(target) {
				target = filepath.Join(dir, target)
			}
			return dir, target, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", "", false
		}
		dir = parent
	}
}

// MaxPath is the longest working directory looked at (Linux's PATH_MAX).
const MaxPath = 4096

// maxGitFile bounds what is read of .git/HEAD, .git/config and the
// pointer files: real ones are bytes to kilobytes, and a hook must not
// spend its deadline (or memory) on a 2 GB one.
const maxGitFile = 1 << 20

// readGitFile reads a small file of a git directory, only when it is a
// regular file of at most maxGitFile bytes: a FIFO planted at .git/HEAD
// hung every hook started in that directory.
func readGitFile(path string) ([]byte, error) {
	return fsutil.ReadRegular(path, maxGitFile)
}

// refused reports a git file that exists but that readGitFile will not
// read: asking git instead would hang or read it whole just the same.
func refused(err error) bool {
	return errors.Is(err, fsutil.ErrNotRegular) || errors.Is(err, fsutil.ErrTooLarge)
}

// commonDir is where a worktree's shared files (config among them) live.
func commonDir(gitDir string) string {
	if gitDir == "" {
		return ""
	}
	data, err := readGitFile(filepath.Join(gitDir, "commondir"))
	if err != nil {
		return gitDir
	}
	c := strings.TrimSpace(string(data))
	if !filepath.IsAbs(c) {
		c = filepath.Join(gitDir, c)
	}
	return c
}

// readHead returns the checked-out branch ("" when HEAD is detached). It
// reports false when HEAD cannot be read or names no usable branch, as
// with the reftable format's placeholder "refs/heads/.invalid".
func readHead(gitDir string) (string, bool) {
	if gitDir == "" {
		return "", false
	}
	data, err := readGitFile(filepath.Join(gitDir, "HEAD"))
	if refused(err) {
		return "", true // no branch to name; git would choke on it too
	}
	if err != nil {
		return "", false
	}
	head := strings.TrimSpace(string(data))
	ref, isRef := strings.CutPrefix(head, "ref:")
	if !isRef {
		return "", len(head) >= 40 // a detached commit id
	}
	branch, ok := strings.CutPrefix(strings.TrimSpace(ref), "refs/heads/")
	if !ok || branch == ".invalid" {
		return "", false
	}
	return branch, true
}

// readOriginURL finds url in the [remote "origin"] section of a git config
// file. A readable config without an origin is an answer (no remote), not
// a failure.
func readOriginURL(dir string) (string, bool) {
	if dir == "" {
		return "", false
	}
	data, err := readGitFile(filepath.Join(dir, "config"))
	if refused(err) {
		return "", true // no origin to name; git would choke on it too
	}
	if err != nil {
		return "", false
	}
	inOrigin := false
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			section := text.OneLine(strings.Trim(line, "[]"))
			inOrigin = strings.EqualFold(section, `remote "origin"`)
			continue
		}
		if !inOrigin {
			continue
		}
		key, value, ok := strings.Cut(line, "=")
		if ok && strings.EqualFold(strings.TrimSpace(key), "url") {
			return strings.Trim(strings.TrimSpace(value), `"`), true
		}
	}
	return "", true
}

// remoteName is the repository name in a remote URL:
// git@github.com:acme/auth-service.git and
// https://github.com/acme/auth-service/ both give "auth-service".
func remoteName(url string) string {
	url = strings.TrimRight(strings.TrimSpace(url), "/")
	if i := strings.LastIndexAny(url, "/:\\"); i >= 0 {
		url = url[i+1:]
	}
	return strings.TrimSuffix(url, ".git")
}

// git runs one git command in dir and returns its output, or "" on any
// failure: no git, no commits yet, a repository owned by someone else, the
// deadline. None of those is worth an error in a hook.
func git(ctx context.Context, dir string, args ...string) string {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...)
	// GIT_DIR and friends, when the agent runs with them set, would point
	// git at another repository than the one the files were read from.
	// GIT_OPTIONAL_LOCKS=0: a read must never take the index lock the
	// user's own git commands need.
	env := []string{"GIT_OPTIONAL_LOCKS=0", "GIT_TERMINAL_PROMPT=0"}
	for _, kv := range os.Environ() {
		switch name, _, _ := strings.Cut(kv, "="); name {
		case "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR":
		default:
			env = append(env, kv)
		}
	}
	cmd.Env = env
	out, err := cmd.Output()
	if err != nil {
		return ""
	}
	return string(out)
}
