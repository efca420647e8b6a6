package importer

import (
	"context"
	"github.com/reflectkb/reflect/internal/testfs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

var t0 = time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC)

func titles(rules []Rule) []string {
	var out []string
	for _, r := range rules {
		out = append(out, r.Title)
	}
	return out
}

func readTestdata(t *testing.T, kind Kind, rel string) []Rule {
	t.Helper()
	path := filepath.Join("testdata", rel)
	r, err := ReadFile(File{Path: path, Name: rel, Kind: kind})
	if err != nil {
		t.Fatalf("ReadFile(%s): %v", rel, err)
	}
	return r.Rules
}

// Each source format, from a sample written as that tool's users write it.
func TestParseEachFormat(t *testing.T) {
	cases := []struct {
		kind Kind
		file string
		want []string // titles, in order
		line map[string]int
	}{
		{Agents, "repo/AGENTS.md", []string{
			"Install deps: pnpm install", "Start dev server: pnpm dev", "Run tests: pnpm test",
			"TypeScript strict mode", "Single quotes, no semicolons", "Use functional patterns where possible",
			"Testing instructions",
			"Title format: [<project_name>] <Title>", "Always run pnpm lint and pnpm test before committing.",
		}, map[string]int{"Run tests: pnpm test": 7, "Testing instructions": 18, "Always run pnpm lint and pnpm test before committing.": 31}},
		{Claude, "repo/CLAUDE.md", []string{
			"make build builds the server binary into ./bin",
			"make test runs the unit tests; integration tests need DOCKER=1",
			"Architecture",
			"The migrations in db/migrations run in filename order; never rename one that has shipped.",
			"Deploy tokens look like api_key=[REDACTED:api-key] and must never be committed.",
		}, map[string]int{"Architecture": 10}},
		{Gemini, "repo/GEMINI.md", []string{
			"When you generate new TypeScript code, follow the existing coding style.",
			"Ensure all new functions and classes have JSDoc comments.",
			"Prefer functional programming paradigms where appropriate.",
		}, nil},
		{Copilot, "repo/.github/copilot-instructions.md", []string{
			"This is a Go based repository with a Ruby client for certain API endpoints. Please…",
			"Run make fmt before committing any changes to ensure proper code formatting",
			"This will run gofmt on all Go files to maintain consistent style",
			"Build: make build", "Test: make test", "Full CI check: make ci (includes build, fmt, lint, test)",
		}, nil},
		{Cursor, "repo/.cursorrules", []string{
			"You are an expert in Python, FastAPI, and scalable API development.",
			"Write concise, technical responses with accurate Python examples.",
			"Use def for pure functions and async def for asynchronous operations.",
			"Prefer Pydantic models over raw dictionaries for input validation.",
		}, nil},
		{Cursor, "repo/.cursor/rules/react.mdc", []string{
			"Use function components with hooks, never class components.",
			"Keep components under 200 lines; split presentational parts out.",
		}, map[string]int{"Use function components with hooks, never class components.": 7}},
		{Cursor, "repo/.cursor/rules/single.mdc", []string{"Always use the shared HTTP client in src/lib/http.ts"}, map[string]int{"Always use the shared HTTP client in src/lib/http.ts": 5}},
		{MemoryBank, "repo/memory-bank/techContext.md", []string{
			"Next.js 14 with the app router serves the web front end.",
			"Supabase provides auth and the Postgres database.",
			"Technical constraints",
		}, nil},
		{ClaudeMemory, "claude/projects/SLUG/memory/MEMORY.md", []string{"The user prefers table-driven tests with t.Run subtests."}, nil},
		// The form Claude Code 2.1's system prompt asks its model for
		// (metadata.type, Why and How to apply lines); e2e's
		// TestClaudeAutoMemoryImport has Claude Code write it.
		{ClaudeMemory, "claude/projects/SLUG/memory/sprocket-restart.md", []string{"Restart sprocketd after changing sprocket.ini"}, map[string]int{"Restart sprocketd after changing sprocket.ini": 8}},
		{ClaudeMemory, "claude/projects/SLUG/memory/testing.md", []string{"Run go test with -tags sqlite_fts5 or the build fails"}, map[string]int{"Run go test with -tags sqlite_fts5 or the build fails": 6}},
		// Codex's memory handbook, in the layout its consolidation writes
		// (docs/cli.md names the Codex source it follows).
		{CodexMemories, "codex/memories/MEMORY.md", []string{
			"when a test fails, the user asked: \"show me the failing assertion first\" -> quote the…",
			"The user wants commit messages in the imperative mood, under 72 characters.",
			"Integration tests need DOCKER_HOST=unix:///run/user/1000/docker.sock; without it…",
			"Run go test -race ./... -run TestCheckoutFlow -count=1 to reproduce the flaky checkout…",
			"Symptom: TestCheckoutFlow times out only in CI -> cause: the Postgres container starts…",
		}, map[string]int{"The user wants commit messages in the imperative mood, under 72 characters.": 19}},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			rules := readTestdata(t, c.kind, c.file)
			if got := titles(rules); !slices.Equal(got, c.want) {
				t.Errorf("titles:\n got %q\nwant %q", got, c.want)
			}
			for _, r := range rules {
				if want, ok := c.line[r.Title]; ok && r.Line != want {
					t.Errorf("%q: line %d, want %d", r.Title, r.Line, want)
				}
			}
		})
	}
}

