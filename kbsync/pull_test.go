package kbsync

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reflectkb/reflect/internal/testfs"
)

// A learning written on this machine while a sync pulls (a hook, a drain,
// `reflect add`) is this machine's, not the remote's: it must not be
// counted as pulled (the next drain would fold it away as a duplicate
// that arrived) nor slipped into the merge's commit (issue 27, item 3).
func TestLocalWriteDuringPullIsNotPulled(t *testing.T) {
	t.Parallel()
	root := isolate(t)
	remote := bareRemote(t, root)
	a, b := machine(root, "a", remote), machine(root, "b", remote)
	mustInit(t, a)
	mustInit(t, b)
	lb := write(t, b, newLearning("From b", "b's insight"))
	mustSync(t, b)

	var local string
	a.afterFetch = func() {
		local = "documents/" + write(t, a, newLearning("Added during the pull", "mine")).ID + ".md"
	}
	res := mustSync(t, a)
	a.afterFetch = nil
	if !contains(res.Pulled, "documents/"+lb.ID+".md") {
		t.Errorf("pulled %v, want b's learning", res.Pulled)
	}
	if contains(res.Pulled, local) {
		t.Errorf("pulled %v holds %s, written on this machine during the pull", res.Pulled, local)
	}
	if ids := PulledIDs(res.Pulled); len(ids) != 1 {
		t.Errorf("pulled ids %v, want b's only", ids)
	}
	if contains(res.Committed, local) || strings.Contains(remoteFiles(t, remote), local) {
		t.Errorf("the merge's commit took %s (committed %v)", local, res.Committed)
	}
	if _, err := os.Stat(filepath.Join(a.Dir, local)); err != nil {
		t.Fatalf("the local learning is gone: %v", err)
	}
	// The next sync commits it as this machine's own, and pulls nothing.
	res = mustSync(t, a)
	if !contains(res.Committed, local) || len(res.Pulled) != 0 {
		t.Errorf("next sync: committed %v pulled %v, want %s committed and nothing pulled", res.Committed, res.Pulled, local)
	}
	if !strings.Contains(remoteFiles(t, remote), local) {
		t.Error("the local learning never reached the remote")
	}
}

// A sync says which learnings its merge marked needs_review, and the
// second commit still carries a same-id collision the driver wrote.
func TestSyncReportsNeedsReview(t *testing.T) {
	t.Parallel()
	root := isolate(t)
	remote := bareRemote(t, root)
	a, b := machine(root, "a", remote), machine(root, "b", remote)
	l := write(t, a, newLearning("Shared lesson", "insight"))
	mustInit(t, a)
	mustInit(t, b)
	la := read(t, a, l.ID)
	la.Body = strings.Replace(la.Body, "line two", "line two says A", 1)
	la.Updated = t0.Add(time.Hour)
	write(t, a, la)
	lb := read(t, b, l.ID)
	lb.Body = strings.Replace(lb.Body, "line two", "line two says B", 1)
	lb.Updated = t0.Add(2 * time.Hour)
	write(t, b, lb)
	if res := mustSync(t, a); len(res.NeedsReview) != 0 {
		t.Errorf("a's first sync: needs_review %v, want none", res.NeedsReview)
	}
	res := mustSync(t, b)
	if !contains(res.NeedsReview, "documents/"+l.ID+".md") {
		t.Errorf("needs_review = %v, want %s", res.NeedsReview, l.ID)
	}
	if !read(t, b, l.ID).NeedsReview {
		t.Error("the learning is not marked needs_review")
	}
	// The headings name the machine each version came from, which reads
	// right on both machines (issue 30, item 8), not "this machine".
	mustSync(t, a)
	for _, o := range []Options{a, b} {
		body := read(t, o, l.ID).Body
		fromA, fromB := section(body, "## Version from a "), section(body, "## Version from b ")
		if !strings.Contains(fromA, "says A") || strings.Contains(fromA, "says B") ||
			!strings.Contains(fromB, "says B") || strings.Contains(fromB, "says A") {
			t.Errorf("%s: the headings do not name the machines of their versions:\n%s", o.Host, body)
		}
	}
}

// section is the text under heading up to the next "## Version" heading.
func section(body, heading string) string {
	i := strings.Index(body, heading)
	if i < 0 {
		return ""
	}
	rest := body[i+len(heading):]
	if j := strings.Index(rest, "## Version"); j >= 0 {
		rest = rest[:j]
	}
	return rest
}

