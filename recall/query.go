package recall

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// minPromptRunes is the shortest prompt worth a search: "yes", "continue"
// and "run the tests" carry no topic, and their few words would only match
// noise.
const minPromptRunes = 12

// injectedBlock matches a block recall injected earlier. Agents sometimes
// echo it back in a prompt; searching its words would find the very
// learnings it lists. An unclosed block runs to the end of the text.
var injectedBlock = regexp.MustCompile(`(?s)<reflect-learnings>.*?(</reflect-learnings>|\z)`)

// promptQuery turns a user prompt into query text, or says why the prompt
// is not worth a search.
func promptQuery(prompt string) (string, string) {
	p := strings.TrimSpace(injectedBlock.ReplaceAllString(prompt, " "))
	switch {
	case p == "":
		return "", "empty prompt"
	case isSlashCommand(p):
		return "", "slash command"
	case utf8.RuneCountInString(p) < minPromptRunes:
		return "", "prompt shorter than 12 characters"
	}
	return p, ""
}

// isSlashCommand recognises "/compact", "/review 12" and "/project:deploy",
// but not a prompt that starts with a path such as "/etc/hosts is empty".
func isSlashCommand(p string) bool {
	if !strings.HasPrefix(p, "/") {
		return false
	}
	first := strings.Fields(p)[0]
	return len(first) > 1 && !strings.Contains(first[1:], "/")
}

// gitTimeout bounds all git work of one session-start query. The hook has a
// 1.5 s deadline for everything; recent commits are a nicety, not worth
// more than this.
const gitTimeout = 300 * time.Millisecond

// maxCommitTokens is how many words of the recent commit subjects join the
// query: enough to name what the work is about, few enough that a long
// history does not drown the project and branch.
const maxCommitTokens = 6

// repo is what a session-start query needs to know about the working
// directory.
type repo struct {
	project  string   // origin remote's basename, else the directory name
	branch   string   // "" when detached or unknown
	subjects []string // recent commit subjects, newest first
}

// sessionQuery builds the session-start query for cwd: the project name,
// the words of the branch and the telling words of the last five commit
// subjects. It also returns the project name, which ranks the project's own
// learnings first.
func sessionQuery(ctx context.Context, cwd string) (query, project, skip string) {
	if skip := skipDir(cwd); skip != "" {
		return "", "", skip
	}
	r := inspect(ctx, filepath.Clean(cwd), true)
	words := []string{r.project}
	words = append(words, branchWords(r.branch)...)
	// Commit words already in the query would only take the place of
	// others: a branch's name is usually in its merge commits.
	have := map[string]bool{}
	for _, w := range append(splitWords(r.project), words[1:]...) {
		have[w] = true
	}
	words = append(words, commitTokens(r.subjects, maxCommitTokens, have)...)
	return strings.Join(words, " "), r.project, ""
}

// projectName names the project cwd belongs to from .git/config alone (no
// git log, no HEAD), so a prompt's query can prefer that project's
// learnings cheaply.
// ProjectName is the project a working directory belongs to: the basename
// of its git origin remote, else the directory's name; "" for $HOME and
// the root. Learnings are scoped to it.
func ProjectName(ctx context.Context, cwd string) string { return projectName(ctx, cwd) }

func projectName(ctx context.Context, cwd string) string {
	if skipDir(cwd) != "" {
		return ""
	}
	return inspect(ctx, filepath.Clean(cwd), false).project
}