func TestSplitMarkdownKeepsNestedItemsAndFencesWithTheirRule(t *testing.T) {
	src := "## Build\n\n- Use make:\n  ```sh\n  # not a heading\n  make all\n  ```\n  - nested detail here\n- Second rule is here\n"
	rules := SplitMarkdown(src, 0)
	if len(rules) != 2 {
		t.Fatalf("got %d rules %q, want 2", len(rules), titles(rules))
	}
	if !strings.Contains(rules[0].Text, "make all") || !strings.Contains(rules[0].Text, "nested detail") {
		t.Errorf("first rule lost its fence or nested item:\n%s", rules[0].Text)
	}
	if rules[0].Section != "Build" || rules[1].Line != 9 {
		t.Errorf("section %q line %d", rules[0].Section, rules[1].Line)
	}
}

func TestMalformedMDCIsSkippedWithALine(t *testing.T) {
	_, err := ReadFile(File{Path: "testdata/repo/.cursor/rules/broken.mdc", Name: ".cursor/rules/broken.mdc", Kind: Cursor})
	if err == nil || !strings.Contains(err.Error(), ".cursor/rules/broken.mdc") || !strings.Contains(err.Error(), "skipped") {
		t.Fatalf("err = %v, want a line naming the file and saying it was skipped", err)
	}
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.mdc")
	os.WriteFile(bad, []byte("---\ndescription: [a\n---\n- a rule of some words\n"), 0o644)
	if _, err := ReadFile(File{Path: bad, Name: "bad.mdc", Kind: Cursor}); err == nil || !strings.Contains(err.Error(), "malformed front matter") {
		t.Fatalf("err = %v, want malformed front matter", err)
	}
}

func TestReadFileRefusesWhatIsNotABoundedRegularFile(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "AGENTS.md")
	os.WriteFile(big, []byte(strings.Repeat("- a rule that repeats\n", MaxSourceSize/20)), 0o644)
	fifo := filepath.Join(dir, "CLAUDE.md")
	if err := testfs.Mkfifo(fifo); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ path, want string }{
		{big, "larger than"}, {fifo, "not a regular file"}, {filepath.Join(dir, "GEMINI.md"), "no such file"},
	} {
		_, err := ReadFile(File{Path: c.path, Name: filepath.Base(c.path), Kind: Agents})
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), filepath.Base(c.path)) {
			t.Errorf("%s: err = %v, want %q naming the file", c.path, err, c.want)
		}
	}
}

func TestReadFileRedactsSecrets(t *testing.T) {
	r, err := ReadFile(File{Path: "testdata/repo/CLAUDE.md", Name: "CLAUDE.md", Kind: Claude})
	if err != nil {
		t.Fatal(err)
	}
	for _, rule := range r.Rules {
		if strings.Contains(rule.Text, "sk-live") || strings.Contains(rule.Title, "sk-live") {
			t.Fatalf("secret reached a rule: %q", rule.Text)
		}
	}
}

func gitInit(t *testing.T, dir string) {
	t.Helper()
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
}

func copyTree(t *testing.T, from, to string) {
	t.Helper()
	if out, err := exec.Command("cp", "-r", from, to).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v\n%s", err, out)
	}
}