// A remote's .gitattributes that arrives in the same merge as a
// conflicting edit cannot switch the merge driver off for that merge:
// $GIT_DIR/info/attributes wins.
func TestRemoteAttributesDoNotTakeEffectDuringTheMerge(t *testing.T) {
	t.Parallel()
	root := isolate(t)
	remote := bareRemote(t, root)
	a, b := machine(root, "a", remote), machine(root, "b", remote)
	l := write(t, a, newLearning("Shared lesson", "insight"))
	mustInit(t, a)
	mustInit(t, b)
	// b's side: hand-written attributes and an edit, pushed with plain git
	// (as any clone of the team repository could).
	lb := read(t, b, l.ID)
	lb.Tags = append(lb.Tags, "from-b")
	lb.Updated = t0.Add(2 * time.Hour)
	write(t, b, lb)
	attrs := filepath.Join(b.Dir, ".gitattributes")
	data, _ := os.ReadFile(attrs)
	if err := os.WriteFile(attrs, append(data, "documents/*.md merge=binary\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	gitT(t, b.Dir, "add", "-A")
	gitT(t, b.Dir, "commit", "-q", "-m", "attributes")
	gitT(t, b.Dir, "push", "-q", "origin", "HEAD:main")

	la := read(t, a, l.ID)
	la.Tags = append(la.Tags, "from-a")
	la.Updated = t0.Add(time.Hour)
	write(t, a, la)
	res, err := Sync(context.Background(), a)
	if errors.Is(err, ErrConflict) || err != nil {
		t.Fatalf("sync: %v (the remote's merge=binary took effect)", err)
	}
	got := read(t, a, l.ID)
	if !contains(got.Tags, "from-a") || !contains(got.Tags, "from-b") {
		t.Errorf("tags %v: the learning was not merged by the driver", got.Tags)
	}
	if data, _ := os.ReadFile(filepath.Join(a.Dir, ".gitattributes")); strings.Contains(string(data), "merge=binary") {
		t.Errorf(".gitattributes keeps the remote's line:\n%s", data)
	}
	if !contains(res.Committed, ".gitattributes") {
		t.Errorf("committed %v, want the cleaned .gitattributes", res.Committed)
	}

	// On b, whose own work tree still holds the line when it merges, the
	// driver runs too.
	la = read(t, a, l.ID)
	la.Tags = append(la.Tags, "again-a")
	la.Updated = t0.Add(3 * time.Hour)
	write(t, a, la)
	mustSync(t, a)
	lb = read(t, b, l.ID)
	lb.Tags = append(lb.Tags, "again-b")
	lb.Updated = t0.Add(4 * time.Hour)
	write(t, b, lb)
	if _, err := Sync(context.Background(), b); err != nil {
		t.Fatalf("b's sync: %v (merge=binary took effect)", err)
	}
	if got := read(t, b, l.ID); !contains(got.Tags, "again-a") || !contains(got.Tags, "again-b") {
		t.Errorf("b: tags %v, want both sides' (merged by the driver)", got.Tags)
	}
}

func TestMachineNameFromCommits(t *testing.T) {
	t.Parallel()
	for subject, want := range map[string]string{
		"reflect sync from laptop: 2 file(s)":                         "laptop",
		"reflect sync init on desk.local: 1 file(s)":                  "desk.local",
		"reflect sync: merge main of origin on ci-7":                  "ci-7",
		"reflect sync: keep learnings that collided on pi: 1 file(s)": "pi",
	} {
		m := hostInMessage.Get().FindStringSubmatch(subject)
		if m == nil || m[1] != want {
			t.Errorf("%q: %v, want %s", subject, m, want)
		}
	}
	if hostInMessage.Get().MatchString("helpful notes") {
		t.Error("a foreign subject named a host")
	}
	if got := machineName("evil</h2>\x1b[31m## injected " + strings.Repeat("x", 100)); strings.ContainsAny(got, "<>/# \x1b[") || len(got) > 64 {
		t.Errorf("machineName kept %q", got)
	}
}

// A push that fails after a refusal reports both.
func TestRefusalReportedWithAFailedPush(t *testing.T) {
	t.Parallel()
	root := isolate(t)
	remote := bareRemote(t, root)
	a := machine(root, "a", remote)
	mustInit(t, a)
	evil := filepath.Join(root, "evil")
	gitT(t, root, "clone", "-q", remote, evil)
	if err := testfs.WriteExecutable(filepath.Join(evil, "evil.sh"), []byte("echo pwned\n")); err != nil {
		t.Fatal(err)
	}
	gitT(t, evil, "add", "-A")
	gitT(t, evil, "-c", "user.email=m@example.com", "-c", "user.name=m", "commit", "-q", "-m", "x")
	gitT(t, evil, "push", "-q", "origin", "HEAD:main")
	hook := filepath.Join(remote, "hooks", "pre-receive")
	if err := testfs.WriteExecutable(hook, []byte("#!/bin/sh\nexit 1\n")); err != nil {
		t.Fatal(err)
	}
	write(t, a, newLearning("Local", "local"))
	res, err := Sync(context.Background(), a)
	if !errors.Is(err, ErrRefused) || !errors.Is(err, ErrRejected) {
		t.Fatalf("err = %v, want the refusal and the rejected push", err)
	}
	if len(res.Refused) != 1 || res.Refused[0].Path != "evil.sh" {
		t.Errorf("refused = %+v", res.Refused)
	}
	if _, err := os.Lstat(filepath.Join(a.Dir, "evil.sh")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("evil.sh reached the work tree: %v", err)
	}
}

// A repository synced before remotes were inspected may already track a
// link in documents/: the next sync removes it (the link, not its target)
// and the push removes it from the remote.
func TestTrackedSymlinkIsRemoved(t *testing.T) {
	t.Parallel()
	root := isolate(t)
	remote := bareRemote(t, root)
	a := machine(root, "a", remote)
	mustInit(t, a)
	secret := filepath.Join(root, "id_rsa")
	if err := os.WriteFile(secret, []byte("PRIVATE KEY"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(a.Dir, "documents", "lrn-deploy-notes-a1a1a1.md")
	if err := os.Symlink(secret, link); err != nil {
		t.Fatal(err)
	}
	gitT(t, a.Dir, "-c", "core.symlinks=true", "add", "documents")
	gitT(t, a.Dir, "commit", "-q", "-m", "an old sync brought this")
	gitT(t, a.Dir, "push", "-q", "origin", "HEAD:main")
	res := mustSync(t, a)
	if !contains(res.Unlinked, "documents/lrn-deploy-notes-a1a1a1.md") {
		t.Errorf("unlinked = %v", res.Unlinked)
	}
	if _, err := os.Lstat(link); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the link is still there: %v", err)
	}
	if data, err := os.ReadFile(secret); err != nil || string(data) != "PRIVATE KEY" {
		t.Errorf("the link's target was touched: %q %v", data, err)
	}
	if strings.Contains(remoteFiles(t, remote), "lrn-deploy-notes-a1a1a1") {
		t.Error("the link is still at the remote's tip")
	}
}
