package recall

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestPromptQuery(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		prompt, query, skip string
	}{
		{"fix the OAuth redirect bug", "fix the OAuth redirect bug", ""},
		{"   why is the build slow?  ", "why is the build slow?", ""},
		{"", "", "empty prompt"},
		{"   \n\t ", "", "empty prompt"},
		{"yes please", "", "prompt shorter than 12 characters"},
		{"continue", "", "prompt shorter than 12 characters"},
		// 11 runes but 22 bytes: the limit counts characters.
		{"ééééééééééé", "", "prompt shorter than 12 characters"},
		{"éééééééééééé", "éééééééééééé", ""},
		{"/compact", "", "slash command"},
		{"/review the login handler please", "", "slash command"},
		{"/project:deploy staging now", "", "slash command"},
		{"/etc/hosts is empty after the upgrade", "/etc/hosts is empty after the upgrade", ""},
		// An echoed block is not part of what the user asks.
		{"<reflect-learnings>\n- [high] OAuth state cookie (lrn-x)\n</reflect-learnings>\nwhy does the sqlite file stay locked?",
			"why does the sqlite file stay locked?", ""},
		{"before <reflect-learnings>a</reflect-learnings> middle <reflect-learnings>b</reflect-learnings> after the fact",
			"before   middle   after the fact", ""},
		{"why is this still locked <reflect-learnings>- [high] SQLite locked (lrn-s)", "why is this still locked", ""},
		{"<reflect-learnings>only the block</reflect-learnings> ok", "", "prompt shorter than 12 characters"},
	} {
		q, skip := promptQuery(tc.prompt)
		if q != tc.query || skip != tc.skip {
			t.Errorf("promptQuery(%q) = %q, %q; want %q, %q", tc.prompt, q, skip, tc.query, tc.skip)
		}
	}
}

func TestBranchWords(t *testing.T) {
	t.Parallel()
	for branch, want := range map[string][]string{
		"main":                             nil,
		"master":                           nil,
		"HEAD":                             nil,
		"trunk":                            nil,
		"develop":                          nil,
		"":                                 nil,
		"feature/oauth-state_cookie":       {"oauth", "state", "cookie"},
		"fix/JIRA-1234-sqlite-busy":        {"jira", "sqlite", "busy"},
		"alice/k8s-startup-probe":          {"alice", "k8s", "startup", "probe"},
		"dependabot/npm_and_yarn/vite-5.1": {"npm", "yarn", "vite"},
	} {
		if got := branchWords(branch); !reflect.DeepEqual(got, want) {
			t.Errorf("branchWords(%q) = %q, want %q", branch, got, want)
		}
	}
}

func TestCommitTokens(t *testing.T) {
	t.Parallel()
	subjects := []string{ // newest first, as git log prints them
		"fix: state cookie dropped on the OAuth callback",
		"Merge pull request #42 from acme/oauth-callback",
		"add SameSite=Lax to the state cookie",
		"wip",
		"Update deps; bump version to 1.4.2 (3f2c9ab1e)",
	}
	got := commitTokens(subjects, 4, nil)
	// "state", "cookie", "oauth" and "callback" appear twice; "oauth" and
	// "callback" tie with each other and go in order of first sight.
	want := []string{"state", "cookie", "oauth", "callback"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("commitTokens = %q, want %q", got, want)
	}
	all := commitTokens(subjects, 100, nil)
	for _, w := range all {
		if commitWords[w] || stopwords[w] || isNoise(w) {
			t.Errorf("commitTokens kept %q", w)
		}
	}
	for _, w := range []string{"samesite", "lax", "deps", "acme"} {
		if !contains(all, w) {
			t.Errorf("commitTokens dropped %q: %q", w, all)
		}
	}
	if got := commitTokens(nil, 6, nil); len(got) != 0 {
		t.Errorf("no subjects gave %q", got)
	}
	// Words the query already has make room for others.
	got = commitTokens(subjects, 2, map[string]bool{"state": true, "cookie": true})
	if want := []string{"oauth", "callback"}; !reflect.DeepEqual(got, want) {
		t.Errorf("commitTokens with skip = %q, want %q", got, want)
	}
}