func TestCollectFindsTheProjectsSourcesAndSaysWhatChanged(t *testing.T) {
	home := t.TempDir()
	repo := filepath.Join(home, "src", "shop")
	os.MkdirAll(filepath.Dir(repo), 0o755)
	copyTree(t, "testdata/repo", repo)
	gitInit(t, repo)
	mem := filepath.Join(home, ".claude", "projects", ClaudeSlug(repo), "memory")
	os.MkdirAll(mem, 0o755)
	copyTree(t, "testdata/claude/projects/SLUG/memory/testing.md", mem)
	d := Dirs{Home: home}
	st := State{}
	plan, err := Collect(context.Background(), Options{Cwd: filepath.Join(repo, ".github"), Dirs: d, Now: t0}, st)
	if err != nil {
		t.Fatal(err)
	}
	var names, failed []string
	for _, s := range plan.Sources {
		if s.Error != "" {
			failed = append(failed, s.Name)
			continue
		}
		names = append(names, s.Name)
	}
	want := []string{"CLAUDE.md", "AGENTS.md", "GEMINI.md", ".github/copilot-instructions.md", ".cursorrules",
		".cursor/rules/react.mdc", ".cursor/rules/single.mdc", "memory-bank/techContext.md",
		"~/.claude/projects/" + ClaudeSlug(repo) + "/memory/testing.md"}
	if !slices.Equal(names, want) {
		t.Errorf("sources:\n got %q\nwant %q", names, want)
	}
	if !slices.Equal(failed, []string{".cursor/rules/broken.mdc"}) {
		t.Errorf("failed = %q", failed)
	}
	for _, l := range plan.Learnings {
		if err := l.Validate(); err != nil {
			t.Errorf("%s: %v", l.ID, err)
		}
		if l.Type != "rule" || l.Source == nil || l.Source.File == "" || l.Source.Line == 0 {
			t.Errorf("%s: type %q source %+v", l.ID, l.Type, l.Source)
		}
		switch {
		case strings.HasPrefix(l.Source.File, "~/"):
			if !l.Private || l.Project != "shop" {
				t.Errorf("memory rule %s: private %v project %q", l.ID, l.Private, l.Project)
			}
		case l.Scope != "project" || l.Project != "shop":
			t.Errorf("repository rule %s: scope %q project %q", l.ID, l.Scope, l.Project)
		}
	}
	// Nothing changed since the import the state records; then AGENTS.md does.
	st.Record(plan.Sources, t0)
	os.WriteFile(filepath.Join(repo, "AGENTS.md"), []byte("- Never use npm, always pnpm.\n"), 0o644)
	plan, _ = Collect(context.Background(), Options{Cwd: repo, Dirs: d, Now: t0}, st)
	for _, s := range plan.Sources {
		if s.Changed != (s.Name == "AGENTS.md") {
			t.Errorf("%s: changed %v", s.Name, s.Changed)
		}
	}
	// The sources are never written.
	if data, _ := os.ReadFile(filepath.Join(repo, "CLAUDE.md")); !strings.Contains(string(data), "sk-live") {
		t.Error("CLAUDE.md was changed")
	}
}

func TestCollectNamesAMissingPathAndGoesOn(t *testing.T) {
	dir := t.TempDir()
	plan, err := Collect(context.Background(), Options{Cwd: dir, Paths: []string{filepath.Join(dir, "nope.md"), "testdata/repo/GEMINI.md"}, Now: t0}, State{})
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Sources) != 2 || !strings.Contains(plan.Sources[0].Error, "nope.md") || plan.Sources[1].Error != "" {
		t.Fatalf("sources = %+v", plan.Sources)
	}
	if len(plan.Learnings) != 3 {
		t.Errorf("%d learnings, want GEMINI.md's 3", len(plan.Learnings))
	}
	if _, err := Collect(context.Background(), Options{Cwd: dir}, State{}); err != ErrNoProject {
		t.Errorf("outside a repository with nothing named: err = %v", err)
	}
}

func TestStateRoundTrip(t *testing.T) {
	dir := t.TempDir()
	st := State{"/a/AGENTS.md": {SHA256: "ab", Imported: t0, Rules: 3}}
	if err := st.Save(dir); err != nil {
		t.Fatal(err)
	}
	got, err := LoadState(dir)
	if err != nil || got["/a/AGENTS.md"].SHA256 != "ab" {
		t.Fatalf("LoadState = %v, %v", got, err)
	}
	os.WriteFile(filepath.Join(dir, StateFile), []byte("{not json"), 0o600)
	if got, err := LoadState(dir); err == nil || len(got) != 0 {
		t.Errorf("corrupt state: %v, %v", got, err)
	}
}

