package importer

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reflectkb/reflect/internal/udiff"
	"github.com/reflectkb/reflect/store"
)

func learning(id, title, insight string) *store.Learning {
	return &store.Learning{ID: id, Title: title, KeyInsight: insight, Confidence: "high", Created: t0}
}

func TestPromoteKeepsUserLinesAndDoesNotDuplicate(t *testing.T) {
	data, err := os.ReadFile("testdata/repo/AGENTS.md")
	if err != nil {
		t.Fatal(err)
	}
	orig := string(data)
	a := learning("lrn-webhook-idempotent-6de387", "Webhook handler must be idempotent", "Check the delivery id before writing the ledger")
	b := learning("lrn-sqlite-wal-1a2b3c", "SQLite is locked under concurrent writers", "Enable WAL and set busy_timeout")
	out, added, err := Promote(orig, []*store.Learning{a})
	if err != nil || len(added) != 1 {
		t.Fatalf("Promote: %v %v", added, err)
	}
	if !strings.HasPrefix(out, orig) {
		t.Fatalf("the user's lines changed:\n%s", udiff.Unified("before", "after", []byte(orig), []byte(out)))
	}
	if !strings.Contains(out, "- Webhook handler must be idempotent: Check the delivery id before writing the ledger (reflect lrn-webhook-idempotent-6de387)\n") {
		t.Errorf("no sourced line:\n%s", out)
	}
	again, added, err := Promote(out, []*store.Learning{a, b})
	if err != nil || len(added) != 1 || added[0] != b.ID {
		t.Fatalf("second promote added %v, %v; want only %s", added, err, b.ID)
	}
	if strings.Count(again, a.ID) != 1 || strings.Count(again, BeginMarker) != 1 {
		t.Errorf("a line or the section was repeated:\n%s", again)
	}
	// A user line added after the section, and one inside it, survive.
	edited := again + "\n## Notes\n- keep this line\n"
	back, removed, err := Demote(edited, []string{a.ID, b.ID})
	if err != nil || len(removed) != 2 {
		t.Fatalf("Demote: %v %v", removed, err)
	}
	if back != orig+"\n## Notes\n- keep this line\n" {
		t.Errorf("demote did not give back the user's file:\n%s", udiff.Unified("want", "got", []byte(orig+"\n## Notes\n- keep this line\n"), []byte(back)))
	}
	// Demoting one of two keeps the section and the other line.
	one, _, _ := Demote(again, []string{a.ID})
	if strings.Contains(one, a.ID) || !strings.Contains(one, b.ID) || !strings.Contains(one, EndMarker) {
		t.Errorf("demote of one:\n%s", one)
	}
}

func TestPromoteRefusesASectionWithoutEnd(t *testing.T) {
	if _, _, err := Promote("x\n"+BeginMarker+"\n- a (reflect lrn-a)\n", []*store.Learning{learning("lrn-b", "B rule", "b")}); err != ErrNoEnd {
		t.Errorf("err = %v, want ErrNoEnd", err)
	}
}

func TestPromotedSectionIsNotImported(t *testing.T) {
	src, _, _ := Promote("- Use pnpm for every install\n", []*store.Learning{learning("lrn-a-1", "Webhook handler must be idempotent", "check ids")})
	rules, _ := Parse(Agents, "AGENTS.md", withoutManaged(src))
	if len(rules) != 1 || rules[0].Title != "Use pnpm for every install" {
		t.Errorf("rules = %q", titles(rules))
	}
}

