package kbsync

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reflectkb/reflect/internal/testfs"
	"github.com/reflectkb/reflect/store"
)

// The test binary is also the merge driver and a sync process: git runs
// it as `<binary> merge-learning %O %A %B %P`, and the concurrency test
// starts it with helperEnv set to run one Sync in a real process.
const (
	helperEnv      = "REFLECT_KBSYNC_TEST_HELPER"
	helperDirEnv   = "REFLECT_KBSYNC_TEST_DIR"
	helperStartEnv = "REFLECT_KBSYNC_TEST_START"
)

func TestMain(m *testing.M) {
	if len(os.Args) >= 5 && os.Args[1] == "merge-learning" {
		path := os.Args[3]
		if len(os.Args) > 5 {
			path = os.Args[5]
		}
		res, err := MergeFileIn(context.Background(), os.Args[2], os.Args[3], os.Args[4], path, DriverEnvFrom(os.Getenv))
		if err != nil || !res.Clean {
			fmt.Fprintln(os.Stderr, "merge-learning:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	if os.Getenv(helperEnv) == "sync" {
		if ns, err := time.ParseDuration(os.Getenv(helperStartEnv) + "ns"); err == nil {
			time.Sleep(time.Until(time.Unix(0, int64(ns))))
		}
		res, err := Sync(context.Background(), Options{Dir: os.Getenv(helperDirEnv), Driver: driver()})
		_ = json.NewEncoder(os.Stdout).Encode(res)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(runIsolated(m))
}

// runIsolated runs the tests with a HOME of their own (no user git
// identity or config, no system config), set once for the whole process
// rather than per test, so that the tests can run in parallel; git, the
// merge driver and the helper processes inherit it.
func runIsolated(m *testing.M) int {
	home, err := os.MkdirTemp("", "kbsync-test-home-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(home)
	for k, v := range map[string]string{"HOME": home, "GIT_CONFIG_NOSYSTEM": "1", "XDG_CONFIG_HOME": filepath.Join(home, ".config")} {
		if err := os.Setenv(k, v); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	return m.Run()
}

func driver() string {
	exe, err := os.Executable()
	if err != nil {
		panic(err)
	}
	return exe
}

// isolate gives the test a directory of its own; HOME is the process's,
// which TestMain isolated (runIsolated).
func isolate(t *testing.T) string {
	t.Helper()
	return t.TempDir()
}

func gitT(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func bareRemote(t *testing.T, root string) string {
	t.Helper()
	dir := filepath.Join(root, "remote.git")
	gitT(t, root, "init", "-q", "--bare", "-b", "main", dir)
	return dir
}

func machine(root, name, remote string) Options {
	return Options{Dir: filepath.Join(root, name), Remote: remote, Driver: driver(), Host: name, Timeout: 20 * time.Second}
}

var t0 = time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)

func newLearning(title, insight string) *store.Learning {
	return &store.Learning{Title: title, KeyInsight: insight, Confidence: "medium", Created: t0, Updated: t0,
		Tags: []string{"t"}, Body: "## Problem\n\nline one\n\nline two\n\nline three\n"}
}

func write(t *testing.T, o Options, l *store.Learning) *store.Learning {
	t.Helper()
	l.FillDefaults(t0)
	if err := store.Open(filepath.Join(o.Dir, "documents")).Write(l); err != nil {
		t.Fatal(err)
	}
	return l
}

func read(t *testing.T, o Options, id string) *store.Learning {
	t.Helper()
	l, err := store.Open(filepath.Join(o.Dir, "documents")).Read(id)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func mustSync(t *testing.T, o Options) *Result {
	t.Helper()
	res, err := Sync(context.Background(), o)
	if err != nil {
		t.Fatalf("sync %s: %v", o.Host, err)
	}
	return res
}

func mustInit(t *testing.T, o Options) *Result {
	t.Helper()
	res, err := Init(context.Background(), o)
	if err != nil {
		t.Fatalf("init %s: %v", o.Host, err)
	}
	return res
}

// remoteFiles lists the files at the tip of the remote's main.
func remoteFiles(t *testing.T, remote string) string {
	return gitT(t, remote, "ls-tree", "-r", "--name-only", "main")
}

// allObjects is the content of every object in a repository: commits,
// trees and blobs, reachable or not.
func allObjects(t *testing.T, gitDir string) string {
	t.Helper()
	cmd := exec.Command("git", "--git-dir", gitDir, "cat-file", "--batch-all-objects", "--batch")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

func TestInitJoinAndSyncBetweenMachines(t *testing.T) {
	t.Parallel()
	root := isolate(t)
	remote := bareRemote(t, root)
	a, b := machine(root, "a", remote), machine(root, "b", remote)
	la := write(t, a, newLearning("Alpha lesson", "alpha insight"))
	res := mustInit(t, a)
	if !res.Created || !res.Pushed {
		t.Fatalf("init a: %+v", res)
	}
	files := remoteFiles(t, remote)
	for _, want := range []string{".gitignore", ".gitattributes", "documents/" + la.ID + ".md"} {
		if !strings.Contains(files, want) {
			t.Errorf("remote lacks %s:\n%s", want, files)
		}
	}
	if got := gitT(t, a.Dir, "log", "-1", "--format=%ae"); strings.TrimSpace(got) != "reflect@a" {
		t.Errorf("commit author = %q, want the fallback identity reflect@a", got)
	}
	attrs, _ := os.ReadFile(filepath.Join(a.Dir, ".gitattributes"))
	if !strings.Contains(string(attrs), "documents/*.md merge=reflect-learning") {
		t.Errorf(".gitattributes = %q", attrs)
	}

	lb := write(t, b, newLearning("Beta lesson", "beta insight"))
	res = mustInit(t, b)
	if !contains(res.Pulled, "documents/"+la.ID+".md") {
		t.Errorf("b pulled %v, want a's learning", res.Pulled)
	}
	read(t, b, la.ID)
	res = mustSync(t, a)
	if !contains(res.Pulled, "documents/"+lb.ID+".md") {
		t.Errorf("a pulled %v, want b's learning", res.Pulled)
	}
	read(t, a, lb.ID)

	// Nothing changed anywhere: a sync commits and pulls nothing.
	res = mustSync(t, a)
	if len(res.Committed) != 0 || len(res.Pulled) != 0 {
		t.Errorf("idle sync: %+v", res)
	}
	// index/ is derived and never committed.
	if err := os.MkdirAll(filepath.Join(a.Dir, "index"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(a.Dir, "index", "catalog.db"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	mustSync(t, a)
	if strings.Contains(remoteFiles(t, remote), "index/") {
		t.Error("index/ reached the remote")
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func TestPersonalAndPrivateNeverLeave(t *testing.T) {
	t.Parallel()
	root := isolate(t)
	remote := bareRemote(t, root)
	a := machine(root, "a", remote)
	shared := write(t, a, newLearning("Shared lesson", "shared"))
	p := newLearning("Personal lesson", "mine alone")
	p.Scope = "personal"
	write(t, a, p)
	q := newLearning("Private lesson", "also mine")
	q.Private = true
	write(t, a, q)
	if err := store.Open(filepath.Join(a.Dir, "documents")).WriteSidecar(&store.Sidecar{DocumentID: p.ID,
		Entities: []store.Entity{{Name: "secretproject", Type: "concept"}}}); err != nil {
		t.Fatal(err)
	}
	res := mustInit(t, a)
	held := 0
	for _, h := range res.Held {
		if h.Reason == ReasonPersonal {
			held++
		}
	}
	if held != 3 {
		t.Errorf("held %+v, want the two learnings and the sidecar as personal", res.Held)
	}
	objects := allObjects(t, remote)
	for _, s := range []string{p.ID, q.ID, "mine alone", "also mine", "secretproject"} {
		if strings.Contains(objects, s) {
			t.Errorf("remote holds %q", s)
		}
	}
	if !strings.Contains(objects, shared.ID) {
		t.Error("the shared learning did not reach the remote")
	}

	// A shared learning made personal stops syncing.
	shared.Scope = "personal"
	shared.Updated = t0.Add(time.Hour)
	write(t, a, shared)
	mustSync(t, a)
	if strings.Contains(remoteFiles(t, remote), shared.ID) {
		t.Error("a learning made personal is still at the remote's tip")
	}
	if _, err := os.Stat(filepath.Join(a.Dir, "documents", shared.ID+".md")); err != nil {
		t.Error("the learning made personal was removed from this machine:", err)
	}
}

// fakeToken is shaped like a GitHub token; it is built here so no secret
// scanner flags this file.
var fakeToken = "ghp_" + "FAKEexample0123456789abcdefghijklmno"

func TestSecretHeldBackAndNeverInHistory(t *testing.T) {
	t.Parallel()
	root := isolate(t)
	remote := bareRemote(t, root)
	a := machine(root, "a", remote)
	mustInit(t, a)
	ok := write(t, a, newLearning("Clean lesson", "clean"))
	leaky := write(t, a, newLearning("Leaky lesson", "leaky"))
	path := filepath.Join(a.Dir, "documents", leaky.ID+".md")
	data, _ := os.ReadFile(path)
	// Edited by hand after reflect wrote it (store.Write redacts).
	data = append(data, []byte("\nclone with https://x:"+fakeToken+"@github.com/o/r\n")...)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	wantLine := strings.Count(string(data), "\n") // the token is on the last line
	res, err := Sync(context.Background(), a)
	var se *SecretError
	if !errors.As(err, &se) || !errors.Is(err, ErrSecretHeld) {
		t.Fatalf("err = %v, want a SecretError", err)
	}
	if len(se.Held) != 1 || se.Held[0].Path != "documents/"+leaky.ID+".md" || se.Held[0].Line != wantLine {
		t.Errorf("held = %+v, want %s line %d", se.Held, leaky.ID, wantLine)
	}
	if !res.Pushed || !strings.Contains(remoteFiles(t, remote), ok.ID) {
		t.Error("the clean learning was not synced alongside the held one")
	}
	// Fixed, it syncs; the secret is in no object, here or there.
	if err := os.WriteFile(path, []byte(strings.ReplaceAll(string(data), fakeToken, "TOKEN")), 0o644); err != nil {
		t.Fatal(err)
	}
	mustSync(t, a)
	if !strings.Contains(remoteFiles(t, remote), leaky.ID) {
		t.Error("the fixed learning did not sync")
	}
	for _, dir := range []string{remote, filepath.Join(a.Dir, ".git")} {
		if strings.Contains(allObjects(t, dir), fakeToken) {
			t.Errorf("the secret is in an object of %s", dir)
		}
	}
}

func TestRejectingRemote(t *testing.T) {
	t.Parallel()
	root := isolate(t)
	remote := bareRemote(t, root)
	hook := filepath.Join(remote, "hooks", "pre-receive")
	if err := testfs.WriteExecutable(hook, []byte("#!/bin/sh\necho 'pushes are closed' >&2\nexit 1\n")); err != nil {
		t.Fatal(err)
	}
	a := machine(root, "a", remote)
	write(t, a, newLearning("A lesson", "insight"))
	res, err := Init(context.Background(), a)
	if !errors.Is(err, ErrRejected) {
		t.Fatalf("err = %v, want ErrRejected", err)
	}
	if res.Pushed || len(res.Committed) == 0 || gitT(t, a.Dir, "log", "--oneline") == "" {
		t.Errorf("the local commit should stand: %+v", res)
	}
	if res.Retries != 0 {
		t.Errorf("a push refused by a hook was retried %d times", res.Retries)
	}
}

func TestOfflineRemote(t *testing.T) {
	t.Parallel()
	root := isolate(t)
	a := machine(root, "a", filepath.Join(root, "no", "such", "remote.git"))
	write(t, a, newLearning("A lesson", "insight"))
	_, err := Init(context.Background(), a)
	if !errors.Is(err, ErrOffline) {
		t.Fatalf("err = %v, want ErrOffline", err)
	}
	if !strings.Contains(gitT(t, a.Dir, "log", "--stat"), "documents/") {
		t.Error("the learning was not committed locally")
	}
}

func TestSyncBeforeInit(t *testing.T) {
	t.Parallel()
	root := isolate(t)
	_, err := Sync(context.Background(), machine(root, "a", ""))
	if !errors.Is(err, ErrNotInitialized) {
		t.Fatalf("err = %v, want ErrNotInitialized", err)
	}
}

func TestInitRefusesForeignChanges(t *testing.T) {
	t.Parallel()
	root := isolate(t)
	a := machine(root, "a", "")
	if err := os.MkdirAll(a.Dir, 0o755); err != nil {
		t.Fatal(err)
	}
	gitT(t, a.Dir, "init", "-q", "-b", "main")
	if err := os.WriteFile(filepath.Join(a.Dir, "notes.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Init(context.Background(), a)
	if !errors.Is(err, ErrDirty) || !strings.Contains(err.Error(), "notes.txt") {
		t.Fatalf("err = %v, want ErrDirty naming notes.txt", err)
	}
	// Once committed, the repository is adopted and the file left alone.
	gitT(t, a.Dir, "add", "notes.txt")
	gitT(t, a.Dir, "-c", "user.email=u@example.com", "-c", "user.name=u", "commit", "-q", "-m", "notes")
	mustInit(t, a)
	if !strings.Contains(gitT(t, a.Dir, "ls-files"), "notes.txt") {
		t.Error("the user's file was dropped")
	}
}

func TestSameLearningEditedOnBothSides(t *testing.T) {
	t.Parallel()
	root := isolate(t)
	remote := bareRemote(t, root)
	a, b := machine(root, "a", remote), machine(root, "b", remote)
	l := write(t, a, newLearning("Shared lesson", "insight"))
	mustInit(t, a)
	mustInit(t, b)

	la := read(t, a, l.ID)
	la.Tags = append(la.Tags, "from-a")
	la.Confidence = "low"
	la.Updated = t0.Add(time.Hour)
	la.Body = strings.Replace(la.Body, "line one", "line one, edited on a", 1)
	write(t, a, la)
	lb := read(t, b, l.ID)
	lb.Tags = append(lb.Tags, "from-b")
	lb.Confidence = "high"
	lb.Category = "debugging"
	lb.Updated = t0.Add(2 * time.Hour)
	lb.Body = strings.Replace(lb.Body, "line three", "line three, edited on b", 1)
	write(t, b, lb)
	mustSync(t, a)
	mustSync(t, b)
	mustSync(t, a)
	for _, o := range []Options{a, b} {
		got := read(t, o, l.ID)
		if strings.Join(got.Tags, ",") != "t,from-b,from-a" && strings.Join(got.Tags, ",") != "t,from-a,from-b" {
			t.Errorf("%s: tags %v, want the union", o.Host, got.Tags)
		}
		if got.Confidence != "high" || got.Category != "debugging" {
			t.Errorf("%s: confidence %q category %q: the later edit (b) should win both", o.Host, got.Confidence, got.Category)
		}
		if !strings.Contains(got.Body, "edited on a") || !strings.Contains(got.Body, "edited on b") || got.NeedsReview {
			t.Errorf("%s: body not merged cleanly:\n%s", o.Host, got.Body)
		}
	}

	// The same line changed on both sides: both kept, needs_review.
	la = read(t, a, l.ID)
	la.Body = strings.Replace(la.Body, "line two", "line two says A", 1)
	la.Updated = t0.Add(3 * time.Hour)
	write(t, a, la)
	lb = read(t, b, l.ID)
	lb.Body = strings.Replace(lb.Body, "line two", "line two says B", 1)
	lb.Updated = t0.Add(4 * time.Hour)
	write(t, b, lb)
	mustSync(t, a)
	mustSync(t, b)
	got := read(t, b, l.ID)
	if !got.NeedsReview || !strings.Contains(got.Body, "says A") || !strings.Contains(got.Body, "says B") {
		t.Errorf("conflicting bodies: needs_review=%v body:\n%s", got.NeedsReview, got.Body)
	}
	if strings.Contains(got.Body, "<<<<<<<") {
		t.Error("conflict markers left in the body")
	}
}

func TestEditVersusDelete(t *testing.T) {
	t.Parallel()
	root := isolate(t)
	remote := bareRemote(t, root)
	a, b := machine(root, "a", remote), machine(root, "b", remote)
	l := write(t, a, newLearning("Contested lesson", "insight"))
	mustInit(t, a)
	mustInit(t, b)
	if err := store.Open(filepath.Join(a.Dir, "documents")).Delete(l.ID); err != nil {
		t.Fatal(err)
	}
	mustSync(t, a)
	lb := read(t, b, l.ID)
	lb.Body += "\nmore on b\n"
	lb.Updated = t0.Add(time.Hour)
	write(t, b, lb)
	res := mustSync(t, b)
	if !contains(res.Kept, "documents/"+l.ID+".md") {
		t.Errorf("kept = %v", res.Kept)
	}
	mustSync(t, a)
	if got := read(t, a, l.ID); !strings.Contains(got.Body, "more on b") {
		t.Error("the edit did not survive the deletion")
	}
}

func TestSameIDCollision(t *testing.T) {
	t.Parallel()
	root := isolate(t)
	remote := bareRemote(t, root)
	a, b := machine(root, "a", remote), machine(root, "b", remote)
	mustInit(t, a)
	mustInit(t, b)
	la := newLearning("Lesson from a", "a's insight")
	la.ID = "lrn-same-abcdef"
	write(t, a, la)
	lb := newLearning("Lesson from b", "b's insight")
	lb.ID = "lrn-same-abcdef"
	write(t, b, lb)
	mustSync(t, a)
	mustSync(t, b)
	mustSync(t, a)
	for _, o := range []Options{a, b} {
		ids, err := store.Open(filepath.Join(o.Dir, "documents")).IDs()
		if err != nil {
			t.Fatal(err)
		}
		titles := map[string]bool{}
		for _, id := range ids {
			titles[read(t, o, id).Title] = true
		}
		if len(ids) != 2 || !titles["Lesson from a"] || !titles["Lesson from b"] {
			t.Errorf("%s: ids %v titles %v, want both learnings", o.Host, ids, titles)
		}
	}
	if n := strings.Count(remoteFiles(t, remote), ".md"); n != 2 {
		t.Errorf("remote has %d learnings, want 2", n)
	}
}

func TestConcurrentSyncsFromTwoMachines(t *testing.T) {
	t.Parallel()
	root := isolate(t)
	remote := bareRemote(t, root)
	a, b := machine(root, "a", remote), machine(root, "b", remote)
	mustInit(t, a)
	mustInit(t, b)
	la := write(t, a, newLearning("Concurrent a", "a"))
	lb := write(t, b, newLearning("Concurrent b", "b"))
	start := time.Now().Add(300 * time.Millisecond).UnixNano()
	var cmds []*exec.Cmd
	for _, o := range []Options{a, b} {
		cmd := exec.Command(driver(), "-test.run=^$")
		cmd.Env = append(os.Environ(), helperEnv+"=sync", helperDirEnv+"="+o.Dir, fmt.Sprintf("%s=%d", helperStartEnv, start))
		cmds = append(cmds, cmd)
	}
	outs := make([][]byte, 2)
	errs := make(chan error, 2)
	for i, cmd := range cmds {
		go func() {
			var err error
			outs[i], err = cmd.CombinedOutput()
			errs <- err
		}()
	}
	for range cmds {
		if err := <-errs; err != nil {
			t.Errorf("a sync process failed: %v\n%s\n%s", err, outs[0], outs[1])
		}
	}
	mustSync(t, a)
	mustSync(t, b)
	for _, o := range []Options{a, b} {
		read(t, o, la.ID)
		read(t, o, lb.ID)
	}
	// A second sync in this machine while one runs is told so, not queued.
	unlock, err := lock(a.Dir)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	if _, err := Sync(context.Background(), a); !errors.Is(err, ErrBusy) {
		t.Errorf("sync during a sync: %v, want ErrBusy", err)
	}
}

func TestThousandLearningsArriveInOnePull(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("writes 1,000 learnings")
	}
	root := isolate(t)
	remote := bareRemote(t, root)
	a, b := machine(root, "a", remote), machine(root, "b", remote)
	mustInit(t, a)
	mustInit(t, b)
	for i := range 1000 {
		write(t, a, newLearning(fmt.Sprintf("Bulk lesson %d", i), fmt.Sprintf("insight %d", i)))
	}
	res := mustSync(t, a)
	if len(res.Committed) != 1000 {
		t.Fatalf("committed %d files, want 1000", len(res.Committed))
	}
	res = mustSync(t, b)
	if len(res.Pulled) != 1000 {
		t.Fatalf("pulled %d files, want 1000", len(res.Pulled))
	}
}

// A sync started from inside another repository's git hook (GIT_DIR and
// GIT_WORK_TREE set) still works on the learnings directory.
func TestSyncIgnoresCallersGitDir(t *testing.T) {
	root := isolate(t)
	remote := bareRemote(t, root)
	other := filepath.Join(root, "other")
	gitT(t, root, "init", "-q", other)
	t.Setenv("GIT_DIR", filepath.Join(other, ".git"))
	t.Setenv("GIT_WORK_TREE", other)
	a := machine(root, "a", remote)
	l := write(t, a, newLearning("Hooked lesson", "x"))
	mustInit(t, a)
	t.Setenv("GIT_DIR", "")
	t.Setenv("GIT_WORK_TREE", "")
	os.Unsetenv("GIT_DIR")
	os.Unsetenv("GIT_WORK_TREE")
	if !strings.Contains(remoteFiles(t, remote), l.ID) {
		t.Error("the learning did not reach the remote")
	}
	if out := gitT(t, other, "status", "--porcelain"); out != "" {
		t.Errorf("the caller's repository changed:\n%s", out)
	}
}

// A merge left half-done by hand is not built upon: sync says so and
// changes nothing.
func TestSyncRefusesMergeInProgress(t *testing.T) {
	t.Parallel()
	root := isolate(t)
	a := machine(root, "a", "")
	mustInit(t, a)
	head := strings.TrimSpace(gitT(t, a.Dir, "rev-parse", "HEAD"))
	if err := os.WriteFile(filepath.Join(a.Dir, ".git", "MERGE_HEAD"), []byte(head+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	write(t, a, newLearning("During a merge", "x"))
	_, err := Sync(context.Background(), a)
	if !errors.Is(err, ErrDirty) || !strings.Contains(err.Error(), "a git merge is in progress") {
		t.Fatalf("err = %v, want ErrDirty naming the merge", err)
	}
	if got := strings.TrimSpace(gitT(t, a.Dir, "rev-parse", "HEAD")); got != head {
		t.Error("sync committed during a merge")
	}
}
