package hooks_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reflectkb/reflect/importer"
	"github.com/reflectkb/reflect/index"
	"github.com/reflectkb/reflect/knowledge"
)

// A rule imported from the repository's AGENTS.md reaches a Claude Code
// session's prompt hook, and not a Codex session's (Codex loads AGENTS.md
// itself); a rule from CLAUDE.md the other way round (issue 31).
func TestImportedRuleNotInjectedTwice(t *testing.T) {
	t.Parallel()
	e := newEmptyEnv(t)
	e.gitRepo(t, "main", "initial")
	e.cfg.Agents.Home = e.home
	write := func(name, content string) {
		if err := os.WriteFile(filepath.Join(e.repo, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("AGENTS.md", "# AGENTS.md\n\n## Dependencies\n\n- Install dependencies with pnpm install, never npm install: npm rewrites the lockfile.\n")
	write("CLAUDE.md", "## Migrations\n\n- Never rename a migration file that has shipped: migrations run in filename order.\n")
	ctx := context.Background()
	plan, err := importer.Collect(ctx, importer.Options{Cwd: e.repo, Dirs: importer.Dirs{Home: e.home}, Now: t0}, importer.State{})
	if err != nil {
		t.Fatal(err)
	}
	ix, err := index.Open(ctx, e.cfg.DocumentsDir(), e.cfg.IndexDir())
	if err != nil {
		t.Fatal(err)
	}
	imported, err := knowledge.New(ix).Import(ctx, plan.Learnings, false, t0)
	ix.Close()
	if err != nil || len(imported) != 2 {
		t.Fatalf("import: %+v, %v", imported, err)
	}
	agentsRule, claudeRule := imported[0].ID, imported[1].ID
	if imported[0].File != "AGENTS.md" {
		agentsRule, claudeRule = claudeRule, agentsRule
	}
	prompt := func(agent, text string) string {
		in := e.fixture(t, agent, "user-prompt-submit", map[string]any{"prompt": text})
		return run(t, e.withState(t), "prompt", agent, in)
	}
	pnpm := "should I install dependencies with pnpm install or npm install, the lockfile changed"
	if out := prompt("claude", pnpm); !strings.Contains(out, agentsRule) {
		t.Errorf("claude: the AGENTS.md rule was not injected:\n%s", out)
	}
	if out := prompt("codex", pnpm); strings.Contains(out, agentsRule) {
		t.Errorf("codex: the AGENTS.md rule it loads itself was injected:\n%s", out)
	}
	migration := "can I rename a migration file that has shipped, migrations run in filename order"
	if out := prompt("codex", migration); !strings.Contains(out, claudeRule) {
		t.Errorf("codex: the CLAUDE.md rule was not injected:\n%s", out)
	}
	if out := prompt("claude", migration); strings.Contains(out, claudeRule) {
		t.Errorf("claude: the CLAUDE.md rule it loads itself was injected:\n%s", out)
	}
}
