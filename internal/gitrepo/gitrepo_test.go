package gitrepo

import (
	"os"
	"path/filepath"
	"testing"
)

func TestRemoteName(t *testing.T) {
	for url, want := range map[string]string{
		"git@github.com:acme/auth-service.git":    "auth-service",
		"https://github.com/acme/auth-service":    "auth-service",
		"https://github.com/acme/auth-service/":   "auth-service",
		"ssh://git@host:2222/srv/billing-api.git": "billing-api",
		"/srv/git/infra.git":                      "infra",
		"":                                        "",
	} {
		if got := remoteName(url); got != want {
			t.Errorf("remoteName(%q) = %q, want %q", url, got, want)
		}
	}
}

func TestReadHeadAndConfig(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("HEAD", "ref: refs/heads/.invalid\n") // reftable: ask git
	if _, ok := readHead(dir); ok {
		t.Error("reftable placeholder HEAD should not be trusted")
	}
	write("HEAD", "0123456789abcdef0123456789abcdef01234567\n")
	if b, ok := readHead(dir); !ok || b != "" {
		t.Errorf("detached HEAD = %q, %v", b, ok)
	}
	write("config", "[core]\n\tbare = false\n[remote \"upstream\"]\n\turl = git@x:a/wrong.git\n[remote  \"origin\"]\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n\tURL = \"https://example.com/a/right.git\"\n")
	if u, ok := readOriginURL(dir); !ok || u != "https://example.com/a/right.git" {
		t.Errorf("origin url = %q, %v", u, ok)
	}
	write("config", "[core]\n\tbare = false\n")
	if u, ok := readOriginURL(dir); !ok || u != "" {
		t.Errorf("no origin: %q, %v", u, ok)
	}
}

func TestRoot(t *testing.T) {
	dir := t.TempDir()
	repo := filepath.Join(dir, "repo")
	sub := filepath.Join(repo, "a", "b")
	wt := filepath.Join(dir, "worktree")
	plain := filepath.Join(dir, "plain")
	for _, d := range []string{filepath.Join(repo, ".git"), sub, wt, plain} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	// A worktree has a .git file, not a directory: it is a root all the same.
	if err := os.WriteFile(filepath.Join(wt, ".git"), []byte("gitdir: "+filepath.Join(repo, ".git", "worktrees", "wt")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ cwd, want string }{
		{repo, repo},
		{sub, repo},
		{sub + "/", repo},
		{wt, wt},
		{"", ""},
	} {
		if got := Root(tc.cwd); got != tc.want {
			t.Errorf("Root(%q) = %q, want %q", tc.cwd, got, tc.want)
		}
	}
	// Outside any repository, unless the temporary directory is itself
	// inside one, which would say nothing about Root.
	if _, _, inRepo := findGitDir(dir); !inRepo {
		if got := Root(plain); got != "" {
			t.Errorf("Root outside a repository = %q, want \"\"", got)
		}
	}
}
