package recall

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/reflectkb/reflect/importer"
)

// A rule imported from the repository's AGENTS.md is already in Codex's
// context (Codex loads AGENTS.md itself): recall leaves it out for Codex,
// and injects it for Claude Code, which does not load AGENTS.md. The same
// rule from CLAUDE.md goes the other way; a rule from another
// repository's AGENTS.md reaches both.
func TestRecallLeavesOutRulesTheAgentLoads(t *testing.T) {
	home := GitEnv(t)
	dir := filepath.Join(t.TempDir(), "checkout")
	NewRepo(t, dir, "main", "git@github.com:acme/shop.git", "initial")
	rule := func(docs, id, project, file, title, insight string) {
		doc := fmt.Sprintf("---\nid: %s\ntitle: %q\ntype: rule\nconfidence: high\nkey_insight: %q\nscope: project\nproject: %s\ncreated: 2026-01-01T00:00:00Z\nsource: {harness: codex, file: %s, line: 7}\n---\n%s\n", id, title, insight, project, file, insight)
		if err := os.WriteFile(filepath.Join(docs, id+".md"), []byte(doc), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	ix := NewKB(t, func(docs string) {
		CopyCorpus(t, docs)
		rule(docs, "lrn-pnpm-agents", "shop", "AGENTS.md", "Install dependencies with pnpm, never npm", "Run pnpm install; npm breaks the pnpm lockfile.")
		rule(docs, "lrn-vitest-claude", "shop", "CLAUDE.md", "Run vitest through pnpm test for the watcher", "pnpm test runs vitest with the project's watcher config.")
		rule(docs, "lrn-pnpm-other", "billing", "AGENTS.md", "pnpm workspaces need the filter flag", "Use pnpm --filter to install in one workspace package.")
	})
	recallFor := func(agent, prompt string) []string {
		t.Helper()
		res, err := Recall(context.Background(), ix, Request{Kind: Prompt, Cwd: dir, Prompt: prompt, Agent: agent, AgentDirs: importer.Dirs{Home: home}})
		if err != nil {
			t.Fatal(err)
		}
		return IDs(res.Injected)
	}
	prompt := "how should I install the dependencies with pnpm install, npm breaks the lockfile"
	if got := recallFor("claude", prompt); !slices.Contains(got, "lrn-pnpm-agents") {
		t.Errorf("claude: injected %v, want the AGENTS.md rule", got)
	}
	for _, agent := range []string{"codex", "opencode", "copilot"} {
		if got := recallFor(agent, prompt); slices.Contains(got, "lrn-pnpm-agents") {
			t.Errorf("%s: injected %v, which holds the AGENTS.md rule it loads itself", agent, got)
		}
	}
	if got := recallFor("", prompt); !slices.Contains(got, "lrn-pnpm-agents") {
		t.Errorf("no agent: injected %v, want the rule", got)
	}
	vitest := "run vitest through pnpm test with the watcher config"
	if got := recallFor("claude", vitest); slices.Contains(got, "lrn-vitest-claude") {
		t.Errorf("claude: injected %v, which holds the CLAUDE.md rule", got)
	}
	if got := recallFor("codex", vitest); !slices.Contains(got, "lrn-vitest-claude") {
		t.Errorf("codex: injected %v, want the CLAUDE.md rule", got)
	}
	other := "pnpm workspaces need the filter flag to install in one workspace package"
	if got := recallFor("codex", other); !slices.Contains(got, "lrn-pnpm-other") {
		t.Errorf("codex: injected %v, want another repository's AGENTS.md rule", got)
	}
}

// The session-start briefing of the project's learnings leaves out, too,
// the rules of a file the agent loads itself.
func TestBriefingLeavesOutRulesTheAgentLoads(t *testing.T) {
	home := GitEnv(t)
	dir := filepath.Join(t.TempDir(), "checkout")
	NewRepo(t, dir, "main", "git@github.com:acme/shop.git", "initial")
	ix := NewKB(t, func(docs string) {
		doc := "---\nid: lrn-pnpm-agents\ntitle: Install dependencies with pnpm, never npm\ntype: rule\nconfidence: high\nkey_insight: npm breaks the pnpm lockfile.\nscope: project\nproject: shop\ncreated: 2026-01-01T00:00:00Z\nsource: {harness: codex, file: AGENTS.md, line: 5}\n---\nnpm breaks the pnpm lockfile.\n"
		if err := os.WriteFile(filepath.Join(docs, "lrn-pnpm-agents.md"), []byte(doc), 0o600); err != nil {
			t.Fatal(err)
		}
	})
	start := func(agent string) []string {
		t.Helper()
		res, err := Recall(context.Background(), ix, Request{Kind: SessionStart, Cwd: dir, Agent: agent, AgentDirs: importer.Dirs{Home: home}, GitTimeout: gitWait})
		if err != nil {
			t.Fatal(err)
		}
		return IDs(res.Injected)
	}
	if got := start("claude"); !slices.Contains(got, "lrn-pnpm-agents") {
		t.Errorf("claude: briefed %v, want the AGENTS.md rule", got)
	}
	if got := start("codex"); slices.Contains(got, "lrn-pnpm-agents") {
		t.Errorf("codex: briefed %v, which holds the AGENTS.md rule it loads itself", got)
	}
}
