package drain

// Test helpers the drain tests share with the transcript and writer
// packages' own tests: those live in other packages now, and test files
// cannot be imported.

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reflectkb/reflect/drain/writer"
	"github.com/reflectkb/reflect/index"
	"github.com/reflectkb/reflect/internal/config"
)

// fakeHelp answers --help as current claude and codex do (the same as the
// writer package's fakes), so the writers pass their flags; any other
// call goes on to the fake's script.
const fakeHelp = `case " $* " in *" --help "*)
  echo "  --no-session-persistence  Disable session persistence"
  echo "  --ephemeral               Run without persisting session files to disk"
  exit 0;;
esac
`

func mustAbs(t *testing.T, p string) string {
	t.Helper()
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func readRecorded(t *testing.T, dir, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Claude Code transcript lines (as in transcript/claude_test.go).
const claudeMeta = `"sessionId":"s1","cwd":"/repo","gitBranch":"main"`

func cUser(content string) string {
	return `{"type":"user",` + claudeMeta + `,"message":{"role":"user","content":` + content + `}}`
}

func cAsst(content string) string {
	return `{"type":"assistant",` + claudeMeta + `,"message":{"role":"assistant","content":` + content + `}}`
}

func quote(s string) string { return fmt.Sprintf("%q", s) }

func lines(ls ...string) string { return strings.Join(ls, "\n") + "\n" }

// withConfig fills o's settings from c as cmd/reflect's drainOptions does,
// keeping what o sets itself (Writer, Max, DryRun, Now, Progress): the
// tests set the drain up through the environment, as a user would.
func withConfig(c *config.Config, o Options) Options {
	o.StateDir = c.StateDir
	o.OpenIndex = func(ctx context.Context) (*index.Index, error) {
		opts, err := index.SettingsOptions(index.Settings(c.Index), false)
		if err != nil {
			return nil, err
		}
		return index.Open(ctx, c.DocumentsDir(), c.IndexDir(), opts...)
	}
	o.MaxPerRun, o.DailyMax, o.DailyUSD = c.Drain.MaxPerRun, c.Drain.DailyMax, c.Drain.DailyUSD
	o.Timeout, o.MaxAttempts = c.Drain.Timeout, c.Drain.MaxAttempts
	o.Choice = writer.Choice{
		Name: c.Drain.Writer, Command: c.Drain.Command, StateDir: c.StateDir,
		Origin: c.Origin["drain.writer"], CommandOrigin: c.Origin["drain.command"], ConfigFile: c.File,
	}
	return o
}