// skipDir says why a working directory names no project: a session in
// $HOME (or at the root) is about nothing in particular, and whatever its
// name matched would be noise.
func skipDir(cwd string) string {
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

// inspect reads the repository around cwd: the project name always, the
// branch and recent commits when full is set. HEAD and the origin URL come
// from .git/HEAD and .git/config directly (reading two small files is far
// cheaper than starting git); git itself only runs for the commit subjects,
// or when the files are in a layout this reader does not know. Outside a
// repository the directory name is all there is, and that is fine.
func inspect(ctx context.Context, cwd string, full bool) repo {
	r := repo{project: filepath.Base(cwd)}
	root, gitDir, ok := findGitDir(cwd)
	if !ok {
		return r
	}
	r.project = filepath.Base(root)
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()

	url, cfgOK := readOriginURL(commonDir(gitDir))
	if !cfgOK {
		url = strings.TrimSpace(git(ctx, root, "config", "--get", "remote.origin.url"))
	}
	if name := remoteName(url); name != "" {
		r.project = name
	}
	if full {
		branch, headOK := readHead(gitDir)
		if !headOK {
			branch = strings.TrimSpace(git(ctx, root, "rev-parse", "--abbrev-ref", "HEAD"))
		}
		r.branch = branch
		out := git(ctx, root, "log", "-5", "--format=%s", "--no-show-signature", "--no-color")
		for _, s := range strings.Split(out, "\n") {
			if s = strings.TrimSpace(s); s != "" {
				r.subjects = append(r.subjects, s)
			}
		}
	}
	return r
}

// findGitDir walks up from dir to the repository root. A .git file (a
// worktree or a submodule) points at the real git directory; when it
// cannot be followed, gitDir is "" and the caller asks git instead.
func findGitDir(dir string) (root, gitDir string, ok bool) {
	for {
		p := filepath.Join(dir, ".git")
		if fi, err := os.Stat(p); err == nil {
			if fi.IsDir() {
				return dir, p, true
			}
			data, err := os.ReadFile(p)
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

// commonDir is where a worktree's shared files (config among them) live.
func commonDir(gitDir string) string {
	if gitDir == "" {
		return ""
	}
	data, err := os.ReadFile(filepath.Join(gitDir, "commondir"))
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
	data, err := os.ReadFile(filepath.Join(gitDir, "HEAD"))
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
	data, err := os.ReadFile(filepath.Join(dir, "config"))
	if err != nil {
		return "", false
	}
	inOrigin := false
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			section := strings.Join(strings.Fields(strings.Trim(line, "[]")), " ")
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

// trunkBranches say nothing about the work in progress.
var trunkBranches = toSet(`main master head trunk develop development dev`)

// branchPrefixes are conventional branch-name prefixes, not topics.
var branchPrefixes = toSet(`feature feat fix bugfix hotfix chore refactor release wip topic dependabot renovate`)

// branchWords splits a branch name such as "feature/oauth-state_cookie"
// into its topic words.
func branchWords(branch string) []string {
	if trunkBranches[strings.ToLower(branch)] {
		return nil
	}
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(branch), func(r rune) bool {
		return r == '/' || r == '-' || r == '_' || r == '.'
	}) {
		if branchPrefixes[w] || stopwords[w] || isNoise(w) {
			continue
		}
		out = append(out, w)
	}
	return out
}

// commitWords are the verbs and labels of commit subjects ("fix: update
// deps", "Merge pull request #12"): they appear in every project's history
// and would match learnings at random.
var commitWords = toSet(`fix fixes fixed fixing add adds added adding update updates updated updating
	merge merged merging wip bump bumps bumped chore feat feature refactor refactored remove removes
	removed delete deleted change changes changed use uses make makes improve improved cleanup clean
	tweak tweaks minor typo typos initial commit revert reverts pull request branch release version
	docs doc test tests tested move moved rename renamed support handle set get new more less also
	some into from onto when then than via per after before work working again first main master
	origin upstream`)

// stopwords are dropped from commit subjects; index.Search drops its own
// from the query too, but these must go before the top tokens are counted.
var stopwords = toSet(`a an and are as at be but by for if in is it no not of on or such that the
	their then there these they this to was will with i you we our its do does did have has had
	can could should would may might all any each`)

func toSet(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// isNoise reports words too short, numeric or hash-like to name a topic:
// ticket numbers, version digits, abbreviated commit ids.
func isNoise(w string) bool {
	if utf8.RuneCountInString(w) < 3 {
		return true
	}
	digits, hex := 0, 0
	for _, r := range w {
		if unicode.IsDigit(r) {
			digits++
		}
		if strings.ContainsRune("0123456789abcdef", r) {
			hex++
		}
	}
	n := utf8.RuneCountInString(w)
	return digits == n || (n >= 7 && hex == n && digits > 0)
}

// splitWords lowercases text and splits it into letter-and-digit words, as
// the index's tokenizer does.
func splitWords(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// commitTokens returns the n most frequent topic words of the subjects
// that are not in skip; ties go to the word seen first, that is in the
// most recent commit.
func commitTokens(subjects []string, n int, skip map[string]bool) []string {
	count := map[string]int{}
	first := map[string]int{}
	var order []string
	for _, s := range subjects {
		for _, w := range splitWords(s) {
			if skip[w] || stopwords[w] || commitWords[w] || isNoise(w) {
				continue
			}
			if _, seen := count[w]; !seen {
				first[w] = len(order)
				order = append(order, w)
			}
			count[w]++
		}
	}
	sort.SliceStable(order, func(i, j int) bool {
		a, b := order[i], order[j]
		if count[a] != count[b] {
			return count[a] > count[b]
		}
		return first[a] < first[b]
	})
	if len(order) > n {
		order = order[:n]
	}
	return order
}