func TestTargetWritesThroughASymlinkInsideTheRepository(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "AGENTS.md"), []byte("- rule one here\n"), 0o640)
	os.Symlink("AGENTS.md", filepath.Join(root, "CLAUDE.md"))
	tg, err := OpenTarget(root, "CLAUDE.md")
	if err != nil {
		t.Fatal(err)
	}
	if err := tg.Write(tg.Content + "- rule two\n"); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(filepath.Join(root, "CLAUDE.md")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Error("CLAUDE.md is no longer a symlink")
	}
	data, _ := os.ReadFile(filepath.Join(root, "AGENTS.md"))
	if string(data) != "- rule one here\n- rule two\n" {
		t.Errorf("AGENTS.md = %q", data)
	}
	if fi, _ := os.Stat(filepath.Join(root, "AGENTS.md")); fi.Mode().Perm() != 0o640 {
		t.Errorf("mode %v, want 0640 kept", fi.Mode().Perm())
	}
	outside := t.TempDir()
	os.Symlink(filepath.Join(outside, "x.md"), filepath.Join(root, "GEMINI.md"))
	os.WriteFile(filepath.Join(outside, "x.md"), nil, 0o644)
	if _, err := OpenTarget(root, "GEMINI.md"); err == nil {
		t.Error("a symlink out of the repository was accepted")
	}
	if _, err := OpenTarget(root, "../x.md"); err == nil {
		t.Error("a path out of the repository was accepted")
	}
}

func TestCommitOnBranch(t *testing.T) {
	root := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", root}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
			"GIT_AUTHOR_NAME=dev", "GIT_AUTHOR_EMAIL=dev@example.com", "GIT_COMMITTER_NAME=dev", "GIT_COMMITTER_EMAIL=dev@example.com")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q", "-b", "main")
	os.WriteFile(filepath.Join(root, "AGENTS.md"), []byte("- one rule here\n"), 0o644)
	os.WriteFile(filepath.Join(root, "other.txt"), []byte("x"), 0o644)
	git("add", "AGENTS.md")
	git("-c", "commit.gpgsign=false", "commit", "-q", "-m", "init")
	t.Setenv("GIT_CONFIG_GLOBAL", "/dev/null")
	t.Setenv("GIT_AUTHOR_NAME", "dev")
	t.Setenv("GIT_AUTHOR_EMAIL", "dev@example.com")
	t.Setenv("GIT_COMMITTER_NAME", "dev")
	t.Setenv("GIT_COMMITTER_EMAIL", "dev@example.com")
	if err := CheckoutBranch(t.Context(), root, "--evil"); err == nil {
		t.Error("a branch starting with '-' was accepted")
	}
	if err := CheckoutBranch(t.Context(), root, "reflect/promote"); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(root, "AGENTS.md"), []byte("- one rule here\n- two\n"), 0o644)
	if err := Commit(t.Context(), root, filepath.Join(root, "AGENTS.md"), "Promote 1 learning"); err != nil {
		t.Fatal(err)
	}
	out, _ := exec.Command("git", "-C", root, "log", "--format=%D %s", "-1", "--name-only").Output()
	if !strings.Contains(string(out), "reflect/promote") || !strings.Contains(string(out), "AGENTS.md") || strings.Contains(string(out), "other.txt") {
		t.Errorf("git log:\n%s", out)
	}
}

func TestSuggest(t *testing.T) {
	dir := t.TempDir()
	st := store.Open(dir)
	put := func(id, project, conf, typ string) {
		l := learning(id, "Title of "+id, "insight of "+id)
		l.Scope, l.Project, l.Confidence, l.Type = "project", project, conf, typ
		if err := st.Write(l); err != nil {
			t.Fatal(err)
		}
	}
	put("lrn-often", "shop", "high", "")
	put("lrn-most", "shop", "high", "")
	put("lrn-once", "shop", "high", "")
	put("lrn-other", "billing", "high", "")
	put("lrn-medium", "shop", "medium", "")
	put("lrn-rule", "shop", "high", "rule")
	put("lrn-promoted", "shop", "high", "")
	sessions := map[string]int{"lrn-often": 2, "lrn-most": 5, "lrn-once": 1, "lrn-other": 9, "lrn-medium": 9, "lrn-rule": 9, "lrn-promoted": 9, "lrn-gone": 9}
	content, _, _ := Promote("", []*store.Learning{learning("lrn-promoted", "P rule", "p")})
	got := Suggest(st, "shop", sessions, content, 10)
	var ids []string
	for _, s := range got {
		ids = append(ids, s.ID)
	}
	if strings.Join(ids, " ") != "lrn-most lrn-often" {
		t.Errorf("Suggest = %v, want lrn-most lrn-often", ids)
	}
}