func TestSessionLoads(t *testing.T) {
	home := "/home/u"
	root := "/home/u/src/shop"
	d := Dirs{Home: home}
	sess := func(agent, cwd string) Session {
		return Session{Agent: agent, Cwd: cwd, Root: root, Project: "shop", Dirs: d}
	}
	cases := []struct {
		agent, cwd, file, project string
		want                      bool
	}{
		{"claude", root, "CLAUDE.md", "shop", true},
		{"claude", root + "/web", "CLAUDE.md", "shop", true},
		{"claude", root, ".claude/CLAUDE.md", "shop", true},
		{"claude", root, "web/CLAUDE.md", "shop", false}, // below the session: loaded on demand only
		{"claude", root, "CLAUDE.md", "other", false},    // another repository's
		{"claude", root, "AGENTS.md", "shop", false},
		{"claude", root, "~/.claude/CLAUDE.md", "", true},
		{"claude", root, "~/.claude/projects/" + ClaudeSlug(root) + "/memory/MEMORY.md", "shop", true},
		{"claude", root, "~/.claude/projects/" + ClaudeSlug(root) + "/memory/testing.md", "shop", false},
		{"codex", root, "AGENTS.md", "shop", true},
		{"codex", root + "/web", "web/AGENTS.md", "shop", true},
		{"codex", root, "CLAUDE.md", "shop", false},
		{"codex", root, "~/.codex/AGENTS.md", "", true},
		{"gemini", root, "GEMINI.md", "shop", true},
		{"gemini", root, "AGENTS.md", "shop", false},
		{"copilot", root, ".github/copilot-instructions.md", "shop", true},
		{"copilot", root, "AGENTS.md", "shop", true},
		{"opencode", root, "AGENTS.md", "shop", true},
		{"", root, "CLAUDE.md", "shop", false},
	}
	for _, c := range cases {
		if got := sess(c.agent, c.cwd).Loads(c.file, c.project); got != c.want {
			t.Errorf("%s in %s loads %s (%s) = %v, want %v", c.agent, c.cwd, c.file, c.project, got, c.want)
		}
	}
}

func TestParseKind(t *testing.T) {
	if k, err := ParseKind("claude-memory"); err != nil || k != ClaudeMemory {
		t.Errorf("ParseKind = %q, %v", k, err)
	}
	if _, err := ParseKind("vim"); err == nil || !strings.Contains(err.Error(), "codex-memories") {
		t.Errorf("err = %v, want the list of kinds", err)
	}
}

func TestCodexMemoriesAreTheHandbookWithoutItsRoutingAndTaskRefs(t *testing.T) {
	home := t.TempDir()
	copyTree(t, "testdata/codex", filepath.Join(home, ".codex"))
	d := Dirs{Home: home}
	files, problems := Find("", []Kind{CodexMemories}, false, d)
	if len(problems) > 0 || len(files) != 1 || files[0].Name != "~/.codex/memories/MEMORY.md" {
		t.Fatalf("Find = %+v, %v; want only the handbook (not memory_summary.md, raw_memories.md, rollout_summaries/)", files, problems)
	}
	if k := KindOf(filepath.Join(home, ".codex", "memories", "memory_summary.md"), d); k != Markdown {
		t.Errorf("memory_summary.md named on the command line is %s, want markdown", k)
	}
	r, err := ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, rule := range r.Rules {
		if strings.Contains(rule.Text, "[Task ") || strings.Contains(rule.Text, "rollout_summaries/") || strings.HasPrefix(rule.Text, "scope:") {
			t.Errorf("rule %q keeps routing text", rule.Text)
		}
		if !strings.HasPrefix(rule.Section, "shop-api CI and test runs › ") {
			t.Errorf("rule %q: section %q, want its task group", rule.Title, rule.Section)
		}
	}
	l := Learning(files[0], r.Rules[0], "", t0)
	if !l.Private || l.Scope != "personal" || l.Source.Harness != "codex" {
		t.Errorf("learning: private %v scope %q source %+v", l.Private, l.Scope, l.Source)
	}
}