func TestSessionQueryRepo(t *testing.T) {
	GitEnv(t)
	dir := filepath.Join(t.TempDir(), "checkout")
	NewRepo(t, dir, "feature/oauth-state-cookie", "git@github.com:acme/auth-service.git",
		"add login handler",
		"fix: state cookie dropped on the OAuth callback",
		"Set SameSite=Lax on the state cookie",
		"Merge branch 'main' into feature/oauth-state-cookie",
		"wip",
		"Document the callback flow",
	)
	q, project, skip := sessionQuery(context.Background(), dir, gitWait)
	if skip != "" {
		t.Fatalf("skipped: %s", skip)
	}
	// The origin remote names the project, not the checkout directory.
	if project != "auth-service" {
		t.Errorf("project = %q, want auth-service", project)
	}
	// Only the last five commits count ("login handler" is the sixth);
	// the branch's words are not repeated; "callback" is in two subjects.
	want := "auth-service oauth state cookie callback document flow samesite lax dropped"
	if q != want {
		t.Errorf("query = %q\nwant    %q", q, want)
	}

	// From a subdirectory the repository is the same.
	sub := filepath.Join(dir, "internal", "auth")
	if err := os.MkdirAll(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	if q2, _, _ := sessionQuery(context.Background(), sub, gitWait); q2 != q {
		t.Errorf("from a subdirectory: %q, want %q", q2, q)
	}
	if got := projectName(context.Background(), sub); got != "auth-service" {
		t.Errorf("projectName = %q", got)
	}
}

func TestSessionQueryTrunkAndNoRemote(t *testing.T) {
	GitEnv(t)
	dir := filepath.Join(t.TempDir(), "billing-api")
	NewRepo(t, dir, "main", "", "Use PgBouncer in transaction mode", "Shrink the postgres pool to 5")
	q, project, _ := sessionQuery(context.Background(), dir, gitWait)
	if project != "billing-api" {
		t.Errorf("project = %q, want the directory name", project)
	}
	if want := "billing-api shrink postgres pool pgbouncer transaction mode"; q != want {
		t.Errorf("query = %q, want %q", q, want)
	}
}

func TestSessionQueryWorktree(t *testing.T) {
	GitEnv(t)
	base := t.TempDir()
	main := filepath.Join(base, "repo")
	NewRepo(t, main, "main", "https://github.com/acme/ingest-worker.git", "Set GOMEMLIMIT from the memory limit")
	wt := filepath.Join(base, "wt")
	Git(t, main, "worktree", "add", "-q", "-b", "kafka-rebalance", wt)
	if fi, err := os.Stat(filepath.Join(wt, ".git")); err != nil || fi.IsDir() {
		t.Fatalf("worktree .git should be a file: %v", err)
	}
	q, project, _ := sessionQuery(context.Background(), wt, gitWait)
	if project != "ingest-worker" {
		t.Errorf("project = %q, want ingest-worker (from the shared config)", project)
	}
	if want := "ingest-worker kafka rebalance gomemlimit memory limit"; q != want {
		t.Errorf("query = %q, want %q", q, want)
	}
}

func TestSessionQueryNoRepo(t *testing.T) {
	GitEnv(t)
	dir := filepath.Join(t.TempDir(), "scratch-notes")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	q, project, skip := sessionQuery(context.Background(), dir, gitWait)
	if q != "scratch-notes" || project != "scratch-notes" || skip != "" {
		t.Errorf("sessionQuery = %q, %q, %q; want the directory name", q, project, skip)
	}
	// A directory that does not exist (a stale payload) still has a name.
	q, _, _ = sessionQuery(context.Background(), filepath.Join(dir, "gone"), gitWait)
	if q != "gone" {
		t.Errorf("missing dir: %q", q)
	}
}

func TestSessionQuerySkips(t *testing.T) {
	home := GitEnv(t)
	for _, cwd := range []string{home, home + "/", "", "/"} {
		q, project, skip := sessionQuery(context.Background(), cwd, gitWait)
		if skip == "" || q != "" || project != "" {
			t.Errorf("sessionQuery(%q) = %q, %q, %q; want a skip", cwd, q, project, skip)
		}
	}
	if got := projectName(context.Background(), home); got != "" {
		t.Errorf("projectName($HOME) = %q", got)
	}
}

func TestSessionQueryDetachedAndBrokenGitFile(t *testing.T) {
	GitEnv(t)
	dir := filepath.Join(t.TempDir(), "svc")
	NewRepo(t, dir, "feature/redis-eviction", "", "Move sessions to their own redis")
	Git(t, dir, "checkout", "-q", "--detach")
	q, _, _ := sessionQuery(context.Background(), dir, gitWait)
	if strings.Contains(q, "eviction") || !strings.Contains(q, "redis") {
		t.Errorf("detached HEAD: query %q should hold commit words but no branch words", q)
	}

	// A .git file this reader cannot follow falls back to git, which
	// fails too here: the directory name is still the project.
	odd := filepath.Join(t.TempDir(), "odd")
	if err := os.MkdirAll(odd, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(odd, ".git"), []byte("not a gitdir line\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if q, p, _ := sessionQuery(context.Background(), odd, gitWait); q != "odd" || p != "odd" {
		t.Errorf("broken .git file: %q, %q", q, p)
	}
}
