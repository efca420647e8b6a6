package security_test

// The trust boundary of `reflect sync` (issue 27): whoever can push to the
// team's learnings repository must not be able to make a teammate's sync
// check out a symlink, a submodule or any file that is not a learning.
// Each test pushes a hostile tree with plain git from a second clone, as
// an attacker would, and syncs a victim machine against it.

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reflectkb/reflect/kbsync"
	"github.com/reflectkb/reflect/store"
)

type syncWorld struct {
	root, home, remote string
}

func newSyncWorld(t *testing.T) *syncWorld {
	t.Helper()
	root := t.TempDir()
	w := &syncWorld{root: root, home: filepath.Join(root, "home"), remote: filepath.Join(root, "remote.git")}
	t.Setenv("HOME", w.home)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(w.home, ".config"))
	if err := os.MkdirAll(filepath.Join(w.home, ".ssh"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(w.home, ".ssh", "id_rsa"), []byte("-----BEGIN OPENSSH PRIVATE KEY-----\nvictim\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	git(t, root, "init", "-q", "--bare", "-b", "main", w.remote)
	return w
}

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func (w *syncWorld) machine(name string) kbsync.Options {
	return kbsync.Options{Dir: filepath.Join(w.root, name), Remote: w.remote, Host: name, Timeout: 20 * time.Second}
}

var syncT0 = time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)

func learningText(t *testing.T, id, title string) []byte {
	t.Helper()
	l := &store.Learning{ID: id, Title: title, KeyInsight: title + " insight", Confidence: "medium",
		Created: syncT0, Updated: syncT0, Body: "## Problem\n\n" + title + "\n"}
	data, err := l.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func writeLearning(t *testing.T, o kbsync.Options, id, title string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(o.Dir, "documents"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(o.Dir, "documents", id+".md"), learningText(t, id, title), 0o644); err != nil {
		t.Fatal(err)
	}
}

// attack clones the remote, lets change shape the tree with plain git,
// commits and pushes; it returns the commit's short hash.
func (w *syncWorld) attack(t *testing.T, change func(dir string)) string {
	t.Helper()
	dir := filepath.Join(w.root, "attacker")
	if _, err := os.Stat(dir); err != nil {
		git(t, w.root, "clone", "-q", w.remote, dir)
		git(t, dir, "config", "user.email", "mallory@example.com")
		git(t, dir, "config", "user.name", "mallory")
		git(t, dir, "config", "core.symlinks", "true")
	} else {
		git(t, dir, "pull", "-q", "--no-rebase", "origin", "main")
	}
	change(dir)
	git(t, dir, "commit", "-q", "--no-verify", "-m", "helpful notes")
	git(t, dir, "push", "-q", "origin", "HEAD:main")
	return strings.TrimSpace(git(t, dir, "rev-parse", "--short", "HEAD"))
}

func mustFile(t *testing.T, dir, name string, data []byte) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func symlink(t *testing.T, target, name string) {
	t.Helper()
	if err := os.Symlink(target, name); err != nil {
		t.Fatal(err)
	}
}

// refusedErr asserts err is a refusal naming each path (with the commit)
// and returns it.
func refusedErr(t *testing.T, err error, commit string, paths ...string) *kbsync.RefusedError {
	t.Helper()
	var re *kbsync.RefusedError
	if !errors.Is(err, kbsync.ErrRefused) || !errors.As(err, &re) {
		t.Fatalf("err = %v, want a refusal", err)
	}
	for _, p := range paths {
		found := false
		for _, r := range re.Refused {
			if r.Path == p {
				found = true
				if r.Commit != commit {
					t.Errorf("%s: refused with commit %q, want %q", p, r.Commit, commit)
				}
			}
		}
		if !found {
			t.Errorf("%s was not named as refused: %v", p, err)
		}
		if !strings.Contains(err.Error(), p) {
			t.Errorf("the error does not name %s: %v", p, err)
		}
	}
	return re
}

func lstatMissing(t *testing.T, p string) {
	t.Helper()
	if _, err := os.Lstat(p); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s reached the work tree (lstat: %v)", p, err)
	}
}

func TestSyncRefusesSymlinkedLearning(t *testing.T) {
	w := newSyncWorld(t)
	a := w.machine("a")
	writeLearning(t, a, "lrn-deploy-notes-000001", "Deploy notes")
	if _, err := kbsync.Init(context.Background(), a); err != nil {
		t.Fatal(err)
	}
	commit := w.attack(t, func(dir string) {
		// A new learning that is a link to the victim's key, an existing
		// learning turned into one, and an honest learning beside them.
		symlink(t, "../../home/.ssh/id_rsa", filepath.Join(dir, "documents", "lrn-deploy-notes-a1a1a1.md"))
		if err := os.Remove(filepath.Join(dir, "documents", "lrn-deploy-notes-000001.md")); err != nil {
			t.Fatal(err)
		}
		symlink(t, "../../home/.ssh/id_rsa", filepath.Join(dir, "documents", "lrn-deploy-notes-000001.md"))
		mustFile(t, dir, "documents/lrn-honest-b2b2b2.md", learningText(t, "lrn-honest-b2b2b2", "Honest lesson"))
		git(t, dir, "add", "-A")
	})
	res, err := kbsync.Sync(context.Background(), a)
	re := refusedErr(t, err, commit, "documents/lrn-deploy-notes-a1a1a1.md", "documents/lrn-deploy-notes-000001.md")
	if re.Whole {
		t.Error("the honest learning could have been merged, but the whole merge was refused")
	}
	lstatMissing(t, filepath.Join(a.Dir, "documents", "lrn-deploy-notes-a1a1a1.md"))
	fi, lerr := os.Lstat(filepath.Join(a.Dir, "documents", "lrn-deploy-notes-000001.md"))
	if lerr != nil || !fi.Mode().IsRegular() {
		t.Errorf("the existing learning is no longer a regular file: %v %v", fi, lerr)
	}
	if l, err := store.Open(filepath.Join(a.Dir, "documents")).Read("lrn-deploy-notes-000001"); err != nil || l.Title != "Deploy notes" {
		t.Errorf("the existing learning changed: %v %v", l, err)
	}
	if _, err := store.Open(filepath.Join(a.Dir, "documents")).Read("lrn-honest-b2b2b2"); err != nil {
		t.Errorf("the honest learning did not arrive: %v", err)
	}
	if !res.Pushed {
		t.Error("the sanitised merge was not pushed")
	}
	tip := git(t, w.remote, "ls-tree", "-r", "main")
	if strings.Contains(tip, "120000") || !strings.Contains(tip, "lrn-deploy-notes-000001.md") {
		t.Errorf("the remote's tip still holds the links, or lost the learning:\n%s", tip)
	}
	// Refused once: the next sync is clean.
	if _, err := kbsync.Sync(context.Background(), a); err != nil {
		t.Errorf("the sync after a refusal: %v", err)
	}
}

func TestSyncRefusesSubmodulesAndForeignPaths(t *testing.T) {
	w := newSyncWorld(t)
	a := w.machine("a")
	writeLearning(t, a, "lrn-mine-000001", "Mine")
	if _, err := kbsync.Init(context.Background(), a); err != nil {
		t.Fatal(err)
	}
	mustFile(t, a.Dir, "index/catalog.db", []byte("the local index"))
	// A setting of the user's own must not hide a submodule from the check.
	git(t, a.Dir, "config", "diff.ignoreSubmodules", "all")
	big := append(learningText(t, "lrn-big-c3c3c3", "Big"), []byte(strings.Repeat("x", store.MaxDocumentSize))...)
	commit := w.attack(t, func(dir string) {
		mustFile(t, dir, ".gitmodules", []byte("[submodule \"x\"]\n\tpath = documents/lrn-sub-d4d4d4.md\n\turl = ../remote.git\n"))
		mustFile(t, dir, "index/catalog.db", []byte("attacker's index"))
		mustFile(t, dir, "evil.sh", []byte("#!/bin/sh\necho pwned\n"))
		mustFile(t, dir, "documents/lrn-\x1b]0;owned\x07-000009.md", learningText(t, "lrn-esc-000009", "Esc"))
		mustFile(t, dir, "documents/notes.txt", []byte("x"))
		mustFile(t, dir, "documents/sub/lrn-deep-e5e5e5.md", learningText(t, "lrn-deep-e5e5e5", "Deep"))
		mustFile(t, dir, "documents/lrn-big-c3c3c3.md", big)
		mustFile(t, dir, "documents/lrn-fine-f6f6f6.md", learningText(t, "lrn-fine-f6f6f6", "Fine"))
		git(t, dir, "add", "-f", "-A")
		head := strings.TrimSpace(git(t, dir, "rev-parse", "HEAD"))
		git(t, dir, "update-index", "--add", "--cacheinfo", "160000,"+head+",documents/lrn-sub-d4d4d4.md")
	})
	_, err := kbsync.Sync(context.Background(), a)
	refusedErr(t, err, commit, "documents/lrn-sub-d4d4d4.md", ".gitmodules", "index/catalog.db", "evil.sh",
		"documents/notes.txt", "documents/sub/lrn-deep-e5e5e5.md", "documents/lrn-big-c3c3c3.md")
	if strings.ContainsAny(err.Error(), "\x1b\x07") || !strings.Contains(err.Error(), `"documents/lrn-\x1b]0;owned\a-000009.md"`) {
		t.Errorf("a path's control characters reach the error unquoted: %q", err)
	}
	for _, p := range []string{"documents/lrn-sub-d4d4d4.md", ".gitmodules", "evil.sh", "documents/notes.txt", "documents/sub", "documents/lrn-big-c3c3c3.md"} {
		lstatMissing(t, filepath.Join(a.Dir, p))
	}
	if data, _ := os.ReadFile(filepath.Join(a.Dir, "index", "catalog.db")); string(data) != "the local index" {
		t.Errorf("the local index was replaced: %q", data)
	}
	if _, err := store.Open(filepath.Join(a.Dir, "documents")).Read("lrn-fine-f6f6f6"); err != nil {
		t.Errorf("the valid learning did not arrive: %v", err)
	}
	// The refused index/catalog.db does not block later merges.
	writeLearning(t, a, "lrn-later-000002", "Later")
	if _, err := kbsync.Sync(context.Background(), a); err != nil {
		t.Errorf("the sync after a refusal: %v", err)
	}
}

func TestSyncRefusesDocumentsReplaced(t *testing.T) {
	w := newSyncWorld(t)
	a := w.machine("a")
	writeLearning(t, a, "lrn-mine-000001", "Mine")
	if _, err := kbsync.Init(context.Background(), a); err != nil {
		t.Fatal(err)
	}
	commit := w.attack(t, func(dir string) {
		git(t, dir, "rm", "-r", "-q", "documents")
		symlink(t, "../home/.ssh", filepath.Join(dir, "documents"))
		git(t, dir, "add", "-A")
	})
	writeLearning(t, a, "lrn-new-000002", "New here")
	res, err := kbsync.Sync(context.Background(), a)
	re := refusedErr(t, err, commit, "documents")
	if !re.Whole || !strings.Contains(err.Error(), "nothing from the remote was merged") {
		t.Errorf("whole = %v, err = %v: the merge must be refused altogether and say so", re.Whole, err)
	}
	fi, lerr := os.Lstat(filepath.Join(a.Dir, "documents"))
	if lerr != nil || !fi.IsDir() {
		t.Fatalf("documents/ is no longer a directory: %v %v", fi, lerr)
	}
	for _, id := range []string{"lrn-mine-000001", "lrn-new-000002"} {
		if _, err := store.Open(filepath.Join(a.Dir, "documents")).Read(id); err != nil {
			t.Errorf("local learning %s lost: %v", id, err)
		}
	}
	if !contains(res.Committed, "documents/lrn-new-000002.md") || !strings.Contains(git(t, a.Dir, "ls-files"), "lrn-new-000002") {
		t.Errorf("the local learning was not committed locally: %+v", res.Committed)
	}

	// A new machine adopting this remote is refused before anything is
	// written through the link.
	sshBefore := dirList(t, filepath.Join(w.home, ".ssh"))
	c := w.machine("c")
	writeLearning(t, c, "lrn-c-000003", "From c")
	_, err = kbsync.Init(context.Background(), c)
	if re := refusedErr(t, err, commit, "documents"); !re.Whole {
		t.Error("init merged part of a remote that replaced documents/")
	}
	if got := dirList(t, filepath.Join(w.home, ".ssh")); got != sshBefore {
		t.Errorf("files were written into ~/.ssh: %s, was %s", got, sshBefore)
	}
	if fi, err := os.Lstat(filepath.Join(c.Dir, "documents")); err != nil || !fi.IsDir() {
		t.Errorf("c's documents/ is not a directory: %v %v", fi, err)
	}
	if _, err := store.Open(filepath.Join(c.Dir, "documents")).Read("lrn-c-000003"); err != nil {
		t.Errorf("c's learning lost: %v", err)
	}
}

func TestSyncRefusesSymlinkedDocumentsDirectory(t *testing.T) {
	w := newSyncWorld(t)
	a := w.machine("a")
	if _, err := kbsync.Init(context.Background(), a); err != nil {
		t.Fatal(err)
	}
	// However it got there, a documents/ that is a link is not synced into.
	if err := os.RemoveAll(filepath.Join(a.Dir, "documents")); err != nil {
		t.Fatal(err)
	}
	symlink(t, filepath.Join(w.home, ".ssh"), filepath.Join(a.Dir, "documents"))
	if _, err := kbsync.Sync(context.Background(), a); !errors.Is(err, kbsync.ErrDirty) || !strings.Contains(err.Error(), "documents") {
		t.Errorf("sync with documents/ a symlink: %v, want ErrDirty naming it", err)
	}
}

func dirList(t *testing.T, dir string) string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return strings.Join(names, ",")
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func TestSyncDropsRemoteAttributes(t *testing.T) {
	w := newSyncWorld(t)
	a := w.machine("a")
	if _, err := kbsync.Init(context.Background(), a); err != nil {
		t.Fatal(err)
	}
	git(t, a.Dir, "config", "core.symlinks", "true")
	w.attack(t, func(dir string) {
		f, err := os.OpenFile(filepath.Join(dir, ".gitattributes"), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = f.WriteString("documents/*.md working-tree-encoding=UTF-16\ndocuments/*.md filter=evil merge=binary\n")
		f.Close()
		mustFile(t, dir, ".gitignore", []byte("*.md\n"))
		git(t, dir, "add", "-A")
	})
	if _, err := kbsync.Sync(context.Background(), a); err != nil {
		t.Fatal(err)
	}
	if out := git(t, a.Dir, "config", "core.symlinks"); strings.TrimSpace(out) != "false" {
		t.Errorf("core.symlinks = %q after a sync, want false", out)
	}
	for _, f := range []string{".gitattributes", ".gitignore"} {
		data, _ := os.ReadFile(filepath.Join(a.Dir, f))
		if strings.Contains(string(data), "UTF-16") || strings.Contains(string(data), "merge=binary") || strings.Contains(string(data), "*.md\n") && f == ".gitignore" {
			t.Errorf("%s keeps the remote's lines:\n%s", f, data)
		}
	}
	// A learning arriving after the attributes is checked out as written.
	w.attack(t, func(dir string) {
		// The attacker's own clone commits the file as it is.
		mustFile(t, dir, ".git/info/attributes", []byte("* !working-tree-encoding\n"))
		mustFile(t, dir, "documents/lrn-after-a7a7a7.md", learningText(t, "lrn-after-a7a7a7", "After"))
		git(t, dir, "add", "-f", "-A")
	})
	// And a learning written here is still seen and committed.
	writeLearning(t, a, "lrn-local-000001", "Local")
	res, err := kbsync.Sync(context.Background(), a)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.Open(filepath.Join(a.Dir, "documents")).Read("lrn-after-a7a7a7"); err != nil {
		t.Errorf("the learning arrived converted: %v", err)
	}
	if !contains(res.Committed, "documents/lrn-local-000001.md") {
		t.Errorf("the local learning was not committed (a remote .gitignore hid it): %+v", res.Committed)
	}
	tip := git(t, w.remote, "show", "main:.gitattributes")
	if strings.Contains(tip, "UTF-16") || strings.Contains(tip, "merge=binary") {
		t.Errorf("the remote's .gitattributes still holds the attack after the victim's push:\n%s", tip)
	}
}

// A remote a hosting service created with a README (and a learning pushed
// by hand): init names the README, leaves it out, adopts the rest, and its
// push removes the README from the remote's tip.
func TestInitLeavesOutAForeignFileOfTheRemote(t *testing.T) {
	w := newSyncWorld(t)
	seed := filepath.Join(w.root, "seed")
	git(t, w.root, "init", "-q", "-b", "main", seed)
	mustFile(t, seed, "README.md", []byte("# learnings\n"))
	mustFile(t, seed, "documents/lrn-seeded-a8a8a8.md", learningText(t, "lrn-seeded-a8a8a8", "Seeded"))
	git(t, seed, "add", "-A")
	git(t, seed, "-c", "user.email=s@example.com", "-c", "user.name=s", "commit", "-q", "-m", "Initial commit")
	git(t, seed, "push", "-q", w.remote, "HEAD:main")
	commit := strings.TrimSpace(git(t, seed, "rev-parse", "--short", "HEAD"))

	a := w.machine("a")
	writeLearning(t, a, "lrn-mine-000001", "Mine")
	res, err := kbsync.Init(context.Background(), a)
	if re := refusedErr(t, err, commit, "README.md"); re.Whole {
		t.Error("the whole remote was refused for a README")
	}
	lstatMissing(t, filepath.Join(a.Dir, "README.md"))
	if _, err := store.Open(filepath.Join(a.Dir, "documents")).Read("lrn-seeded-a8a8a8"); err != nil {
		t.Errorf("the remote's learning was not adopted: %v", err)
	}
	tip := git(t, w.remote, "ls-tree", "-r", "--name-only", "main")
	if !res.Pushed || strings.Contains(tip, "README.md") || !strings.Contains(tip, "lrn-mine-000001") {
		t.Errorf("pushed %v, remote tip:\n%s", res.Pushed, tip)
	}
	if _, err := kbsync.Sync(context.Background(), a); err != nil {
		t.Errorf("the sync after init: %v", err)
	}
}
